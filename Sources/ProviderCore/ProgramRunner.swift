import CFolioSystem
import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a program with an argv: never a shell, never a string spliced together.
///
/// Arguments are bytes (file names are bytes). The program is looked up in `PATH` like `execvp`.
/// The child inherits the terminal; the caller (the UI) suspends its own screen around the call.
public enum ProgramRunner {
  public struct Outcome: Sendable, Equatable {
    /// The exit status, or nil when a signal ended the program.
    public var exitStatus: Int32?
    public var signal: Int32?
    public var succeeded: Bool { exitStatus == 0 }
  }

  /// Starts the program and waits for it (on a dispatch thread, not the caller's).
  ///
  /// - Parameters:
  ///   - environment: the child's whole environment (nil: Folio's own).
  ///   - currentDirectory: where the child starts (nil: Folio's working directory). A shell
  ///     command runs in the folder being browsed, which is not Folio's working directory: the
  ///     child changes to it between fork and exec, so Folio's own never moves.
  public static func run(
    _ argv: [[UInt8]], environment: [String: String]? = nil, currentDirectory: ItemPath? = nil
  ) async throws(ProviderError) -> Outcome {
    guard let program = argv.first, !program.isEmpty else {
      throw ProviderError(.invalidArgument, "no program to run")
    }
    let pid = try spawn(argv, environment: environment, currentDirectory: currentDirectory)
    let result: Result<Outcome, ProviderError> = await withCheckedContinuation { cont in
      DispatchQueue.global().async {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
          if errno != EINTR {
            cont.resume(returning: .failure(ProviderError(.ioError, "lost track of the program (waitpid failed)")))
            return
          }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG are macros; spelled out here.
        if status & 0x7F == 0 {
          cont.resume(returning: .success(Outcome(exitStatus: (status >> 8) & 0xFF, signal: nil)))
        } else {
          cont.resume(returning: .success(Outcome(exitStatus: nil, signal: status & 0x7F)))
        }
      }
    }
    return try result.get()
  }

  /// posix_spawnp with the given argv; returns the child's pid.
  static func spawn(
    _ argv: [[UInt8]], environment: [String: String]?, currentDirectory: ItemPath? = nil
  ) throws(ProviderError) -> pid_t {
    var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { bytes in
      let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
      for (i, b) in bytes.enumerated() { p[i] = CChar(bitPattern: b) }
      p[bytes.count] = 0
      return p
    }
    cArgs.append(nil)
    defer { for p in cArgs { p?.deallocate() } }
    var cEnv: [UnsafeMutablePointer<CChar>?] = []
    if let environment {
      cEnv = environment.map { strdup("\($0.key)=\($0.value)") }
      cEnv.append(nil)
    }
    defer { for p in cEnv { free(p) } }
    // The caller is usually a pool thread, and libdispatch's worker threads block most signals: a
    // child would inherit that mask (an editor deaf to Ctrl-C, a script immune to SIGTERM) and any
    // ignored disposition (SIGPIPE). Start it with nothing blocked and every signal at its default.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let currentDirectory {
      // glibc ≥ 2.29: the chdir happens in the child, and a folder gone meanwhile fails the spawn
      // with its errno (ENOENT) instead of running the command somewhere else.
      _ = currentDirectory.withCString { folio_spawn_file_actions_addchdir(&actions, $0) }
    }
    var pid: pid_t = 0
    var rc: Int32 = 0
    // ETXTBSY: the program file is still open for writing somewhere — a script saved a moment
    // ago, or its write descriptor inherited by a child another thread forked before closing it.
    // That lasts until the writer closes or that child execs: try again briefly (as Go's os/exec
    // does) instead of failing the user's action.
    for attempt in 0..<20 {
      if environment != nil {
        rc = posix_spawnp(&pid, cArgs[0]!, &actions, &attributes, cArgs, cEnv)
      } else {
        rc = posix_spawnp(&pid, cArgs[0]!, &actions, &attributes, cArgs, environ)
      }
      guard rc == ETXTBSY, attempt < 19 else { break }
      usleep(UInt32(5_000 * (attempt + 1)))
    }
    if rc != 0 {
      let name = TerminalText.escape(bytes: argv[0])
      if rc == ENOENT, let currentDirectory, currentDirectory.withCString({ access($0, F_OK) }) != 0 {
        throw ProviderError(.noSuchItem, "\(currentDirectory.displayString) is gone: \(name) was not run", underlying: rc)
      }
      if rc == ENOENT { throw ProviderError(.noSuchItem, "program not found: \(name)", underlying: rc) }
      if rc == EACCES { throw ProviderError(.noPermission, "cannot run \(name): permission denied", underlying: rc) }
      throw ProviderError(.ioError, "cannot run \(name): \(String(cString: strerror(rc)))", underlying: rc)
    }
    return pid
  }

  /// Whether a program name resolves in PATH (for choosing openers).
  public static func isAvailable(_ program: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> Bool {
    if program.contains("/") { return isExecutableFile(program) }
    for dir in (path ?? "/usr/bin:/bin").split(separator: ":") where isExecutableFile("\(dir)/\(program)") {
      return true
    }
    return false
  }

  /// An executable regular file (a folder is X_OK too, but cannot be run).
  private static func isExecutableFile(_ path: String) -> Bool {
    var st = stat()
    guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return false }
    return access(path, X_OK) == 0
  }
}
