import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A server process, started with posix_spawn and reaped with waitpid, whose signals are its own.
///
/// Not TestSupport's `ServerChild`: a child inherits its parent thread's signal mask, and the
/// threads tests run on (libdispatch's workers, the off-the-pool executor) block almost every
/// signal. Apache and nginx keep the mask they are given, so a SIGTERM to stop them never arrived
/// and every test that stopped one hung in waitpid (seen: SigBlk fffffffe3bfbea27 in
/// /proc/PID/status). Here the child starts with an empty mask and the default action for the
/// signals that stop it.
final class ServerChild: @unchecked Sendable {
  let pid: pid_t
  private let lock = NSLock()
  private var status: Int32?

  /// Starts `program` with stdin on /dev/null and stdout and stderr appended to `output`.
  init(_ program: String, _ arguments: [String], output: String) throws {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attributes, &empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2, SIGCHLD] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = ([program] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, program, &actions, &attributes, argv, environ)
    guard result == 0 else {
      throw WebDAVFixtureError("cannot start \(program): \(String(cString: strerror(result)))")
    }
    self.pid = pid
  }

  /// Runs `program` to its end; its exit status and what it printed.
  static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("folio-dav-\(UUID().uuidString)").path
    defer { unlink(output) }
    let child = try ServerChild(program, arguments, output: output)
    let status = child.waitForExit()
    return (status, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
  }

  /// Whether it still runs (reaps it, without blocking, once it ended).
  var isRunning: Bool {
    lock.withLock {
      guard status == nil else { return false }
      var raw: Int32 = 0
      if waitpid(pid, &raw, WNOHANG) == pid { status = Self.exitStatus(raw) }
      return status == nil
    }
  }

  func signal(_ signal: Int32) {
    if isRunning { kill(pid, signal) }
  }

  /// Blocks until it ends; its exit status (128 + n when killed by signal n).
  @discardableResult
  func waitForExit() -> Int32 {
    lock.withLock {
      if let status { return status }
      var raw: Int32 = 0
      while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
      let ended = Self.exitStatus(raw)
      status = ended
      return ended
    }
  }

  private static func exitStatus(_ raw: Int32) -> Int32 {
    (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
  }
}
