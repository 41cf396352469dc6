import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// One session with a running extension: newline-delimited JSON-RPC 2.0 over its stdin and
/// stdout (docs/EXTENSIONS.md §2), requests multiplexed by integer id and answered in any order.
///
/// A reader thread splits stdout into lines and hands answers to the calls waiting for them; a
/// watchdog timer enforces each call's deadline (``ExtensionDeadlines``): `$/cancelRequest` when
/// it passes, and when the answer still does not come within the grace, the process group is
/// killed and the session ends as a crash. So does a line over 8 MiB, an answer to an id not in
/// flight, and stdout reaching EOF. When a session ends every call in flight fails at once with
/// a transient error naming why; nothing ever waits on the pipe without a deadline.
final class ExtensionConnection: @unchecked Sendable {
  static let maxLine = 8 << 20

  private final class Call {
    let id: Int
    let method: String
    let cls: CallClass
    let start: Date
    var lastProgress: Date?
    var cancelSentAt: Date?
    let continuation: CheckedContinuation<Result<JSONValue, ProviderError>, Never>
    let progress: (@Sendable (JSONValue) -> Void)?
    init(
      id: Int, method: String, cls: CallClass, continuation: CheckedContinuation<Result<JSONValue, ProviderError>, Never>,
      progress: (@Sendable (JSONValue) -> Void)?
    ) {
      self.id = id
      self.method = method
      self.cls = cls
      self.start = Date()
      self.continuation = continuation
      self.progress = progress
    }
  }

  let process: ExtensionProcess
  let log: ExtensionLog
  let deadlines: ExtensionDeadlines
  private let lock = NSLock()
  private var nextID = 1
  private var calls: [Int: Call] = [:]
  /// Ids cancelled before their call was registered.
  private var cancelledEarly: Set<Int> = []
  private var stopReason: String?
  private var timer: (any DispatchSourceTimer)?
  private var onNotification: @Sendable (String, JSONValue) -> Void
  private var onStop: @Sendable (String) -> Void
  /// Lines of stdout that were not JSON objects (for `folio ext test`, Info and the tests).
  private(set) var noiseLines = 0

  init(
    process: ExtensionProcess, log: ExtensionLog, deadlines: ExtensionDeadlines,
    onNotification: @escaping @Sendable (String, JSONValue) -> Void, onStop: @escaping @Sendable (String) -> Void
  ) {
    self.process = process
    self.log = log
    self.deadlines = deadlines
    self.onNotification = onNotification
    self.onStop = onStop
    log.follow(process.stderrSocket, name: "\(process.pid)")
    startReader()
    startWatchdog()
  }

  /// Why the session ended, or nil while it runs.
  var stoppedBecause: String? {
    lock.lock()
    defer { lock.unlock() }
    return stopReason
  }

  var inFlight: Int {
    lock.lock()
    defer { lock.unlock() }
    return calls.count
  }

  var noise: Int {
    lock.lock()
    defer { lock.unlock() }
    return noiseLines
  }

  // MARK: Calls

  /// Sends a request and waits for its answer, its deadline, or the session's end. Task
  /// cancellation sends `$/cancelRequest` and still waits (briefly) for the answer: only that
  /// answer says the extension has stopped writing to a staging file.
  func call(
    _ method: String, _ params: JSONValue, class cls: CallClass, progress: (@Sendable (JSONValue) -> Void)? = nil
  ) async -> Result<JSONValue, ProviderError> {
    let id = lock.withLock {
      defer { nextID += 1 }
      return nextID
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (c: CheckedContinuation<Result<JSONValue, ProviderError>, Never>) in
        lock.lock()
        if let reason = stopReason {
          lock.unlock()
          c.resume(returning: .failure(ExtensionErrors.stopped(reason)))
          return
        }
        let call = Call(id: id, method: method, cls: cls, continuation: c, progress: progress)
        calls[id] = call
        let early = cancelledEarly.remove(id) != nil
        if early { call.cancelSentAt = Date() }
        lock.unlock()
        let request: JSONValue = ["jsonrpc": "2.0", "id": .number(Double(id)), "method": .string(method), "params": params]
        if !send(request) {
          // Most often it is dying: the reader's EOF says how (a signal, a status) and fails
          // this call with the rest. Still running a moment later, it closed its stdin.
          DispatchQueue.global().asyncAfter(deadline: .now() + 1) { [weak self] in
            self?.stop(because: "it closed its stdin")
          }
          return
        }
        if early { sendCancel(id) }
      }
    } onCancel: {
      self.cancel(id)
    }
  }

  /// A notification to the extension.
  @discardableResult
  func notify(_ method: String, _ params: JSONValue) -> Bool {
    send(["jsonrpc": "2.0", "method": .string(method), "params": params])
  }

  private func send(_ message: JSONValue) -> Bool {
    var line = message.serialized
    line.append(0x0A)
    // One writer at a time: two lines must never interleave.
    writeLock.lock()
    defer { writeLock.unlock() }
    return process.write(line)
  }
  private let writeLock = NSLock()

  private func cancel(_ id: Int) {
    lock.lock()
    guard let call = calls[id] else {
      cancelledEarly.insert(id)
      lock.unlock()
      return
    }
    let first = call.cancelSentAt == nil
    if first { call.cancelSentAt = Date() }
    lock.unlock()
    if first { sendCancel(id) }
  }

  private func sendCancel(_ id: Int) {
    notify("$/cancelRequest", ["id": .number(Double(id))])
  }

  // MARK: Reading

  private func startReader() {
    let fd = process.socket
    let thread = Thread { [self] in
      var buffer = [UInt8](repeating: 0, count: 1 << 16)
      var pending: [UInt8] = []
      var scanFrom = 0
      reading: while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        pending += buffer[0..<n]
        var start = 0
        while let nl = pending[max(start, scanFrom)...].firstIndex(of: 0x0A) {
          var end = nl
          if end > start && pending[end - 1] == 0x0D { end -= 1 }
          if nl - start > Self.maxLine {
            violation("sent a line over 8 MiB")
            break reading
          }
          if !handle(pending[start..<end]) { break reading }
          start = nl + 1
        }
        pending.removeFirst(start)
        scanFrom = pending.count
        if pending.count > Self.maxLine {
          violation("sent a line over 8 MiB")
          break
        }
      }
      // EOF (or a violation already handled): how did the process end?
      if stoppedBecause == nil {
        var status = process.exitStatusNow()
        let until = Date() + 1
        while status == nil && Date() < until {
          usleep(10_000)
          status = process.exitStatusNow()
        }
        if let status {
          stop(because: ExtensionProcess.describe(status: status), kill: false)
        } else {
          stop(because: "it closed its stdout")
        }
      }
      Glibc.close(fd)
    }
    thread.name = "extension stdout: \(process.pid)"
    thread.start()
  }

  /// One line of stdout; false when it ended the session.
  private func handle(_ line: ArraySlice<UInt8>) -> Bool {
    if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return true }
    guard let message = JSONValue.parse(line), case .object(let o) = message else {
      lock.lock()
      noiseLines += 1
      lock.unlock()
      log.note("stdout noise (skipped): \(String(decoding: line.prefix(200), as: UTF8.self))")
      return true
    }
    if let method = o["method"]?.string {
      if o["id"] != nil && o["id"] != .null {
        log.note("the extension sent a request (\(method)); only the host sends requests: ignored")
        return true
      }
      notification(method, o["params"] ?? .null)
      return true
    }
    guard let id = o["id"]?.int else {
      log.note("a message without an id or a method (skipped)")
      return true
    }
    lock.lock()
    let call = calls.removeValue(forKey: id)
    lock.unlock()
    guard let call else {
      violation("answered id \(id), which is not in flight")
      return false
    }
    if let error = o["error"], case .object(let e) = error {
      let code = e["code"]?.int ?? 0
      call.continuation.resume(
        returning: .failure(ExtensionErrors.providerError(code: code, message: e["message"]?.string ?? "", data: e["data"])))
    } else {
      call.continuation.resume(returning: .success(o["result"] ?? .null))
    }
    return true
  }

  private func notification(_ method: String, _ params: JSONValue) {
    if method == "$/progress", let id = params["id"]?.int {
      lock.lock()
      let call = calls[id]
      call?.lastProgress = Date()
      lock.unlock()
      call?.progress?(params)
      return
    }
    onNotification(method, params)
  }

  // MARK: Deadlines and the end

  private func startWatchdog() {
    let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
    let tick = max(0.02, min(0.25, deadlines.cancelGrace / 4, deadlines.metadata / 4))
    timer.schedule(deadline: .now() + tick, repeating: tick)
    timer.setEventHandler { [weak self] in self?.checkDeadlines() }
    self.timer = timer
    timer.resume()
  }

  private func checkDeadlines() {
    let now = Date()
    var toCancel: [Int] = []
    var hung: Call?
    lock.lock()
    for call in calls.values {
      if let sent = call.cancelSentAt {
        if now >= sent + deadlines.cancelGrace { hung = call }
      } else if now >= deadlines.deadline(for: call.cls, start: call.start, lastProgress: call.lastProgress) {
        call.cancelSentAt = now
        toCancel.append(call.id)
      }
    }
    lock.unlock()
    for id in toCancel {
      log.note("request \(id) passed its deadline: cancelling it")
      sendCancel(id)
    }
    if let hung {
      let how = Int(now.timeIntervalSince(hung.start).rounded())
      stop(because: "it did not answer \(hung.method) for \(how) s (hung)")
    }
  }

  /// A breach of the protocol: the session ends as a crash.
  private func violation(_ what: String) {
    stop(because: "it broke the protocol: \(what)")
  }

  /// Ends the session: kills the group (unless it already exited), fails every call in flight.
  func stop(because reason: String, kill: Bool = true) {
    lock.lock()
    guard stopReason == nil else {
      lock.unlock()
      return
    }
    stopReason = reason
    let failed = Array(calls.values)
    calls.removeAll()
    timer?.cancel()
    timer = nil
    lock.unlock()
    if kill {
      process.signalGroup(SIGKILL)
      shutdown(process.socket, Int32(SHUT_RDWR))
    }
    let process = self.process
    Thread.detachNewThread { _ = process.waitForExit() }
    // Its last words first (stderr ends with the process; a child that keeps it open costs
    // half a second at most).
    log.waitForEnd(upTo: 0.5)
    log.note("stopped: \(reason)")
    // The supervisor first, so a caller that tries again at once meets the crash, not this
    // dead session.
    onStop(reason)
    for call in failed { call.continuation.resume(returning: .failure(ExtensionErrors.stopped(reason))) }
  }

  /// The orderly end: `shutdown`, EOF on stdin, 2 s, SIGTERM to the group, 2 s, SIGKILL.
  func close(grace: TimeInterval = 2) async {
    if stoppedBecause == nil {
      _ = await call("shutdown", [:], class: .setup)
    }
    process.closeInput()
    let process = self.process
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
      Thread.detachNewThread {
        func waitUntil(_ deadline: Date) -> Bool {
          while Date() < deadline {
            if process.exitStatusNow() != nil { return true }
            usleep(20_000)
          }
          return process.exitStatusNow() != nil
        }
        if !waitUntil(Date() + grace) {
          process.signalGroup(SIGTERM)
          if !waitUntil(Date() + grace) { process.signalGroup(SIGKILL) }
        }
        c.resume()
      }
    }
    stop(because: "it was shut down", kill: false)
  }
}
