import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What came back for one request.
public enum Reply: Sendable {
  case result(JSONValue)
  case error(code: Int, message: String, data: JSONValue?)
  /// No answer: the deadline passed, or stdout closed first (the reason says which).
  case none(String)

  var result: JSONValue? {
    if case .result(let v) = self { return v }
    return nil
  }

  var errorCode: Int? {
    if case .error(let code, _, _) = self { return code }
    return nil
  }

  var summary: String {
    switch self {
    case .result(let v): return "result " + String(v.compact.prefix(300))
    case .error(let code, let message, _): return "error \(code) (\(message))"
    case .none(let why): return why
    }
  }
}

/// JSON-RPC over one ``ExtensionProcess``: numbered requests, answers matched by id, `$/progress`
/// kept per request, and every line that is not a JSON-RPC object counted as stdout noise.
///
/// Used from one thread at a time (the kit runs its checks in order); several requests may be in
/// flight at once, which is how the concurrency checks are made.
public final class ExtensionSession: @unchecked Sendable {
  public let process: ExtensionProcess
  let transcript: Transcript
  private var nextID = 1
  private var consumed = 0
  private var answers: [Int: Reply] = [:]
  private(set) var progress: [Int: [JSONValue]] = [:]
  /// Lines that were not JSON-RPC objects, and lines over 8 MiB.
  private(set) var noise: [String] = []
  /// Lines printed before the first answer arrived (the protocol says nothing may come first).
  private(set) var beforeFirstAnswer: [String] = []
  private var sawAnswer = false
  /// Answers whose id the kit never sent.
  private(set) var strayAnswers: [String] = []
  let started = Date()

  /// Multiplies every answer deadline (``ConformanceOptions/deadlineScale``).
  let deadlineScale: Double

  init(process: ExtensionProcess, transcript: Transcript, deadlineScale: Double = 1) {
    self.process = process
    self.transcript = transcript
    self.deadlineScale = deadlineScale
  }

  // MARK: Sending

  /// Sends a request. - Returns: its id.
  @discardableResult
  func send(_ method: String, _ params: JSONValue = [:]) -> Int {
    let id = nextID
    nextID += 1
    sendLine(JSONValue.object(["jsonrpc": "2.0", "id": .number(Double(id)), "method": .string(method), "params": params]).compact)
    return id
  }

  func notify(_ method: String, _ params: JSONValue) {
    sendLine(JSONValue.object(["jsonrpc": "2.0", "method": .string(method), "params": params]).compact)
  }

  /// Sends a line as it is (the kit's malformed lines).
  func sendLine(_ text: String) {
    transcript.record("->", text)
    if !process.send(Array(text.utf8)) { transcript.record("!!", "stdin is closed") }
  }

  /// Sends a request and waits for its answer.
  ///
  /// The handshake (`describe`, `initialize`) keeps the protocol's deadline whatever
  /// ``deadlineScale`` says: it waits for a program to start, which a loaded machine slows, and the
  /// scale is there to test the deadlines of calls. Scaled too, a kit test failed checks that had
  /// nothing to do with deadlines when CPU burners ran beside the suite.
  func call(_ method: String, _ params: JSONValue = [:], timeout: TimeInterval = 30) -> Reply {
    let handshake = method == "describe" || method == "initialize"
    return wait(send(method, params), timeout: handshake && deadlineScale > 0 ? timeout / deadlineScale : timeout)
  }

  // MARK: Receiving

  /// Waits for the answer to `id`. With `progressExtends`, each `$/progress` for it moves the
  /// deadline (a transfer is a stall after `timeout` without progress), never past 10 minutes.
  func wait(_ id: Int, timeout unscaled: TimeInterval, progressExtends: Bool = false) -> Reply {
    let timeout = unscaled * deadlineScale
    let start = Date()
    var deadline = start.addingTimeInterval(timeout)
    var seenProgress = 0
    while true {
      pump()
      if let answer = answers.removeValue(forKey: id) { return answer }
      if progressExtends, let p = progress[id], p.count > seenProgress {
        seenProgress = p.count
        deadline = min(Date().addingTimeInterval(timeout), start.addingTimeInterval(600))
      }
      if process.isStdoutClosed && consumed >= process.lineCount {
        let how = process.waitForExit(until: Date().addingTimeInterval(1)).map(ExtensionProcess.describe) ?? "still running"
        transcript.record("!!", "stdout closed before the answer to \(id) (\(how))")
        for line in process.logTail.split(separator: "\n").suffix(6) { transcript.record("!!", "stderr: " + line) }
        return .none("stdout closed before the answer (\(how))")
      }
      if Date() >= deadline {
        let seconds = String(format: "%g", timeout)
        transcript.record("!!", "no answer to \(id) within \(seconds) s")
        return .none("no answer within \(seconds) s")
      }
      _ = process.waitForLine(after: consumed, until: min(deadline, Date().addingTimeInterval(0.2)))
    }
  }

  /// Whether the answer to `id` has arrived (it stays there for ``wait``).
  func hasAnswer(_ id: Int) -> Bool {
    pump()
    return answers[id] != nil
  }

  /// Reads every line received so far.
  func pump() {
    let fresh = process.lines(from: consumed)
    consumed += fresh.count
    for line in fresh { take(line) }
  }

  /// Reads lines for `seconds` (to catch what an extension prints when it should say nothing).
  func drain(for seconds: TimeInterval) {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
      _ = process.waitForLine(after: consumed, until: end)
      pump()
      if process.isStdoutClosed { break }
    }
  }

  private func take(_ line: ExtensionProcess.Line) {
    let text = String(decoding: line.bytes, as: UTF8.self)
    transcript.record("<-", text)
    if line.overlong {
      noise.append("a line over 8 MiB")
      return
    }
    guard let message = JSONValue.parse(line.bytes), message.object != nil, message["jsonrpc"] == "2.0" else {
      noise.append(text)
      if !sawAnswer { beforeFirstAnswer.append(text) }
      return
    }
    if let method = message["method"]?.string {
      if message["id"] != nil && message["id"] != .null {
        noise.append("a request from the extension (\(method)): only the host sends requests")
      } else if method == "$/progress", let id = message["params"]?["id"]?.int {
        progress[id, default: []].append(message["params"]!)
      }
      return
    }
    guard let idValue = message["id"] else {
      noise.append(text)
      return
    }
    sawAnswer = true
    guard let id = idValue.int else {
      // An answer with a null id: a parse error or invalid request the extension reports.
      answers[-1] = Self.reply(message)
      return
    }
    if id >= nextID || id < 1 { strayAnswers.append(text) }
    answers[id] = Self.reply(message)
  }

  private static func reply(_ message: JSONValue) -> Reply {
    if let error = message["error"] {
      return .error(code: error["code"]?.int ?? 0, message: error["message"]?.string ?? "", data: error["data"])
    }
    if let result = message["result"] { return .result(result) }
    return .none("an answer with neither result nor error")
  }

  /// The answer with a null id, if one came (a `-32700` to a malformed line).
  func takeNullIDAnswer() -> Reply? {
    pump()
    return answers.removeValue(forKey: -1)
  }

  /// Ends the session as the host does: `shutdown`, close stdin, wait 2 s, SIGTERM, 2 s, SIGKILL.
  /// - Returns: the wait status, and whether the extension exited on its own after EOF.
  @discardableResult
  func shutdown(sendShutdown: Bool = true) -> (status: Int32?, graceful: Bool) {
    if sendShutdown, process.exit == nil { _ = call("shutdown", [:], timeout: 5) }
    process.closeInput()
    if let status = process.waitForExit(until: Date().addingTimeInterval(2)) {
      pump()
      return (status, true)
    }
    process.signal(SIGTERM)
    if let status = process.waitForExit(until: Date().addingTimeInterval(2)) { return (status, false) }
    process.terminate()
    return (process.exit, false)
  }
}
