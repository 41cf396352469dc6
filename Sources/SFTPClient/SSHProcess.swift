import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The user's `ssh`, started in a session of its own with the SFTP stream on a socket pair.
///
/// `setsid` (POSIX_SPAWN_SETSID) leaves ssh without a controlling terminal, so it can never read
/// from or draw on the terminal ncurses owns: every prompt goes through SSH_ASKPASS. One socket
/// pair carries stdin and stdout, as OpenSSH's own `sftp` does when it is not built with pipes, and
/// lets writes use MSG_NOSIGNAL (a dead ssh is an error value, never a SIGPIPE). stderr is a pipe
/// whose last lines classify failures (``SSHFailure``).
final class SSHProcess: @unchecked Sendable {
  let pid: pid_t
  /// Our end of the socket pair: read replies, write requests.
  let socket: Int32
  private let stderrCollector: StderrCollector
  private let exitLock = NSCondition()
  private var exitStatus: Int32?
  private var waiting = false

  private init(pid: pid_t, socket: Int32, stderrCollector: StderrCollector) {
    self.pid = pid
    self.socket = socket
    self.stderrCollector = stderrCollector
  }

  /// Spawns `arguments[0]` (looked up in PATH) with `environment` added to ours.
  static func start(arguments: [String], environment: [String: String]) throws -> SSHProcess {
    var pair: [Int32] = [-1, -1]
    #if canImport(Glibc)
      let streamType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    #else
      let streamType = SOCK_STREAM
    #endif
    guard socketpair(AF_UNIX, streamType, 0, &pair) == 0 else {
      throw SFTPError(.sshFailed, "could not start ssh: socketpair: \(String(cString: strerror(errno)))")
    }
    // stderr is a socket pair too: it is created close-on-exec atomically (pipe2 is behind
    // _GNU_SOURCE), so a process another thread spawns meanwhile cannot inherit it.
    var errorPipe: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, streamType, 0, &errorPipe) == 0 else {
      close(pair[0])
      close(pair[1])
      throw SFTPError(.sshFailed, "could not start ssh: pipe: \(String(cString: strerror(errno)))")
    }
    // Bigger socket buffers: fewer wake-ups for 255 KiB packets.
    for fd in pair {
      var size: Int32 = 1 << 20
      setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
    posix_spawn_file_actions_adddup2(&actions, pair[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errorPipe[1], 2)
    // Descriptors the rest of Folio opened without O_CLOEXEC must not leak into ssh.
    _ = closeFrom3?(&actions, 3)

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // POSIX_SPAWN_SETSID (glibc 2.26+) is behind _GNU_SOURCE in spawn.h, so it is spelled out.
    let setSessionID: Int32 = 0x80
    var defaultSignals = sigset_t()
    sigemptyset(&defaultSignals)
    sigaddset(&defaultSignals, SIGPIPE)
    sigaddset(&defaultSignals, SIGINT)
    sigaddset(&defaultSignals, SIGTERM)
    sigaddset(&defaultSignals, SIGCHLD)
    posix_spawnattr_setsigdefault(&attributes, &defaultSignals)
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setflags(
      &attributes, Int16(setSessionID | Int32(POSIX_SPAWN_SETSIGDEF) | Int32(POSIX_SPAWN_SETSIGMASK)))

    var merged = ProcessInfo.processInfo.environment
    for (key, value) in environment { merged[key] = value }
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for pointer in argv { free(pointer) }
      for pointer in envp { free(pointer) }
    }
    var pid: pid_t = 0
    let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
    close(pair[1])
    close(errorPipe[1])
    guard result == 0 else {
      close(pair[0])
      close(errorPipe[0])
      throw SFTPError(.sshFailed, "could not start \(arguments[0]): \(String(cString: strerror(result)))")
    }
    return SSHProcess(pid: pid, socket: pair[0], stderrCollector: StderrCollector(fd: errorPipe[0]))
  }

  /// glibc ≥ 2.34's posix_spawn_file_actions_addclosefrom_np, found at run time (it is declared
  /// only under _GNU_SOURCE).
  private static let closeFrom3:
    (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
      guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
      else { return nil }
      return unsafeBitCast(
        symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

  /// Blocks until ssh exits; the raw wait status. Safe to call from several threads.
  func waitForExit() -> Int32 {
    exitLock.lock()
    defer { exitLock.unlock() }
    while true {
      if let exitStatus { return exitStatus }
      if !waiting { break }
      exitLock.wait()
    }
    waiting = true
    exitLock.unlock()
    var status: Int32 = 0
    var result: pid_t
    repeat { result = waitpid(pid, &status, 0) } while result == -1 && errno == EINTR
    exitLock.lock()
    exitStatus = result == pid ? status : -1
    waiting = false
    exitLock.broadcast()
    return exitStatus!
  }

  /// What ssh printed on stderr, once it has closed it (bounded wait: a ProxyCommand child may
  /// keep it open after ssh exits).
  func stderrText(waitingUpTo seconds: Double = 2) -> String {
    stderrCollector.text(waitingUpTo: seconds)
  }

  func signal(_ number: Int32) { kill(pid, number) }
}

/// Reads ssh's stderr on a thread of its own, keeping the last 32 KiB.
private final class StderrCollector: @unchecked Sendable {
  private let condition = NSCondition()
  private var bytes: [UInt8] = []
  private var finished = false

  init(fd: Int32) {
    let thread = Thread { [self] in
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }
        condition.lock()
        bytes.append(contentsOf: buffer[0..<count])
        if bytes.count > 32768 { bytes.removeFirst(bytes.count - 32768) }
        condition.unlock()
      }
      close(fd)
      condition.lock()
      finished = true
      condition.broadcast()
      condition.unlock()
    }
    thread.name = "ssh stderr"
    thread.start()
  }

  func text(waitingUpTo seconds: Double) -> String {
    condition.lock()
    defer { condition.unlock() }
    let deadline = Date(timeIntervalSinceNow: seconds)
    while !finished && condition.wait(until: deadline) {}
    return String(decoding: bytes, as: UTF8.self)
  }
}
