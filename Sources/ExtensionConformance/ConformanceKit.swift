import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// `folio ext test`: runs an extension through the checks of docs/EXTENSIONS.md §6, as
/// `git annex testremote` runs a special remote, and reports one line per check.
///
/// The kit owns a scratch directory (the extension's `stateDir` and `stagingDir`), creates its
/// own data in a scratch folder of the location when the extension can write, and removes that
/// folder at the end. Only declared capabilities are exercised: a check that needs an undeclared
/// one is reported `skip` with the reason, never failed. Every wait has a deadline.
public final class ConformanceKit: @unchecked Sendable {
  public enum Outcome: Sendable, Equatable {
    case ok
    case fail(String)
    case skip(String)
  }

  public struct CheckResult: Sendable {
    public var group: String
    public var name: String
    public var outcome: Outcome
    public var transcript: [String]

    public var isFailure: Bool {
      if case .fail = outcome { return true }
      return false
    }
  }

  let options: ConformanceOptions
  let transcript: Transcript
  private let emit: @Sendable (String) -> Void
  public private(set) var results: [CheckResult] = []

  let workDir: String
  let stateDir: String
  let stagingDir: String
  /// The session most checks share, opened by the first check that needs one.
  private var shared: ExtensionSession?
  /// The session started last: whose stderr a failure shows.
  private var latest: ExtensionSession?
  /// How the shared session ended when nobody asked it to (a crash the kit saw).
  private(set) var unexpectedExits: [String] = []
  private(set) var sessions: [ExtensionSession] = []
  var caps = DeclaredCapabilities()
  var initializeResult: JSONValue?
  var describeResult: JSONValue?
  /// The scratch folder's id, once made.
  var scratchID: String?
  private var stagedCount = 0
  private var group = ""

  /// - Parameter output: receives each report line (and trace line) as it is made.
  public init(options: ConformanceOptions, output: @escaping @Sendable (String) -> Void) throws {
    self.options = options
    self.emit = output
    var trace: (@Sendable (String) -> Void)?
    if options.trace { trace = { @Sendable line in output("   " + line) } }
    self.transcript = Transcript(trace: trace)
    var temporary = NSTemporaryDirectory()
    while temporary.hasSuffix("/") && temporary.count > 1 { temporary.removeLast() }
    var template = Array((temporary + "/folio-ext-test-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { throw KitError("cannot make a scratch directory") }
    workDir = String(cString: made)
    stateDir = workDir + "/state"
    stagingDir = workDir + "/staging"
    for dir in [stateDir, stagingDir] {
      try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }
  }

  /// Runs the selected groups. - Returns: the results, also printed as they came.
  @discardableResult
  public func run() -> [CheckResult] {
    // A write to a dead extension's stdin must be an error value, not the kit's death.
    signal(SIGPIPE, SIG_IGN)
    for name in ConformanceOptions.groups where options.only.isEmpty || options.only.contains(name) {
      group = name
      switch name {
      case "handshake": runHandshake()
      case "purity": runPurity()
      case "items": runItems()
      case "paging": runPaging()
      case "changes": runChanges()
      case "content": runContent()
      case "writes": runWrites()
      case "names": runNames()
      case "unavailable": runUnavailable()
      case "concurrency": runConcurrency()
      case "capabilities": runCapabilities()
      default: break
      }
    }
    cleanUp()
    let failed = results.filter(\.isFailure).count
    let skipped = results.filter { if case .skip = $0.outcome { return true } else { return false } }.count
    emit("\(results.count - failed - skipped) ok, \(failed) failed, \(skipped) skipped")
    return results
  }

  // MARK: Checks

  /// Runs one check and reports it. The body throws ``CheckFailure`` or ``CheckSkip``.
  func check(_ name: String, _ body: () throws -> Void) {
    transcript.reset()
    let outcome: Outcome
    do {
      try body()
      outcome = .ok
    } catch let skip as CheckSkip {
      outcome = .skip(skip.reason)
    } catch let failure as CheckFailure {
      outcome = .fail(failure.reason)
    } catch {
      outcome = .fail("\(error)")
    }
    let result = CheckResult(group: group, name: name, outcome: outcome, transcript: transcript.text)
    results.append(result)
    switch outcome {
    case .ok: emit("ok   \(group)/\(name)")
    case .skip(let why): emit("skip \(group)/\(name): \(TerminalText.escape(why))")
    case .fail(let why):
      emit("FAIL \(group)/\(name): \(TerminalText.escape(why))")
      for line in result.transcript { emit("     " + line) }
      if let log = latest?.process.logTail, !log.isEmpty {
        emit("     stderr (last lines):")
        for line in log.split(separator: "\n").suffix(8) { emit("       " + TerminalText.escape(String(line))) }
      }
    }
  }

  /// Reports a check as skipped without running it.
  func skip(_ name: String, _ reason: String) {
    check(name) { throw CheckSkip(reason) }
  }

  // MARK: Sessions

  /// Starts the extension (not initialized).
  func start() throws -> ExtensionSession {
    let process: ExtensionProcess
    do {
      process = try ExtensionProcess(argv: Self.resolved(options.command), directory: stateDir)
    } catch let error as KitError {
      throw CheckFailure(error.description)
    }
    let session = ExtensionSession(process: process, transcript: transcript, deadlineScale: options.deadlineScale)
    sessions.append(session)
    latest = session
    return session
  }

  func initializeParams(config: [String: String]) -> JSONValue {
    [
      "protocol": 1, "host": ["name": "folio", "version": "ext-test"], "domain": ["id": "kit", "name": "Conformance kit"],
      "config": .object(config.mapValues { .string($0) }), "stagingDir": .string(stagingDir), "stateDir": .string(stateDir),
    ]
  }

  /// The command with relative paths made absolute: the extension runs in its `stateDir`, as under
  /// the host, but the author typed `./my-extension` or `python3 ext.py` from where they are. An
  /// argument is a path when argv[0] has a slash, or when a file of that name exists here.
  static func resolved(_ argv: [String]) -> [String] {
    let here = FileManager.default.currentDirectoryPath
    return argv.enumerated().map { index, arg in
      guard !arg.hasPrefix("/"), !arg.hasPrefix("-"), !arg.isEmpty else { return arg }
      let absolute = here + "/" + arg
      if (index == 0 && arg.contains("/")) || (index > 0 && FileManager.default.fileExists(atPath: absolute)) {
        return absolute
      }
      return arg
    }
  }

  /// Starts and initializes the extension. - Returns: the session, its capabilities read.
  func open(config: [String: String]? = nil) throws -> ExtensionSession {
    let session = try start()
    let reply = session.call("initialize", initializeParams(config: config ?? options.config), timeout: 10)
    let result = try expectResult(reply, "initialize")
    if config == nil {
      initializeResult = result
      caps = DeclaredCapabilities(result["capabilities"])
    }
    return session
  }

  /// Keeps the first `initialize` answer's capabilities (a group run alone learns them from its own).
  func learn(_ result: JSONValue) {
    guard initializeResult == nil else { return }
    initializeResult = result
    caps = DeclaredCapabilities(result["capabilities"])
  }

  /// The shared session, opened on first use (describe first, for the settings marked secret).
  func session() throws -> ExtensionSession {
    if let shared {
      guard let status = shared.process.exit else { return shared }
      let how = ExtensionProcess.describe(status: status)
      unexpectedExits.append(how)
      transcript.record("!!", "the extension stopped (\(how)); starting it again")
      self.shared = nil
    }
    let s = try start()
    if describeResult == nil, let d = s.call("describe", [:], timeout: 10).result {
      describeResult = d
      for setting in d["settings"]?.array ?? [] where setting["secret"]?.bool == true {
        if let name = setting["name"]?.string, let value = options.config[name] { transcript.addSecret(value) }
      }
    }
    let result = try expectResult(s.call("initialize", initializeParams(config: options.config), timeout: 10), "initialize")
    initializeResult = result
    caps = DeclaredCapabilities(result["capabilities"])
    shared = s
    return s
  }

  /// Replaces the shared session with a fresh process, initialized and asked nothing else yet.
  func freshSession() throws -> ExtensionSession {
    closeShared()
    return try session()
  }

  /// Forgets the shared session after the kit itself killed it (not a crash).
  func forgetShared() {
    shared = nil
  }

  /// Ends the shared session (the next check opens a fresh one).
  func closeShared() {
    shared?.shutdown()
    shared = nil
  }

  private func cleanUp() {
    if let scratchID, caps.delete, let s = try? session() {
      transcript.reset()
      _ = s.call("deleteItem", ["id": .string(scratchID), "recursive": true], timeout: 60)
    }
    for s in sessions where s.process.exit == nil { s.shutdown() }
    try? FileManager.default.removeItem(atPath: workDir)
  }

  // MARK: Staging

  /// Writes `bytes` to a new read-only staging file, as the host stages an upload.
  func stage(_ bytes: [UInt8]) throws -> String {
    stagedCount += 1
    let path = stagingDir + "/up-\(stagedCount)"
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: 0o400]) else {
      throw KitError("cannot write \(path)")
    }
    return path
  }

  /// Creates an empty 0600 file for a download, as the host does.
  func downloadDestination() throws -> String {
    stagedCount += 1
    let path = stagingDir + "/dl-\(stagedCount)"
    guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
      throw KitError("cannot write \(path)")
    }
    return path
  }

  func contents(of path: String) -> [UInt8] {
    (FileManager.default.contents(atPath: path)).map { Array($0) } ?? []
  }

  func fileSize(_ path: String) -> Int {
    var st = stat()
    return stat(path, &st) == 0 ? Int(st.st_size) : -1
  }

  /// Deterministic pseudo-random bytes (a different stream per seed), so content checks do not
  /// pass by accident on zeros.
  func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: count)
    var x = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    out.withUnsafeMutableBytes { raw in
      let words = count / 8
      for i in 0..<words {
        x ^= x << 13
        x ^= x >> 7
        x ^= x << 17
        raw.storeBytes(of: x, toByteOffset: i * 8, as: UInt64.self)
      }
      for i in (words * 8)..<count {
        x ^= x << 13
        x ^= x >> 7
        x ^= x << 17
        raw[i] = UInt8(truncatingIfNeeded: x)
      }
    }
    return out
  }
}

/// A check's failure, with what to tell the author.
struct CheckFailure: Error {
  var reason: String
  init(_ reason: String) { self.reason = reason }
}

/// A check that does not apply (a capability not declared, data not prepared).
struct CheckSkip: Error {
  var reason: String
  init(_ reason: String) { self.reason = reason }
}
