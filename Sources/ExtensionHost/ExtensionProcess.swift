import CFolioSystem
import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// A running extension: its process group, the socket that carries its stdin and stdout, and the
/// socket its stderr comes out of.
///
/// Spawned as SFTPClient's `SSHProcess` spawns ssh (posix_spawn, POSIX_SPAWN_SETSID, socket pairs
/// created close-on-exec, every signal at its default): the extension leads a session of its own,
/// so it can never read from or draw on the terminal ncurses owns, and its children are in its
/// process group, which the host kills as one. One socket pair carries stdin and stdout: writes
/// use MSG_NOSIGNAL (a dead extension is an error value, never a SIGPIPE), and `shutdown(SHUT_WR)`
/// is the EOF on stdin that asks it to exit.
final class ExtensionProcess: @unchecked Sendable {
  let pid: pid_t
  /// Our end of stdin/stdout.
  let socket: Int32
  /// Our end of stderr.
  let stderrSocket: Int32
  private let lock = NSCondition()
  private var status: Int32?
  private var waiting = false

  private init(pid: pid_t, socket: Int32, stderrSocket: Int32) {
    self.pid = pid
    self.socket = socket
    self.stderrSocket = stderrSocket
  }

  /// Starts `executable` with `argv` (argv[0] as the user wrote it) in `directory`.
  static func start(
    executable: String, argv: [String], directory: String, environment: [String: String]
  ) throws(ProviderError) -> ExtensionProcess {
    #if canImport(Glibc)
      let streamType = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
    #else
      let streamType = SOCK_STREAM
    #endif
    var pair: [Int32] = [-1, -1]
    var errorPair: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, streamType, 0, &pair) == 0 else {
      throw ProviderError(.ioError, "cannot start the extension: socketpair: \(String(cString: strerror(errno)))")
    }
    guard socketpair(AF_UNIX, streamType, 0, &errorPair) == 0 else {
      close(pair[0])
      close(pair[1])
      throw ProviderError(.ioError, "cannot start the extension: socketpair: \(String(cString: strerror(errno)))")
    }
    for fd in [pair[0], pair[1]] {
      var size: Int32 = 1 << 20
      setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pair[1], 0)
    posix_spawn_file_actions_adddup2(&actions, pair[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errorPair[1], 2)
    _ = closeFrom3?(&actions, 3)
    _ = directory.withCString { folio_spawn_file_actions_addchdir(&actions, $0) }

    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    let setSessionID: Int32 = 0x80  // POSIX_SPAWN_SETSID, behind _GNU_SOURCE in spawn.h
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setflags(
      &attributes, Int16(setSessionID | Int32(POSIX_SPAWN_SETSIGDEF) | Int32(POSIX_SPAWN_SETSIGMASK)))

    var merged = ProcessInfo.processInfo.environment
    for (key, value) in environment { merged[key] = value }
    let cArgv = argv.map { strdup($0) } + [nil]
    let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for p in cArgv { free(p) }
      for p in envp { free(p) }
    }
    var pid: pid_t = 0
    var rc: Int32 = 0
    for attempt in 0..<20 {
      rc = posix_spawn(&pid, executable, &actions, &attributes, cArgv, envp)
      // ETXTBSY: a script written a moment ago (ProgramRunner says why): try again briefly.
      guard rc == ETXTBSY, attempt < 19 else { break }
      usleep(UInt32(5_000 * (attempt + 1)))
    }
    close(pair[1])
    close(errorPair[1])
    guard rc == 0 else {
      close(pair[0])
      close(errorPair[0])
      let name = TerminalText.escape(executable)
      if rc == ENOENT, access(directory, F_OK) != 0 {
        throw ProviderError(.badConfig, "cannot start \(name): its state folder \(TerminalText.escape(directory)) is missing")
      }
      throw ProviderError(.badConfig, "cannot start \(name): \(String(cString: strerror(rc)))", underlying: rc)
    }
    return ExtensionProcess(pid: pid, socket: pair[0], stderrSocket: errorPair[0])
  }

  private static let closeFrom3:
    (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
      guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
      return unsafeBitCast(
        symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

  /// Writes a whole line; false when the extension is gone.
  func write(_ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let n = bytes.withUnsafeBytes { send(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
      if n < 0 {
        if errno == EINTR { continue }
        return false
      }
      offset += n
    }
    return true
  }

  /// EOF on the extension's stdin.
  func closeInput() { shutdown(socket, Int32(SHUT_WR)) }

  /// Signals the whole process group (the extension and anything it started).
  func signalGroup(_ number: Int32) { kill(-pid, number) }

  /// The wait status once the process has exited, without waiting; nil while it runs.
  func exitStatusNow() -> Int32? {
    lock.lock()
    defer { lock.unlock() }
    if let status { return status }
    if waiting { return nil }
    var s: Int32 = 0
    let r = waitpid(pid, &s, WNOHANG)
    if r == pid { status = s }
    return status
  }

  /// Blocks until the process exits (a thread of the caller's, never the UI's).
  func waitForExit() -> Int32 {
    lock.lock()
    while true {
      if let status {
        lock.unlock()
        return status
      }
      if !waiting { break }
      lock.wait()
    }
    waiting = true
    lock.unlock()
    var s: Int32 = 0
    var r: pid_t
    repeat { r = waitpid(pid, &s, 0) } while r == -1 && errno == EINTR
    lock.lock()
    status = r == pid ? s : -1
    waiting = false
    lock.broadcast()
    lock.unlock()
    return status!
  }

  /// "exited with status 3", "killed by signal 11".
  static func describe(status: Int32) -> String {
    if status == -1 { return "lost track of the process" }
    if status & 0x7F == 0 { return "exited with status \((status >> 8) & 0xFF)" }
    return "killed by signal \(status & 0x7F)"
  }
}
