import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A private world for one test: a temporary directory holding HOME, the XDG directories (so the
/// index, the Trash and the config are the test's own), the folder `work` Folio opens, and
/// `harness` for the launcher scripts, pid files and terminal-mode snapshots. Removed at the end.
///
/// Everything lives on one filesystem, so trash-cli and Folio both use `$XDG_DATA_HOME/Trash`.
final class Sandbox: @unchecked Sendable {
  /// The resolved path of the temporary directory (Folio shows resolved paths).
  let root: String
  let home: String
  let dataHome: String
  let configHome: String
  let cacheHome: String
  let stateHome: String
  /// The folder Folio opens (its working directory).
  let work: String
  /// The harness's own files; never shown to Folio.
  let harness: String

  init() throws {
    var template = Array("\(NSTemporaryDirectory())/folio-tmux.XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw HarnessError("mkdtemp failed: \(String(cString: strerror(errno)))") }
    guard let resolved = realpath(made, nil) else { throw HarnessError("realpath failed") }
    root = String(cString: resolved)
    free(resolved)
    home = root + "/home"
    dataHome = root + "/data"
    configHome = root + "/config"
    cacheHome = root + "/cache"
    stateHome = root + "/state"
    work = root + "/work"
    harness = root + "/harness"
    for dir in [home, dataHome, configHome, cacheHome, stateHome, work, harness] {
      try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }
  }

  deinit {
    try? FileManager.default.removeItem(atPath: root)
  }

  /// Folio's whole environment: nothing leaks in from the developer's shell (no EDITOR, no real
  /// HOME, no real index, no TMUX).
  var environment: [String: String] {
    [
      "HOME": home,
      "XDG_DATA_HOME": dataHome,
      "XDG_CONFIG_HOME": configHome,
      "XDG_CACHE_HOME": cacheHome,
      "XDG_STATE_HOME": stateHome,
      "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "LANG": "C.UTF-8",
      "TZ": "UTC",
      // A crash must print its report and end, not wait for a key on the terminal.
      "SWIFT_BACKTRACE": "interactive=no",
    ]
  }

  // MARK: The filesystem

  /// An absolute path: `relative` under `work`, or `relative` itself when it starts with "/".
  func path(_ relative: String) -> String {
    relative.hasPrefix("/") ? relative : work + "/" + relative
  }

  /// Creates a file (and its parent folders) with `contents`.
  @discardableResult
  func file(_ relative: String, _ contents: String = "") throws -> String {
    let p = path(relative)
    try FileManager.default.createDirectory(
      atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try create(bytes: Array(p.utf8), contents: Array(contents.utf8))
    return p
  }

  /// Creates a file in `work` whose name is exactly `name` (any bytes but "/" and NUL).
  func file(bytes name: [UInt8], _ contents: String = "") throws {
    try create(bytes: Array(work.utf8) + [0x2F] + name, contents: Array(contents.utf8))
  }

  @discardableResult
  func folder(_ relative: String) throws -> String {
    let p = path(relative)
    try FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
    return p
  }

  /// An executable shell script at an absolute path.
  @discardableResult
  func script(at path: String, _ body: String) throws -> String {
    try create(bytes: Array(path.utf8), contents: Array(("#!/bin/sh\n" + body).utf8))
    guard chmod(path, 0o755) == 0 else { throw HarnessError("chmod \(path) failed") }
    return path
  }

  func contents(_ relative: String) -> String? {
    FileManager.default.contents(atPath: path(relative)).map { String(decoding: $0, as: UTF8.self) }
  }

  /// Whether anything (a dangling symlink included) is at the path.
  func exists(_ relative: String) -> Bool {
    var st = stat()
    return lstat(path(relative), &st) == 0
  }

  private func create(bytes path: [UInt8], contents: [UInt8]) throws {
    let fd = (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer {
      open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    }
    guard fd >= 0 else {
      throw HarnessError("cannot create \(String(decoding: path, as: UTF8.self)): \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }
    let written = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard written == contents.count else { throw HarnessError("short write") }
  }

  // MARK: Other programs

  /// Runs a program found in PATH (trash-cli, getfattr) with the sandbox's environment; a missing
  /// one fails the test with what to install.
  func tool(
    _ name: String, _ arguments: [String], package: String, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> ProgramOutput {
    let path = try #require(
      Programs.which(name, path: environment["PATH"]!),
      "\(name) is not installed: `apt-get install \(package)` (.ci/run installs it)", sourceLocation: sourceLocation)
    return try Programs.run(path, arguments, environment: environment, directory: work)
  }
}

struct HarnessError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// What a finished program printed.
struct ProgramOutput: Sendable {
  var status: Int32
  var stdout: String
  var stderr: String
}

enum Programs {
  /// The full path of a program found in `path`, or nil.
  static func which(_ program: String, path: String = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    -> String?
  {
    for dir in path.split(separator: ":") {
      let candidate = "\(dir)/\(program)"
      if access(candidate, X_OK) == 0 { return candidate }
    }
    return nil
  }

  /// Runs a program to its end and returns what it printed.
  ///
  /// posix_spawn, not Foundation's `Process`: the child starts with no blocked signals and every
  /// signal at its default action (a tmux server started here outlives the call and must react
  /// to SIGCHLD and SIGTERM; Folio must see SIGHUP), and the wait is a plain `waitpid`. Output goes
  /// through files, so a chatty program never blocks on a full pipe, and a daemon that keeps them
  /// open (the tmux server) does not hold the call.
  static func run(
    _ executable: String, _ arguments: [String], environment: [String: String], directory: String? = nil
  ) throws -> ProgramOutput {
    let scratch = NSTemporaryDirectory() + "/folio-tmux-out-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    let outPath = scratch + ".out"
    let errPath = scratch + ".err"
    defer {
      unlink(outPath)
      unlink(errPath)
    }
    func cString(_ s: String) -> UnsafeMutablePointer<CChar>? { strdup(s) }
    var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map(cString) + [nil]
    var envp: [UnsafeMutablePointer<CChar>?] = environment.sorted { $0.key < $1.key }.map { cString("\($0.key)=\($0.value)") } + [nil]
    defer {
      for p in argv { free(p) }
      for p in envp { free(p) }
    }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigfillset(&defaults)
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setsigmask(&attributes, &mask)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

    var pid: pid_t = 0
    let spawned: Int32
    if let directory {
      // The child's working directory without changing this process's (tests run in parallel):
      // through `env -C`, as posix_spawn_file_actions_addchdir_np is not imported.
      let wrapped = ["/usr/bin/env", "-C", directory, executable] + arguments
      var wrappedArgv: [UnsafeMutablePointer<CChar>?] = wrapped.map(cString) + [nil]
      defer { for p in wrappedArgv { free(p) } }
      spawned = posix_spawn(&pid, "/usr/bin/env", &actions, &attributes, &wrappedArgv, &envp)
    } else {
      spawned = posix_spawn(&pid, executable, &actions, &attributes, &argv, &envp)
    }
    guard spawned == 0 else { throw HarnessError("cannot start \(executable): \(String(cString: strerror(spawned)))") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    // WIFEXITED / WEXITSTATUS are macros Swift cannot import.
    let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    let stdout = String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self)
    let stderr = String(decoding: FileManager.default.contents(atPath: errPath) ?? Data(), as: UTF8.self)
    return ProgramOutput(status: code, stdout: stdout, stderr: stderr)
  }
}
