import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Where and with what a helper runs: the private cache folder (its cwd, and where picture files
/// go), the search path tools are found on, and the few environment variables it gets.
///
/// The folder is `$XDG_CACHE_HOME/folio/preview`, mode 0700 and checked to be ours and not a
/// symlink: a predictable path in /tmp lets another user plant a symlink where a helper writes
/// (ranger #3231). Nothing else of Folio's environment reaches a helper (no tokens, no
/// `LD_PRELOAD`, no `TERM`: a helper's output goes to a pipe, never to the terminal).
public struct HelperSandbox: Sendable {
  /// The private cache folder: the helpers' working directory and `TMPDIR`.
  public let directory: String
  /// The folders a tool is looked for in, in order (`$PATH`).
  public let searchPath: [String]
  /// `$HOME`, passed on (tools find their own config there), when set.
  public let home: String?

  /// Makes (or checks) the cache folder and reads `PATH` and `HOME` from `environment`.
  ///
  /// - Parameters:
  ///   - directory: the private cache folder, normally FolioPaths' `previewCache`. Missing
  ///     folders on the way are made with mode 0700.
  ///   - environment: where `PATH` and `HOME` come from.
  /// - Throws: `cacheUnusable` when the folder cannot be made, is a symlink or not a folder, or
  ///   belongs to another user.
  public static func prepare(directory: String, environment: [String: String] = ProcessInfo.processInfo.environment)
    throws(HelperError) -> HelperSandbox
  {
    try makePrivateDirectory(directory)
    let path = environment["PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/bin:/usr/bin:/bin"
    return HelperSandbox(
      directory: directory, searchPath: path.split(separator: ":").map(String.init),
      home: environment["HOME"].flatMap { $0.isEmpty ? nil : $0 })
  }

  /// A sandbox over a folder that is already prepared (tests, or a second search path).
  public init(directory: String, searchPath: [String], home: String?) {
    self.directory = directory
    self.searchPath = searchPath
    self.home = home
  }

  /// The absolute path of `tool` on the search path (an executable regular file), or nil.
  ///
  /// A name with a slash is taken as a path and only checked. Relative entries of `PATH` (".",
  /// empty) are skipped: a helper must not run a program from whatever folder Folio started in.
  public func locate(_ tool: String) -> String? {
    guard !tool.isEmpty else { return nil }
    if tool.contains("/") { return tool.hasPrefix("/") && Self.isExecutableFile(tool) ? tool : nil }
    for folder in searchPath where folder.hasPrefix("/") {
      let candidate = folder.hasSuffix("/") ? folder + tool : folder + "/" + tool
      if Self.isExecutableFile(candidate) { return candidate }
    }
    return nil
  }

  /// The whole environment a helper gets.
  var environment: [String] {
    var env = ["LC_ALL=C.UTF-8", "PATH=" + searchPath.joined(separator: ":"), "TMPDIR=" + directory]
    if let home { env.append("HOME=" + home) }
    return env
  }

  /// A new, empty file in the cache folder for a helper to write a picture into: made with
  /// `O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0600, so its name is ours alone.
  ///
  /// - Parameter suffix: what the name ends with (`.png`).
  func reserveFile(prefix: String, suffix: String) throws(HelperError) -> String {
    for _ in 0..<8 {
      let token = String(UInt64.random(in: .min ... .max), radix: 36)
      let path = directory + "/" + prefix + token + suffix
      let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
      if fd >= 0 {
        close(fd)
        return path
      }
      if errno != EEXIST { break }
    }
    throw HelperError(.cacheUnusable, "cannot make a file in \(TerminalText.escape(directory)): \(Self.errnoText())")
  }

  // MARK: -

  private static func isExecutableFile(_ path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
    return access(path, X_OK) == 0
  }

  /// Makes `path` and any missing parent with mode 0700, then checks it: a real folder (not a
  /// symlink), ours, and no one else's to read or write (a looser mode is tightened).
  static func makePrivateDirectory(_ path: String) throws(HelperError) {
    guard path.hasPrefix("/") else {
      throw HelperError(.cacheUnusable, "the preview cache \(TerminalText.escape(path)) is not an absolute path")
    }
    var prefix = ""
    for component in path.split(separator: "/") {
      // Concrete appends: `String + Substring` is a generic the runtime resolves at first use.
      prefix += "/"
      prefix += String(component)
      if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
        throw HelperError(.cacheUnusable, "cannot make \(TerminalText.escape(prefix)): \(errnoText())")
      }
    }
    var info = stat()
    guard lstat(path, &info) == 0 else {
      throw HelperError(.cacheUnusable, "cannot read \(TerminalText.escape(path)): \(errnoText())")
    }
    guard info.st_mode & S_IFMT == S_IFDIR else {
      throw HelperError(.cacheUnusable, "\(TerminalText.escape(path)) is not a folder (a symlink is refused)")
    }
    guard info.st_uid == getuid() else {
      throw HelperError(.cacheUnusable, "\(TerminalText.escape(path)) belongs to another user")
    }
    if info.st_mode & 0o077 != 0 && chmod(path, 0o700) != 0 {
      throw HelperError(.cacheUnusable, "cannot make \(TerminalText.escape(path)) private: \(errnoText())")
    }
  }

  static func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }
}
