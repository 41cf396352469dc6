import Foundation

/// One running extension and the host's side of its FEP/1 session: requests written to its stdin,
/// every line of its stdout read by a thread of its own and kept, its stderr in a file.
///
/// Started with `posix_spawnp` from close-on-exec pipes: a program another test starts at the same
/// moment must not inherit the write end of this one's stdin, or the extension would never see
/// the EOF the tests close it with. Every wait has a deadline; none is a sleep.
final class ExtensionProcess: @unchecked Sendable {
  struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }

  let pid: pid_t
  let stderrPath: String
  private var input: Int32
  /// What the reader thread has read; the thread holds this, not the process, so that the
  /// process object can go (and kill the extension) when the test is done with it.
  private let output = Output()
  private var exitStatus: Int32?
  private var nextID = 0

  /// The repository (Extensions/ is read from it).
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

  /// Starts `argv` (argv[0] looked up on PATH) in `directory`, stderr into `stderrPath`.
  init(_ argv: [String], directory: String, stderrPath: String) throws {
    _ = Self.ignoreSIGPIPE
    self.stderrPath = stderrPath
    var toChild: [Int32] = [-1, -1]
    var fromChild: [Int32] = [-1, -1]
    guard let pipe2 = Self.pipe2, pipe2(&toChild, O_CLOEXEC) == 0 else { throw Failure("pipe2 failed") }
    guard pipe2(&fromChild, O_CLOEXEC) == 0 else { throw Failure("pipe2 failed") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
    posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
    posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    if let addChdir = Self.addChdir { _ = directory.withCString { addChdir(&actions, $0) } }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGPIPE)
    sigaddset(&defaults, SIGTERM)
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setsigmask(&attributes, &mask)
    posix_spawnattr_setpgroup(&attributes, 0)  // its own group, as the host starts it
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
    var environment = ProcessInfo.processInfo.environment
    environment["FOLIO_EXTENSION"] = "1"
    let cArgv = argv.map { strdup($0) } + [nil]
    let cEnv = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
      for p in cArgv { free(p) }
      for p in cEnv { free(p) }
    }
    var pid: pid_t = 0
    let spawned = posix_spawnp(&pid, argv[0], &actions, &attributes, cArgv, cEnv)
    close(toChild[0])
    close(fromChild[1])
    guard spawned == 0 else {
      close(toChild[1])
      close(fromChild[0])
      throw Failure("cannot start \(argv): \(String(cString: strerror(spawned)))")
    }
    self.pid = pid
    self.input = toChild[1]
    let fd = fromChild[0]
    let output = self.output
    let reader = Thread { output.read(fd) }
    reader.name = "extension stdout \(pid)"
    reader.start()
  }

  deinit {
    if exitStatus == nil {
      Foundation.kill(pid, SIGKILL)
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
    if input >= 0 { close(input) }
  }

  // MARK: Writing

  /// Writes one line (a message, or anything a test wants to try on the extension).
  func sendLine(_ text: String) throws {
    var bytes = Array((text + "\n").utf8)
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeMutableBytes { write(input, $0.baseAddress! + done, $0.count - done) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw Failure("cannot write to the extension: \(String(cString: strerror(errno)))") }
      done += n
    }
  }

  /// Sends a request and returns its id.
  @discardableResult func request(_ method: String, _ params: JSON = [:]) throws -> Int {
    nextID += 1  // one test thread drives a session
    let id = nextID
    try sendLine(JSON.object(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]).text)
    return id
  }

  /// Sends a notification (no id).
  func notify(_ method: String, _ params: JSON) throws {
    try sendLine(JSON.object(["jsonrpc": "2.0", "method": .string(method), "params": params]).text)
  }

  /// Sends a request and waits for its answer (the whole message: `result` or `error`).
  func call(_ method: String, _ params: JSON = [:], timeout: Double = 120) throws -> JSON {
    try answer(to: try request(method, params), timeout: timeout)
  }

  /// Sends a request that must succeed; returns its `result`.
  func result(_ method: String, _ params: JSON = [:]) throws -> JSON {
    let answer = try call(method, params)
    guard answer.has("result") else { throw Failure("\(method) \(params) failed: \(answer)") }
    return answer["result"]
  }

  /// Closes stdin: the extension must exit.
  func closeInput() {
    if input >= 0 { close(input) }
    input = -1
  }

  // MARK: Reading

  /// The answer to request `id`, waited for up to `timeout` seconds.
  func answer(to id: Int, timeout: Double = 120) throws -> JSON {
    var found: JSON?
    let ok = wait(timeout) { lines in
      found = lines.first { $0["id"] == .int(id) && $0["method"].isNull }
      return found != nil
    }
    guard ok, let found else { throw Failure("no answer to request \(id) within \(timeout) s; stderr:\n\(stderr)") }
    return found
  }

  /// The `$/progress` notifications of request `id` among `lines`.
  static func progress(of id: Int, in lines: [JSON]) -> [JSON] {
    lines.filter { $0["method"] == "$/progress" && $0["params"]["id"] == .int(id) }.map { $0["params"] }
  }

  /// The `$/progress` notifications of request `id` so far.
  func progress(of id: Int) -> [JSON] { Self.progress(of: id, in: snapshot()) }

  /// Waits until `condition` holds for the lines read so far (true), or the deadline (false).
  /// `condition` is called with the lines only: it must not call back into this object.
  func wait(_ timeout: Double, until condition: ([JSON]) -> Bool) -> Bool {
    output.wait(until: Date(timeIntervalSinceNow: timeout), condition)
  }

  /// Waits until request `id` has sent a `$/progress` (a transfer is under way); false when it
  /// was answered first, or at the deadline.
  func waitForProgress(of id: Int, timeout: Double = 120) -> Bool {
    let answered: (JSON) -> Bool = { $0["id"] == .int(id) && $0["method"].isNull }
    _ = wait(timeout) { lines in !Self.progress(of: id, in: lines).isEmpty || lines.contains(where: answered) }
    return !progress(of: id).isEmpty
  }

  /// Every JSON line so far.
  func snapshot() -> [JSON] { output.snapshot().lines }

  /// stdout lines that were not JSON.
  var nonJSONLines: [String] { output.snapshot().noise }

  var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

  // MARK: The process

  func signal(_ signal: Int32) { Foundation.kill(pid, signal) }

  /// Waits up to `timeout` seconds for the process to end; its wait status, or nil if it runs on.
  func waitForExit(timeout: Double) -> Int32? {
    if let exitStatus { return exitStatus }
    let deadline = Date(timeIntervalSinceNow: timeout)
    repeat {
      var status: Int32 = 0
      let r = waitpid(pid, &status, WNOHANG)
      if r == pid {
        exitStatus = status
        return status
      }
      usleep(10_000)  // polling waitpid, with the deadline above as the bound
    } while Date() < deadline
    return nil
  }

  // MARK: glibc functions Swift's Glibc module does not import (declared for _GNU_SOURCE)

  private static func libc<F>(_ name: String, as type: F.Type) -> F? {
    guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, name) else { return nil }
    return unsafeBitCast(symbol, to: type)
  }

  private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
  private static let pipe2 = libc("pipe2", as: Pipe2.self)
  private typealias AddChdir =
    @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32
  private static let addChdir = libc("posix_spawn_file_actions_addchdir_np", as: AddChdir.self)
  /// A write to an extension that died must be an error here, not the end of the test process.
  private static let ignoreSIGPIPE: Void = { Foundation.signal(SIGPIPE, SIG_IGN) }()
}

/// The lines an extension wrote to its stdout, read by a thread of their own.
private final class Output: @unchecked Sendable {
  private let condition = NSCondition()
  /// Every JSON line read so far, in order; lines that were not JSON; whether stdout ended
  /// (all guarded by `condition`).
  private var lines: [JSON] = []
  private var noise: [String] = []
  private var ended = false

  func wait(until deadline: Date, _ satisfied: ([JSON]) -> Bool) -> Bool {
    condition.lock()
    defer { condition.unlock() }
    while !satisfied(lines) {
      if ended { return false }
      if !condition.wait(until: deadline) { return satisfied(lines) }
    }
    return true
  }

  func snapshot() -> (lines: [JSON], noise: [String]) {
    condition.lock()
    defer { condition.unlock() }
    return (lines, noise)
  }

  func read(_ fd: Int32) {
    var pending: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = buffer.withUnsafeMutableBytes { Foundation.read(fd, $0.baseAddress, $0.count) }
      if n < 0 && errno == EINTR { continue }
      if n <= 0 { break }
      pending += buffer[0..<n]
      while let newline = pending.firstIndex(of: 0x0A) {
        let line = Data(pending[..<newline])
        pending.removeSubrange(...newline)
        condition.lock()
        if let json = JSON.parse(line) {
          lines.append(json)
        } else {
          noise.append(String(decoding: line, as: UTF8.self))
        }
        condition.broadcast()
        condition.unlock()
      }
    }
    close(fd)
    condition.lock()
    ended = true
    condition.broadcast()
    condition.unlock()
  }
}
