import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A private world for one test: a temporary directory holding HOME, the XDG directories (so the
/// index, the Trash and the config are the test's own) and a working directory `work` the
/// commands run in. Removed when the test ends.
///
/// Everything lives on one filesystem, so trash-cli and Folio both use `$XDG_DATA_HOME/Trash`.
final class Sandbox {
  /// The resolved path of the temporary directory (`getcwd` in the child reports resolved paths).
  let root: String
  let home: String
  let dataHome: String
  let configHome: String
  let cacheHome: String
  /// The working directory of every run; relative paths in helpers are relative to it.
  let work: String

  init() throws {
    var template = Array("\(NSTemporaryDirectory())/folio-e2e.XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw RunnerError("mkdtemp failed: \(String(cString: strerror(errno)))") }
    guard let resolved = realpath(made, nil) else { throw RunnerError("realpath failed") }
    root = String(cString: resolved)
    free(resolved)
    home = root + "/home"
    dataHome = root + "/data"
    configHome = root + "/config"
    cacheHome = root + "/cache"
    work = root + "/work"
    for dir in [home, dataHome, configHome, cacheHome, work] {
      try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }
  }

  deinit {
    // A test that locked a folder (chmod 000) may have failed before unlocking it.
    _ = try? FolioRunner.run("/bin/chmod", ["-R", "u+rwx", Arg(root)], environment: [:], directory: "/")
    try? FileManager.default.removeItem(atPath: root)
  }

  /// The whole environment of a run: nothing leaks in from the developer's shell (no EDITOR, no
  /// real HOME, no real index).
  var environment: [String: String] {
    [
      "HOME": home,
      "XDG_DATA_HOME": dataHome,
      "XDG_CONFIG_HOME": configHome,
      "XDG_CACHE_HOME": cacheHome,
      "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "LANG": "C.UTF-8",
      "TZ": "UTC",
    ]
  }

  // MARK: Running

  /// Runs the built `folio` with `arguments`.
  ///
  /// - Parameters:
  ///   - directory: the working directory (default: `work`).
  ///   - environment: variables added to (or replacing) the sandbox's, such as EDITOR.
  func folio(
    _ arguments: Arg..., in directory: String? = nil, environment extra: [String: String] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> RunResult {
    try folio(arguments, in: directory, environment: extra, sourceLocation: sourceLocation)
  }

  func folio(
    _ arguments: [Arg], in directory: String? = nil, environment extra: [String: String] = [:],
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> RunResult {
    let binary = try FolioRunner.binary(sourceLocation: sourceLocation)
    let result = try FolioRunner.run(
      binary, arguments, environment: environment.merging(extra) { $1 }, directory: directory ?? work)
    #expect(!result.timedOut, "timed out: \(result)", sourceLocation: sourceLocation)
    return result
  }

  /// Runs the built `folio` as permission bits bind it: root (CI runs as root) passes every
  /// permission check, so it runs under `setpriv` without the capabilities that let it
  /// (`CAP_DAC_OVERRIDE`, `CAP_DAC_READ_SEARCH`); an ordinary user runs it as is.
  func folioBoundByPermissions(
    _ arguments: Arg..., environment extra: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> RunResult {
    try folioBoundByPermissions(arguments, environment: extra, sourceLocation: sourceLocation)
  }

  func folioBoundByPermissions(
    _ arguments: [Arg], environment extra: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> RunResult {
    let binary = try FolioRunner.binary(sourceLocation: sourceLocation)
    guard geteuid() == 0 else { return try folio(arguments, environment: extra, sourceLocation: sourceLocation) }
    let setpriv = try #require(
      FolioRunner.which("setpriv", path: environment["PATH"]!), "setpriv is missing (util-linux)",
      sourceLocation: sourceLocation)
    let result = try FolioRunner.run(
      setpriv, ["--bounding-set", "-dac_override,-dac_read_search", "--", Arg(binary)] + arguments,
      environment: environment.merging(extra) { $1 }, directory: work)
    #expect(!result.timedOut, "timed out: \(result)", sourceLocation: sourceLocation)
    #expect(!result.err.hasPrefix("setpriv:"), "setpriv could not drop the capabilities: \(result)", sourceLocation: sourceLocation)
    return result
  }

  /// Runs another program found in PATH (trash-cli, getfattr); a missing one fails the test with
  /// what to install.
  func tool(
    _ name: String, _ arguments: Arg..., package: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> RunResult {
    let path = try #require(
      FolioRunner.which(name, path: environment["PATH"]!),
      "\(name) is not installed: `apt-get install \(package)` (.ci/run installs it)", sourceLocation: sourceLocation)
    return try FolioRunner.run(path, arguments, environment: environment, directory: work)
  }

  // MARK: The filesystem

  /// An absolute path: `relative` under `work`, or `relative` itself when it starts with "/".
  func path(_ relative: String) -> String {
    relative.hasPrefix("/") ? relative : work + "/" + relative
  }

  /// The bytes of `work/name` for a name that may not be UTF-8.
  func path(bytes name: [UInt8]) -> [UInt8] { Array(work.utf8) + [0x2F] + name }

  /// Creates a file (and its parent folders) with `contents`, optionally with a modification date.
  @discardableResult
  func file(_ relative: String, _ contents: String = "", modified: Date? = nil) throws -> String {
    let p = path(relative)
    try FileManager.default.createDirectory(
      atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try create(bytes: Array(p.utf8), contents: Array(contents.utf8))
    if let modified { try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: p) }
    return p
  }

  /// Creates a file in `work` whose name is exactly `name` (any bytes but "/" and NUL).
  func file(bytes name: [UInt8], _ contents: String = "") throws {
    try create(bytes: path(bytes: name), contents: Array(contents.utf8))
  }

  private func create(bytes path: [UInt8], contents: [UInt8]) throws {
    let fd = withCPath(path) { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
    guard fd >= 0 else { throw RunnerError("cannot create \(String(decoding: path, as: UTF8.self)): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    let written = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard written == contents.count else { throw RunnerError("short write") }
  }

  @discardableResult
  func folder(_ relative: String) throws -> String {
    let p = path(relative)
    try FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
    return p
  }

  /// A shell script, executable, at `relative`.
  @discardableResult
  func script(_ relative: String, _ body: String) throws -> String {
    let p = try file(relative, "#!/bin/sh\n" + body)
    guard chmod(p, 0o755) == 0 else { throw RunnerError("chmod failed") }
    return p
  }

  /// A script that writes the argv it got ($0 and every argument, each ended by NUL) to
  /// `argvFile`, so that a test can compare it byte for byte.
  @discardableResult
  func recordingScript(_ relative: String, argvFile: String) throws -> String {
    try script(relative, "for a in \"$0\" \"$@\"; do printf '%s\\0' \"$a\"; done > '\(argvFile)'\n")
  }

  /// The argv a recording script wrote, or nil when it did not run.
  func recordedArgv(_ argvFile: String) -> [[UInt8]]? {
    guard let data = FileManager.default.contents(atPath: argvFile) else { return nil }
    var parts = Array(data).split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
    if parts.last == [] { parts.removeLast() }
    return parts
  }

  /// Writes `$XDG_CONFIG_HOME/folio/config.toml` and returns its path.
  @discardableResult
  func config(_ toml: String) throws -> String {
    let dir = configHome + "/folio"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let p = dir + "/config.toml"
    try toml.write(toFile: p, atomically: false, encoding: .utf8)
    return p
  }

  func contents(_ relative: String) -> String? {
    FileManager.default.contents(atPath: path(relative)).map { String(decoding: $0, as: UTF8.self) }
  }

  /// Whether anything (a dangling symlink included) is at the path.
  func exists(_ relative: String) -> Bool { exists(bytes: Array(path(relative).utf8)) }

  func exists(bytes path: [UInt8]) -> Bool {
    var st = stat()
    return withCPath(path) { lstat($0, &st) } == 0
  }

  /// The names in a folder, as bytes, without "." and "..".
  func names(in relative: String = ".") -> Set<[UInt8]> {
    guard let dir = opendir(path(relative)) else { return [] }
    defer { closedir(dir) }
    var out = Set<[UInt8]>()
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
      if name != [0x2E] && name != [0x2E, 0x2E] { out.insert(name) }
    }
    return out
  }

  /// The names in a folder as text (for folders whose names are all UTF-8).
  func textNames(in relative: String = ".") -> Set<String> {
    Set(names(in: relative).map { String(decoding: $0, as: UTF8.self) })
  }

  private func withCPath<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
    (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { body($0.baseAddress!) }
  }
}

/// Checks on what a run printed that most tests repeat.
extension RunResult {
  /// Succeeded with nothing on stderr.
  var succeeded: Bool { status == 0 && stderr.isEmpty }

  /// Failed the way Folio reports a user error: exit `code`, nothing on stdout, and exactly one
  /// line on stderr that starts with "folio: ".
  func failedCleanly(_ code: Int32 = 1) -> Bool {
    status == code && stdout.isEmpty && errLines.count == 1 && err.hasPrefix("folio: ")
  }
}
