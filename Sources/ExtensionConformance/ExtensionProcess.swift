import CFolioSystem
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One run of the extension under test, driven at the level of bytes: the kit must see every raw
/// stdout line with the time it came, send lines that are not JSON, and end the process with
/// SIGTERM or SIGKILL at a moment it chooses.
///
/// posix_spawnp rather than Foundation's `Process`: the child gets a process group of its own
/// (the host signals the group, so must the kit), its working directory, and pipes whose parent
/// ends are close-on-exec, so a second run never inherits the first one's stdin and keeps it open.
/// The host's own connection (module ExtensionHost) is a different, long-lived client; this one
/// only observes (docs/DECISIONS.md).
public final class ExtensionProcess: @unchecked Sendable {
  /// A line the extension printed on stdout, without its `\n` (nor a `\r` before it).
  public struct Line: Sendable {
    public var bytes: [UInt8]
    public var at: Date
    /// The line was cut at the kit's limit (8 MiB, the protocol's).
    public var overlong: Bool
  }

  public static let maxLine = 8 << 20
  private static let spawnLock = NSLock()

  public let pid: pid_t
  private let stdinFD: Int32
  private let condition = NSCondition()
  /// Held while writing stdin, apart from `condition`: a write blocked on a full pipe must not
  /// stop the reader, or an extension blocked on its own stdout would never read its stdin.
  private let writeLock = NSLock()
  private var lines: [Line] = []
  private var stdoutClosed = false
  private var stderrTail: [UInt8] = []
  private var exitStatus: Int32?
  private var stdinOpen = true

  /// Starts `argv` (argv[0] searched on PATH) in `directory` with the caller's environment plus
  /// `FOLIO_EXTENSION=1`.
  public init(argv: [String], directory: String) throws {
    // pipe2 is not visible to Swift; pipe then FD_CLOEXEC, under a lock so that a kit spawning in
    // another thread (the tests run several) never hands these ends to its child.
    Self.spawnLock.lock()
    defer { Self.spawnLock.unlock() }
    var inPipe: [Int32] = [-1, -1]
    var outPipe: [Int32] = [-1, -1]
    var errPipe: [Int32] = [-1, -1]
    guard pipe(&inPipe) == 0, pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
      throw KitError("cannot make pipes: \(String(cString: strerror(errno)))")
    }
    for fd in inPipe + outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
    folio_spawn_file_actions_addchdir(&actions, directory)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))
    var environment = ProcessInfo.processInfo.environment
    environment["FOLIO_EXTENSION"] = "1"
    var cEnv: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") }
    cEnv.append(nil)
    var cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) }
    cArgs.append(nil)
    defer {
      for p in cArgs { free(p) }
      for p in cEnv { free(p) }
    }
    var child: pid_t = 0
    let rc = posix_spawnp(&child, cArgs[0]!, &actions, &attributes, cArgs, cEnv)
    close(inPipe[0])
    close(outPipe[1])
    close(errPipe[1])
    guard rc == 0 else {
      close(inPipe[1])
      close(outPipe[0])
      close(errPipe[0])
      throw KitError("cannot start \(argv[0]): \(String(cString: strerror(rc)))")
    }
    pid = child
    stdinFD = inPipe[1]
    let outFD = outPipe[0]
    let errFD = errPipe[0]
    Thread.detachNewThread { [self] in readLines(outFD) }
    Thread.detachNewThread { [self] in readLog(errFD) }
    Thread.detachNewThread { [self] in reap() }
  }

  deinit {
    if stdinOpen { close(stdinFD) }
  }

  // MARK: Writing

  /// Writes `bytes` plus a newline to the extension's stdin; false when the pipe is closed.
  @discardableResult
  public func send(_ bytes: [UInt8]) -> Bool {
    writeLock.lock()
    defer { writeLock.unlock() }
    guard stdinOpen else { return false }
    var data = bytes
    data.append(0x0A)
    var offset = 0
    while offset < data.count {
      let n = data[offset...].withUnsafeBytes { write(stdinFD, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { return false }
      offset += n
    }
    return true
  }

  /// Closes stdin: the extension's signal to exit.
  public func closeInput() {
    writeLock.lock()
    defer { writeLock.unlock() }
    if stdinOpen {
      close(stdinFD)
      stdinOpen = false
    }
  }

  /// Sends `signal` to the extension's process group.
  public func signal(_ signal: Int32) {
    kill(-pid, signal)
  }

  /// Ends the process group for good and waits (bounded) for the exit to be collected.
  public func terminate() {
    closeInput()
    if exit == nil {
      signal(SIGKILL)
      _ = waitForExit(until: Date().addingTimeInterval(5))
    } else {
      kill(-pid, SIGKILL)  // children it left behind in its group
    }
  }

  // MARK: Observing

  /// The stdout lines received so far, from index `from`.
  public func lines(from index: Int) -> [Line] {
    condition.lock()
    defer { condition.unlock() }
    return index < lines.count ? Array(lines[index...]) : []
  }

  public var lineCount: Int {
    condition.lock()
    defer { condition.unlock() }
    return lines.count
  }

  /// Waits until more than `count` lines have arrived, stdout closed, or the deadline passed.
  /// - Returns: whether a new line is there.
  public func waitForLine(after count: Int, until deadline: Date) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while lines.count <= count && !stdoutClosed {
      if !condition.wait(until: deadline) { break }
    }
    return lines.count > count
  }

  public var isStdoutClosed: Bool {
    condition.lock()
    defer { condition.unlock() }
    return stdoutClosed
  }

  /// The raw wait status once the process exited.
  public var exit: Int32? {
    condition.lock()
    defer { condition.unlock() }
    return exitStatus
  }

  /// Waits for the process to exit. - Returns: the wait status, nil when the deadline passed first.
  public func waitForExit(until deadline: Date) -> Int32? {
    condition.lock()
    defer { condition.unlock() }
    while exitStatus == nil {
      if !condition.wait(until: deadline) { break }
    }
    return exitStatus
  }

  /// The last lines of stderr (the extension's log), for a failure's transcript.
  public var logTail: String {
    condition.lock()
    defer { condition.unlock() }
    return String(decoding: stderrTail, as: UTF8.self)
  }

  /// "exit 0", "killed by signal 9".
  public static func describe(status: Int32) -> String {
    status & 0x7F == 0 ? "exit \((status >> 8) & 0xFF)" : "killed by signal \(status & 0x7F)"
  }

  // MARK: Threads

  private func readLines(_ fd: Int32) {
    var pending: [UInt8] = []
    var overlong = false
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      var start = 0
      var finished: [Line] = []
      for i in 0..<n where chunk[i] == 0x0A {
        if !overlong { pending.append(contentsOf: chunk[start..<i]) }
        if pending.last == 0x0D { pending.removeLast() }
        finished.append(Line(bytes: pending, at: Date(), overlong: overlong))
        pending.removeAll(keepingCapacity: true)
        overlong = false
        start = i + 1
      }
      if !overlong { pending.append(contentsOf: chunk[start..<n]) }
      if pending.count > Self.maxLine {
        pending.removeSubrange(Self.maxLine...)
        overlong = true
      }
      if !finished.isEmpty {
        condition.lock()
        lines.append(contentsOf: finished)
        condition.broadcast()
        condition.unlock()
      }
    }
    close(fd)
    condition.lock()
    if !pending.isEmpty { lines.append(Line(bytes: pending, at: Date(), overlong: overlong)) }
    stdoutClosed = true
    condition.broadcast()
    condition.unlock()
  }

  private func readLog(_ fd: Int32) {
    var chunk = [UInt8](repeating: 0, count: 1 << 14)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      condition.lock()
      stderrTail.append(contentsOf: chunk[0..<n])
      if stderrTail.count > 4096 { stderrTail.removeFirst(stderrTail.count - 4096) }
      condition.unlock()
    }
    close(fd)
  }

  private func reap() {
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    condition.lock()
    exitStatus = status
    condition.broadcast()
    condition.unlock()
  }
}

/// A failure of the kit itself (cannot start the extension, cannot write scratch files).
public struct KitError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}
