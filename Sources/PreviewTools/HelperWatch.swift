import CPreviewTools

#if canImport(Glibc)
  import Glibc
#endif

/// The loop that watches one running helper until its leader has exited (or is given up on):
/// poll(2) over stdout, stderr, a pidfd and the wake-up pipe, with the next instant that matters
/// (deadline, SIGKILL, giving up) as its timeout.
///
/// Stopping is SIGTERM to the process group (`kill(-pid, …)`: the helper is its group's leader,
/// having called setsid), then SIGKILL when `terminationGrace` has passed.
struct HelperWatch {
  let pid: pid_t
  private let outFD: Int32
  private let errFD: Int32
  private let wakeFD: Int32
  private let limits: HelperLimits

  private(set) var output: [UInt8] = []
  private(set) var errorOutput: [UInt8] = []
  private(set) var stop: HelperResult.Stop?
  private(set) var wasCancelled = false
  /// The leader did not exit within `abandonAfter` of SIGKILL.
  private(set) var abandoned = false

  private enum Phase {
    case running
    /// SIGTERM sent; SIGKILL at this instant.
    case terminating(until: ContinuousClock.Instant)
    /// SIGKILL sent; give up waiting at this instant.
    case killed(until: ContinuousClock.Instant)
  }

  private var phase = Phase.running
  private var lines = 0
  private var outOpen = true
  private var errOpen = true

  init(pid: pid_t, outFD: Int32, errFD: Int32, wakeFD: Int32, limits: HelperLimits) {
    self.pid = pid
    self.outFD = outFD
    self.errFD = errFD
    self.wakeFD = wakeFD
    self.limits = limits
  }

  mutating func run() {
    let deadline = ContinuousClock.now + limits.deadline
    // Without pidfds (Linux < 5.3), the exit is noticed by asking every 10 ms.
    let pidFD = folio_pidfd_open(pid)
    defer { if pidFD >= 0 { close(pidFD) } }
    var exited = false
    var wakeSeen = false
    while true {
      if pidFD < 0 && folio_has_exited(pid) != 0 { exited = true }
      if exited {
        // What the leader wrote before it exited is in the pipes; a descendant still holding them
        // open must not make us wait, so read what is there and stop.
        drain(outFD, isOutput: true)
        drain(errFD, isOutput: false)
        return
      }
      let now = ContinuousClock.now
      let next: ContinuousClock.Instant
      switch phase {
      case .running:
        if now >= deadline {
          requestStop(.deadline)
          continue
        }
        next = deadline
      case .terminating(let until):
        if now >= until {
          kill(-pid, SIGKILL)
          phase = .killed(until: now + limits.abandonAfter)
          continue
        }
        next = until
      case .killed(let until):
        if now >= until {
          abandoned = true
          return
        }
        next = until
      }
      var timeout = Self.milliseconds(next - now)
      if pidFD < 0 { timeout = min(timeout, 10) }

      var fds: [pollfd] = []
      if outOpen { fds.append(pollfd(fd: outFD, events: Int16(POLLIN), revents: 0)) }
      if errOpen { fds.append(pollfd(fd: errFD, events: Int16(POLLIN), revents: 0)) }
      if pidFD >= 0 { fds.append(pollfd(fd: pidFD, events: Int16(POLLIN), revents: 0)) }
      if !wakeSeen { fds.append(pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)) }
      let ready = poll(&fds, nfds_t(fds.count), timeout)
      if ready < 0 && errno != EINTR { return abandonAfterPollFailure() }
      guard ready > 0 else { continue }
      for entry in fds where entry.revents != 0 {
        switch entry.fd {
        case outFD: outOpen = readAvailable(outFD, isOutput: true)
        case errFD: errOpen = readAvailable(errFD, isOutput: false)
        case pidFD: exited = true
        default:
          wakeSeen = true
          wasCancelled = true
          requestStop(nil)
        }
      }
    }
  }

  /// SIGTERM to the group, once; the first reason is kept.
  private mutating func requestStop(_ reason: HelperResult.Stop?) {
    if stop == nil && !wasCancelled { stop = reason }
    guard case .running = phase else { return }
    kill(-pid, SIGTERM)
    phase = .terminating(until: ContinuousClock.now + limits.terminationGrace)
  }

  /// poll itself failed (EINVAL, ENOMEM): kill the group and wait for the leader without it.
  private mutating func abandonAfterPollFailure() {
    kill(-pid, SIGKILL)
    if stop == nil && !wasCancelled { stop = .deadline }
  }

  /// Reads until the pipe is empty. Returns false at end of file.
  private mutating func readAvailable(_ fd: Int32, isOutput: Bool) -> Bool {
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n > 0 {
        take(chunk[0..<n], isOutput: isOutput)
        continue
      }
      if n == 0 { return false }
      if errno == EINTR { continue }
      return errno == EAGAIN || errno == EWOULDBLOCK
    }
  }

  /// Reads what a pipe holds now, at most 1 MiB (a descendant may still be writing).
  private mutating func drain(_ fd: Int32, isOutput: Bool) {
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    var total = 0
    while total < 1 << 20 {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { return }
      total += n
      take(chunk[0..<n], isOutput: isOutput)
    }
  }

  private mutating func take(_ bytes: ArraySlice<UInt8>, isOutput: Bool) {
    guard isOutput else {
      errorOutput.append(contentsOf: bytes.prefix(max(0, limits.errorCap - errorOutput.count)))
      return
    }
    // Once stopped, what follows is read (so the helper is not blocked) and dropped.
    guard stop == nil && !wasCancelled else { return }
    var rest = bytes
    if let cap = limits.lineCap {
      while lines < cap, let newline = rest.firstIndex(of: 0x0A) {
        guard append(rest[...newline]) else { return }
        rest = rest[(newline + 1)...]
        lines += 1
      }
      if lines >= cap {
        requestStop(.lineCap)
        return
      }
    }
    _ = append(rest)
  }

  /// Appends within the output cap; false (and the helper stopped) when `bytes` did not fit.
  private mutating func append(_ bytes: ArraySlice<UInt8>) -> Bool {
    let room = limits.outputCap - output.count
    if bytes.count <= room {
      output.append(contentsOf: bytes)
      return true
    }
    output.append(contentsOf: bytes.prefix(room))
    requestStop(.outputCap)
    return false
  }

  /// A poll timeout: `d` rounded up to whole milliseconds, at least 0, at most a minute.
  static func milliseconds(_ d: Duration) -> Int32 {
    let (seconds, attoseconds) = d.components
    if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
    let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    return Int32(min(ms, 60_000))
  }
}
