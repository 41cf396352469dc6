import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Starts a location's extension when a call needs it, restarts it after a crash, and stops
/// restarting when it keeps crashing: crash isolation (docs/EXTENSIONS.md §5).
///
/// - A crash fails the calls in flight (``ExtensionConnection``) and makes the location offline
///   with the reason; the next call after the backoff (Folio's RetryPolicy: 1 s doubling to
///   5 min, with jitter) starts it again, and calls before that fail at once with the reason.
/// - After ``ExtensionLaunch/breakerCrashes`` crashes within ``ExtensionLaunch/breakerWindow``
///   the breaker trips: every call fails at once until ``retry()`` (Reload in the browser,
///   `folio sync`, `folio domain check`).
/// - An extension that cannot start (not found, not executable, exits or fails before answering
///   `initialize`, a protocol the host does not speak) is a permanent `badConfig` with the
///   reason, not a restart loop; ``retry()`` clears it too.
final class ExtensionSupervisor: @unchecked Sendable {
  /// A running extension and what it declared.
  struct Session: Sendable {
    let connection: ExtensionConnection
    let capabilities: ExtensionCapabilities
    let initializeResult: JSONValue
    let metadata: AsyncLimiter
    let downloads: AsyncLimiter
    let uploads: AsyncLimiter
  }

  /// What the location is, for Info and `folio domain list`.
  enum Status: Sendable, Equatable {
    case notStarted
    case starting
    case running(pid: Int32)
    /// Crashed; restarts at the next call after `restartAt`.
    case crashed(reason: String, restartAt: Date)
    /// The breaker tripped.
    case stopped(reason: String)
    /// It cannot start.
    case failed(ProviderError)
  }

  private enum State {
    case idle
    case starting(Task<Result<Session, ProviderError>, Never>)
    case running(Session)
    /// Crashed (code serverUnreachable), or refused to start for a passing reason (its code).
    case waiting(reason: String, until: Date, code: ProviderError.Code = .serverUnreachable)
    case broken(reason: String)
    case failed(ProviderError)
  }

  let launch: ExtensionLaunch
  let log: ExtensionLog
  private let lock = NSLock()
  private var state: State = .idle
  private var crashTimes: [Date] = []
  private var consecutiveCrashes = 0
  /// The pending wait is an `initialize` refused for a passing reason, not a crash.
  private var isStartRefusal = false
  /// Called with each notification of the running session (`$/signal`).
  var onNotification: @Sendable (String, JSONValue) -> Void = { _, _ in }
  /// Called once a session has started (capabilities may have changed).
  var onStart: @Sendable (Session) -> Void = { _ in }
  /// Sessions started so far (the tests count restarts).
  private(set) var starts = 0

  init(launch: ExtensionLaunch) {
    self.launch = launch
    self.log = ExtensionLog(file: launch.logFile)
  }

  var status: Status {
    lock.lock()
    defer { lock.unlock() }
    switch state {
    case .idle: return .notStarted
    case .starting: return .starting
    case .running(let s): return .running(pid: s.connection.process.pid)
    case .waiting(let r, let until, _): return .crashed(reason: r, restartAt: until)
    case .broken(let r): return .stopped(reason: r)
    case .failed(let e): return .failed(e)
    }
  }

  var startCount: Int {
    lock.lock()
    defer { lock.unlock() }
    return starts
  }

  /// The running session, started (or restarted) if the backoff allows.
  func session() async throws(ProviderError) -> Session {
    switch nextStep() {
    case .ready(let s): return s
    case .fail(let e): throw e
    case .wait(let task): return try await task.value.get()
    }
  }

  private enum Step {
    case ready(Session)
    case wait(Task<Result<Session, ProviderError>, Never>)
    case fail(ProviderError)
  }

  private func nextStep() -> Step {
    lock.lock()
    defer { lock.unlock() }
    switch state {
    case .running(let s): return .ready(s)
    case .starting(let t): return .wait(t)
    case .broken(let reason): return .fail(ProviderError(.serverUnreachable, reason))
    case .failed(let e): return .fail(e)
    case .waiting(let reason, let until, let code) where Date() < until:
      let seconds = max(1, Int(until.timeIntervalSinceNow.rounded(.up)))
      if isStartRefusal {
        return .fail(ProviderError(code, "\(reason) (asked again in \(seconds) s)"))
      }
      return .fail(ExtensionErrors.stopped("\(reason); it starts again in \(seconds) s"))
    case .idle, .waiting:
      starts += 1
      let t = Task { await self.start() }
      state = .starting(t)
      return .wait(t)
    }
  }

  /// Clears the breaker, a start failure or a pending backoff: the next call starts the
  /// extension at once. A running extension is left alone.
  func retry() {
    lock.lock()
    defer { lock.unlock() }
    switch state {
    case .broken, .failed, .waiting:
      state = .idle
      crashTimes.removeAll()
      consecutiveCrashes = 0
    default: break
    }
  }

  /// Stops the running extension in order (shutdown, EOF, SIGTERM, SIGKILL).
  func shutdown() async {
    let current: Session? = lock.withLock {
      defer { state = .idle }
      if case .running(let s) = state { return s }
      return nil
    }
    await current?.connection.close()
  }

  /// Kills the running extension as a hang would (tests, `folio-bench`).
  func kill(because reason: String) {
    lock.lock()
    let current: Session?
    if case .running(let s) = state { current = s } else { current = nil }
    lock.unlock()
    current?.connection.stop(because: reason)
  }

  // MARK: Starting

  private func start() async -> Result<Session, ProviderError> {
    let result = await startOnce()
    return settle(result)
  }

  private func settle(_ result: Result<Session, ProviderError>) -> Result<Session, ProviderError> {
    switch result {
    case .success(let s):
      // A crash while `initialize` was being answered is handled by `crashed`, which found no
      // running session: checked here.
      if let reason = s.connection.stoppedBecause {
        return .failure(failStart("it stopped while starting: \(reason)"))
      }
      lock.withLock { state = .running(s) }
      onStart(s)
    case .failure(let e) where e.underlying == Self.transientStart:
      let error = ProviderError(e.code, e.message)
      lock.withLock {
        consecutiveCrashes += 1
        isStartRefusal = true
        state = .waiting(reason: e.message, until: Date() + launch.backoff(consecutiveCrashes), code: e.code)
      }
      log.note("started, but: \(e.message)")
      return .failure(error)
    case .failure(let e):
      lock.withLock { state = .failed(e) }
      log.note("could not start: \(e.message)")
    }
    return result
  }

  /// Marks an `initialize` refused for a reason that passes (unreachable, signed out).
  private static let transientStart: Int32 = -424242

  private func failStart(_ why: String) -> ProviderError {
    let e = ProviderError(.badConfig, "the extension of \(launch.displayName) cannot start: \(why)\(tailNote)")
    lock.lock()
    state = .failed(e)
    lock.unlock()
    return e
  }

  /// "; its last words: …" from the log's last line the extension wrote, when there is one.
  private var tailNote: String {
    guard let last = log.lastLines.last(where: { !$0.hasPrefix("folio: ") }) else { return "" }
    return "; it said: " + TerminalText.escapeMessage(String(last.prefix(300)))
  }

  private func startOnce() async -> Result<Session, ProviderError> {
    do throws(ProviderError) {
      guard let argv0 = launch.command.first else { throw ProviderError(.badConfig, "the extension's command is empty") }
      let executable = try ExtensionCommand.resolve(argv0, directories: launch.searchDirectories)
      try Self.prepare(launch.stateDirectory, emptying: false)
      try Self.prepare(launch.stagingDirectory, emptying: false)
      Self.removeOrphans(in: launch.stagingDirectory)
      try Self.prepare(launch.processStagingDirectory, emptying: true)
      log.note("starting \(launch.command.joined(separator: " "))")
      let process = try ExtensionProcess.start(
        executable: executable, argv: launch.command, directory: launch.stateDirectory.path,
        environment: ["FOLIO_EXTENSION": "1"])
      let connection = ExtensionConnection(
        process: process, log: log, deadlines: launch.deadlines,
        onNotification: { [weak self] m, p in self?.onNotification(m, p) },
        onStop: { [weak self] reason in self?.crashed(pid: process.pid, reason: reason) })
      let params: JSONValue = [
        "protocol": 1, "host": ["name": "folio", "version": .string(launch.hostVersion)],
        "domain": ["id": .string(launch.domain.rawValue), "name": .string(launch.displayName)],
        "config": .object(launch.config.mapValues { .string($0) }),
        "stagingDir": .string(launch.processStagingDirectory.path), "stateDir": .string(launch.stateDirectory.path),
      ]
      let answer: JSONValue
      switch await connection.call("initialize", params, class: .setup) {
      case .success(let a): answer = a
      case .failure(let e):
        connection.stop(because: "initialize failed")
        if let reason = connection.stoppedBecause, e.message.hasPrefix("extension stopped") {
          throw failStart(reason)
        }
        // Its storage unreachable or its sign-in refused: the location is offline or asks to
        // sign in, and the next call after the backoff tries again (docs/EXTENSIONS.md §6,
        // "Unavailable": initialize may answer -1004 or -1000).
        if e.code == .serverUnreachable || e.code == .notAuthenticated {
          throw ProviderError(e.code, e.message, underlying: Self.transientStart)
        }
        throw failStart("initialize: \(e.message)")
      }
      let major = answer["protocol"]?.int ?? 1
      guard major == 1 else {
        connection.stop(because: "it speaks protocol \(major)")
        throw failStart("it speaks FEP/\(major); this folio speaks FEP/1")
      }
      if let requires = answer["requires"]?.array, !requires.isEmpty {
        let names = requires.compactMap(\.string).map(TerminalText.escape).joined(separator: ", ")
        connection.stop(because: "it requires \(names)")
        throw failStart("it requires \(names), which this folio does not have")
      }
      let caps = ExtensionCapabilities(answer["capabilities"])
      Self.saveCapabilities(answer, beside: launch.logFile)
      log.note("started (pid \(process.pid))")
      return .success(
        Session(
          connection: connection, capabilities: caps, initializeResult: answer,
          metadata: AsyncLimiter(limit: caps.metadataConcurrency), downloads: AsyncLimiter(limit: caps.downloadConcurrency),
          uploads: AsyncLimiter(limit: caps.uploadConcurrency)))
    } catch {
      return .failure(error)
    }
  }

  /// A crash of the session whose process is `pid`.
  private func crashed(pid: Int32, reason: String) {
    lock.lock()
    guard case .running(let s) = state, s.connection.process.pid == pid else {
      lock.unlock()
      return
    }
    let now = Date()
    crashTimes.append(now)
    crashTimes.removeAll { now.timeIntervalSince($0) > launch.breakerWindow }
    consecutiveCrashes += 1
    if reason == "it was shut down" {
      state = .idle
    } else if crashTimes.count >= launch.breakerCrashes {
      let minutes = Int((launch.breakerWindow / 60).rounded())
      state = .broken(
        reason:
          "the extension crashed \(crashTimes.count) times in \(minutes) minute\(minutes == 1 ? "" : "s") (last: \(reason)); see the log \(launch.logFile.path); Retry to start it again"
      )
    } else {
      isStartRefusal = false
      state = .waiting(reason: reason, until: now + launch.backoff(consecutiveCrashes))
    }
    lock.unlock()
  }

  /// A call answered: the crashes before it were not consecutive any more.
  func succeeded() {
    lock.lock()
    consecutiveCrashes = 0
    lock.unlock()
  }

  /// The staging folders of processes that are gone (a crash of folio, a kill): removed, so
  /// nothing they left fills the cache's disk.
  static func removeOrphans(in dir: URL) {
    for name in (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? [] {
      guard let pid = Int32(name), pid != getpid() else { continue }
      if Glibc.kill(pid, 0) == -1 && errno == ESRCH { try? FileManager.default.removeItem(at: dir.appendingPathComponent(name)) }
    }
  }

  static func prepare(_ dir: URL, emptying: Bool) throws(ProviderError) {
    let fm = FileManager.default
    do {
      if emptying, fm.fileExists(atPath: dir.path) { try fm.removeItem(at: dir) }
      try fm.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: dir.path)
    } catch {
      throw ProviderError(.ioError, "cannot prepare \(TerminalText.escape(dir.path)): \(error.localizedDescription)")
    }
  }

  // MARK: describe

  /// Runs the extension once, apart from the supervised one, for its `describe` answer (what
  /// `folio domain add --extension` checks the settings against), then shuts it down.
  static func describe(_ launch: ExtensionLaunch) async throws(ProviderError) -> JSONValue {
    guard let argv0 = launch.command.first else { throw ProviderError(.badConfig, "the extension's command is empty") }
    let executable = try ExtensionCommand.resolve(argv0, directories: launch.searchDirectories)
    try prepare(launch.stateDirectory, emptying: false)
    let log = ExtensionLog(file: launch.logFile)
    let process = try ExtensionProcess.start(
      executable: executable, argv: launch.command, directory: launch.stateDirectory.path, environment: ["FOLIO_EXTENSION": "1"])
    let connection = ExtensionConnection(
      process: process, log: log, deadlines: launch.deadlines, onNotification: { _, _ in }, onStop: { _ in })
    let result = await connection.call("describe", [:], class: .setup)
    await connection.close(grace: 1)
    switch result {
    case .success(let v): return v
    case .failure(let e):
      throw ProviderError(
        e.code == .featureUnsupported ? .featureUnsupported : .badConfig,
        "\(TerminalText.escape(argv0)) did not describe itself: \(e.message)")
    }
  }

  // MARK: The capabilities of the last start

  /// `<domain>.capabilities.json` beside the log (not in the extension's own state folder).
  static func capabilitiesFile(beside logFile: URL) -> URL {
    logFile.deletingPathExtension().appendingPathExtension("capabilities.json")
  }

  /// The last `initialize` answer is kept, so the traits (and actions, decorations) are right before the extension
  /// starts (the core reads them when it builds the location; starting then would block).
  static func saveCapabilities(_ json: JSONValue, beside logFile: URL) {
    try? Data(json.serialized).write(to: capabilitiesFile(beside: logFile), options: .atomic)
  }

  static func savedCapabilities(beside logFile: URL) -> JSONValue? {
    guard let data = try? Data(contentsOf: capabilitiesFile(beside: logFile)) else { return nil }
    return JSONValue.parse(Array(data))
  }
}
