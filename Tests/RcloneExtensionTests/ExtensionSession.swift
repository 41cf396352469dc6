import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `python3 Extensions/folio-rclone` spoken to as Folio's host would: FEP/1 lines on its stdin,
/// answers and notifications read from its stdout by a thread of its own, stderr kept in a file.
///
/// Answers are waited for by polling a condition (bounded only as a hang guard), never by sleeping.
final class ExtensionSession: @unchecked Sendable {
  /// The extension under test, found from this file's place in the package.
  static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Extensions/folio-rclone").path

  let folder: String
  private let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  private let condition = NSCondition()
  private var answers: [Int: [String: Any]] = [:]
  private var notifications: [[String: Any]] = []
  private var noise: [String] = []
  private var nextID = 100
  private var ended = false

  /// Starts the extension with the given `config` and initializes it.
  init(config: [String: String], name: String = "Remote") throws {
    folder = try Self.makeFolder()
    try FileManager.default.createDirectory(atPath: folder + "/staging", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: folder + "/state", withIntermediateDirectories: true)
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", Self.script]
    process.currentDirectoryURL = URL(fileURLWithPath: folder + "/state")
    process.standardInput = input
    process.standardOutput = output
    FileManager.default.createFile(atPath: folder + "/stderr.log", contents: nil)
    process.standardError = FileHandle(forWritingAtPath: folder + "/stderr.log")
    try process.run()
    let reader = Thread { [self] in read() }
    reader.start()
    let initialized = try call(
      "initialize",
      [
        "protocol": 1, "host": ["name": "folio", "version": "test"], "domain": ["id": "t", "name": name],
        "config": config, "stagingDir": folder + "/staging", "stateDir": folder + "/state",
      ])
    guard initialized["result"] != nil else { throw SessionError("initialize failed: \(initialized)\n\(log)") }
    capabilities = (initialized["result"] as? [String: Any])?["capabilities"] as? [String: Any] ?? [:]
  }

  private(set) var capabilities: [String: Any] = [:]

  /// What the extension wrote to its log.
  var log: String { (try? String(contentsOfFile: folder + "/stderr.log", encoding: .utf8)) ?? "" }

  /// Lines on stdout that were not JSON objects (there must be none).
  var stdoutNoise: [String] { condition.withLock { noise } }

  /// The `$/progress` notifications of request `id`, in order.
  func progress(of id: Int) -> [[String: Any]] {
    condition.withLock {
      notifications.compactMap { n in
        guard n["method"] as? String == "$/progress", let p = n["params"] as? [String: Any], p["id"] as? Int == id else { return nil }
        return p
      }
    }
  }

  /// Sends a request and returns its id without waiting.
  @discardableResult
  func send(_ method: String, _ params: [String: Any] = [:]) throws -> Int {
    let id = condition.withLock { () -> Int in
      nextID += 1
      return nextID
    }
    try write(["jsonrpc": "2.0", "id": id, "method": method, "params": params])
    return id
  }

  func write(_ message: [String: Any]) throws {
    var line = try JSONSerialization.data(withJSONObject: message)
    line.append(0x0A)
    try input.fileHandleForWriting.write(contentsOf: line)
  }

  /// The answer to request `id` (the whole JSON-RPC object), waited for.
  func answer(_ id: Int, within seconds: TimeInterval = 120) throws -> [String: Any] {
    let deadline = Date().addingTimeInterval(seconds)
    condition.lock()
    defer { condition.unlock() }
    while answers[id] == nil {
      if ended { throw SessionError("the extension ended before answering \(id)\n\(log)") }
      if !condition.wait(until: deadline) && answers[id] == nil { throw SessionError("no answer to \(id)\n\(log)") }
    }
    return answers.removeValue(forKey: id)!
  }

  /// A request and its answer.
  func call(_ method: String, _ params: [String: Any] = [:]) throws -> [String: Any] {
    try answer(try send(method, params))
  }

  /// The `result` object of a call that must succeed.
  func result(_ method: String, _ params: [String: Any] = [:]) throws -> [String: Any] {
    let answer = try call(method, params)
    guard let result = answer["result"] as? [String: Any] else {
      throw SessionError("\(method) failed: \(answer)\n\(log)")
    }
    return result
  }

  /// The error code and object of a call that must fail.
  func failure(_ method: String, _ params: [String: Any] = [:]) throws -> (code: Int, message: String, data: [String: Any]) {
    let answer = try call(method, params)
    guard let error = answer["error"] as? [String: Any], let code = error["code"] as? Int else {
      throw SessionError("\(method) did not fail: \(answer)")
    }
    return (code, error["message"] as? String ?? "", error["data"] as? [String: Any] ?? [:])
  }

  /// A file in the staging folder holding `bytes`, as the host stages an upload.
  func stage(_ bytes: [UInt8]) throws -> String {
    let path = folder + "/staging/up-\(UUID().uuidString)"
    try Data(bytes).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// An empty file the host made for a download.
  func destination() -> String {
    let path = folder + "/staging/dl-\(UUID().uuidString)"
    FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
    return path
  }

  /// Every item of a folder, page after page.
  func list(_ container: String, pageSize: Int = 100) throws -> [[String: Any]] {
    var items: [[String: Any]] = []
    var page: String?
    repeat {
      var params: [String: Any] = ["container": container, "pageSize": pageSize, "includeHidden": true]
      if let page { params["page"] = page }
      let result = try self.result("enumerateItems", params)
      items += result["items"] as? [[String: Any]] ?? []
      page = result["nextPage"] as? String
    } while page != nil
    return items
  }

  /// Closes stdin (as the host does after `shutdown`) and waits for the exit status.
  @discardableResult
  func close() -> Int32 {
    _ = try? call("shutdown")
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
    return process.terminationStatus
  }

  deinit {
    if process.isRunning {
      try? input.fileHandleForWriting.close()
      process.terminate()
    }
    try? FileManager.default.removeItem(atPath: folder)
  }

  private func read() {
    let handle = output.fileHandleForReading
    var buffer = Data()
    while true {
      let chunk = handle.availableData
      if chunk.isEmpty { break }
      buffer.append(chunk)
      while let newline = buffer.firstIndex(of: 0x0A) {
        let line = buffer[buffer.startIndex..<newline]
        buffer.removeSubrange(buffer.startIndex...newline)
        let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
        condition.withLock {
          if let object, let id = object["id"] as? Int {
            answers[id] = object
          } else if let object {
            notifications.append(object)
          } else {
            noise.append(String(decoding: line, as: UTF8.self))
          }
          condition.broadcast()
        }
      }
    }
    condition.withLock {
      ended = true
      condition.broadcast()
    }
  }

  static func makeFolder() throws -> String {
    var template = Array("/tmp/folio-rclone-ext-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw SessionError("mkdtemp failed")
    }
    return String(cString: made)
  }
}

struct SessionError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
