import Foundation
import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `folio serve` with arguments ServerProcess does not pass (`--token-lifetime`, `--users`,
/// `--tls-cert`), on a fresh root, stopped and removed at deinit.
final class LaunchedServer: @unchecked Sendable {
  let root: URL
  private(set) var baseURL: URL = URL(string: "http://127.0.0.1:0")!
  private let process = Process()
  private let lock = NSLock()
  private var output = Data()

  init(arguments: [String], users: [String: String]) async throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent("folio-launched-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let binary = try ServerProcess.binary()
    for (name, password) in users {
      let p = Process()
      p.executableURL = URL(fileURLWithPath: binary)
      p.arguments = ["serve", "admin", "--root", root.path, "user", "add", name, "--password-stdin"]
      let input = Pipe()
      p.standardInput = input
      try p.run()
      input.fileHandleForWriting.write(Data((password + "\n").utf8))
      try input.fileHandleForWriting.close()
      p.waitUntilExit()
    }
    process.executableURL = URL(fileURLWithPath: binary)
    process.arguments = ["serve", "--root", root.path, "--port", "0"] + arguments
    let out = Pipe()
    process.standardOutput = out
    process.standardError = out
    out.fileHandleForReading.readabilityHandler = { [weak self] h in
      let d = h.availableData
      // At EOF the handler would be called again and again: stop listening.
      if d.isEmpty { h.readabilityHandler = nil }
      guard let self, !d.isEmpty else { return }
      self.lock.withLock { self.output.append(d) }
    }
    try process.run()
    let marker = "folio serve: listening on "
    // As ServerProcess: 60 s, and one more look after the deadline (a sleep may overshoot it).
    let deadline = Date().addingTimeInterval(60)
    while true {
      let late = Date() >= deadline
      let text = lock.withLock { String(decoding: output, as: UTF8.self) }
      if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(marker) }),
        let url = URL(string: String(line.dropFirst(marker.count)))
      {
        baseURL = url
        return
      }
      if !process.isRunning { throw ServerProcess.Failure.didNotStart(text) }
      if late { throw ServerProcess.Failure.didNotStart("no 'listening' line within 60 s: \(text)") }
      try await Task.sleep(for: .milliseconds(20))
    }
  }

  var log: String { lock.withLock { String(decoding: output, as: UTF8.self) } }

  deinit {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    try? FileManager.default.removeItem(at: root)
  }
}
