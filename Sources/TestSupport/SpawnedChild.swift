import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A child process started with posix_spawn and reaped with waitpid, for the test fixtures that
/// run servers and tools. Not Foundation's `Process`: its SIGCHLD monitor runs on libdispatch, and
/// a suite stopping a server in `waitUntilExit` while many others spawned once crashed in
/// `_dispatch_event_loop_drain` (SIGSEGV under two CPU burners); it also left zombies while other
/// tests spawned ssh (SSHTestSupport's `ChildProcess` has the same reason).
public final class SpawnedChild: @unchecked Sendable {
  public let pid: pid_t
  private let lock = NSLock()
  private var status: Int32?

  /// Starts `program` with its standard streams on the given files (nil: /dev/null); stdout and
  /// stderr are appended to, so one file can take both.
  public init(_ program: String, _ arguments: [String], stdin: String? = nil, stdout: String? = nil, stderr: String? = nil)
    throws
  {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, stdin ?? "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, stderr ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o600)
    // Nothing blocked and SIGTERM/SIGINT at their defaults: a child inherits the signal mask of
    // the thread that starts it, and a test thread with SIGTERM blocked left servers that no stop
    // could end (found with the WebDAV test servers).
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attributes, &empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = ([program] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, program, &actions, &attributes, argv, environ)
    guard result == 0 else {
      throw NSError(
        domain: "SpawnedChild", code: Int(result),
        userInfo: [NSLocalizedDescriptionKey: "cannot start \(program): \(String(cString: strerror(result)))"])
    }
    self.pid = pid
  }

  /// Runs `program` to its end; its exit status (128 + n when killed by signal n), stdout, stderr.
  public static func run(_ program: String, _ arguments: [String], input: String? = nil) throws -> (
    status: Int32, out: String, err: String
  ) {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)").path
    let (inPath, outPath, errPath) = (base + ".in", base + ".out", base + ".err")
    defer { for p in [inPath, outPath, errPath] { unlink(p) } }
    if let input { FileManager.default.createFile(atPath: inPath, contents: Data(input.utf8)) }
    let child = try SpawnedChild(program, arguments, stdin: input == nil ? nil : inPath, stdout: outPath, stderr: errPath)
    let status = child.waitForExit()
    let read = { (p: String) in (try? String(contentsOfFile: p, encoding: .utf8)) ?? "" }
    return (status, read(outPath), read(errPath))
  }

  /// Whether it still runs (reaps it, without blocking, when it has ended).
  public var isRunning: Bool {
    lock.lock()
    defer { lock.unlock() }
    guard status == nil else { return false }
    var raw: Int32 = 0
    let r = waitpid(pid, &raw, WNOHANG)
    if r == pid { status = Self.exitStatus(raw) }
    return status == nil
  }

  /// The exit status once it has ended (nil while it runs).
  public var exitStatus: Int32? {
    _ = isRunning
    return lock.withLock { status }
  }

  public func signal(_ signal: Int32) {
    if isRunning { kill(pid, signal) }
  }

  /// Blocks until it ends; its exit status.
  @discardableResult
  public func waitForExit() -> Int32 {
    lock.lock()
    defer { lock.unlock() }
    if let status { return status }
    var raw: Int32 = 0
    while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
    status = Self.exitStatus(raw)
    return status!
  }

  private static func exitStatus(_ raw: Int32) -> Int32 {
    (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : 128 + (raw & 0x7F)
  }
}
