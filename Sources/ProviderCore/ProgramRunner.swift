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
  public static func run(_ argv: [[UInt8]], environment: [String: String]? = nil) async throws(ProviderError) -> Outcome {
    guard let program = argv.first, !program.isEmpty else {
      throw ProviderError(.invalidArgument, "no program to run")
    }
    let pid = try spawn(argv, environment: environment)
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
  static func spawn(_ argv: [[UInt8]], environment: [String: String]?) throws(ProviderError) -> pid_t {
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
    var pid: pid_t = 0
    let rc: Int32
    if environment != nil {
      rc = posix_spawnp(&pid, cArgs[0]!, nil, nil, cArgs, cEnv)
    } else {
      rc = posix_spawnp(&pid, cArgs[0]!, nil, nil, cArgs, environ)
    }
    if rc != 0 {
      let name = TerminalText.escape(bytes: argv[0])
      if rc == ENOENT { throw ProviderError(.noSuchItem, "program not found: \(name)", underlying: rc) }
      if rc == EACCES { throw ProviderError(.noPermission, "cannot run \(name): permission denied", underlying: rc) }
      throw ProviderError(.ioError, "cannot run \(name): \(String(cString: strerror(rc)))", underlying: rc)
    }
    return pid
  }

  /// Whether a program name resolves in PATH (for choosing openers).
  public static func isAvailable(_ program: String, path: String? = ProcessInfo.processInfo.environment["PATH"]) -> Bool {
    if program.contains("/") { return access(program, X_OK) == 0 }
    for dir in (path ?? "/usr/bin:/bin").split(separator: ":") where access("\(dir)/\(program)", X_OK) == 0 {
      return true
    }
    return false
  }
}
