import AsyncHTTPClient
import FolioProtocol
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Start, stop, TLS and the command line of `folio serve`.
@Suite struct LifecycleTests {
  @Test(arguments: [SIGTERM, SIGINT])
  func aSignalStopsTheServerGracefullyAndAnswersWaitingPolls(signal: Int32) async throws {
    let server = try await ServerProcess(faults: true)
    let ana = try await TestClient.signedIn(server)
    let anchor = try await ana.anchor()
    let waiting = Task {
      try await ana.expect(WaitResponse.self, 200, "GET", "/v1/changes/wait?since=\(TestClient.encode(anchor))&timeout=60")
    }
    // The poll must be parked at the server when the signal comes: one still in the socket meets
    // a closed connection instead (a fixed 1.5 s was once too short with the suite on two cores).
    let clock = ContinuousClock()
    let deadline = clock.now + .seconds(120)
    while try await ana.expect(FaultStateResponse.self, 200, "GET", "/v1/_faults").waitingPolls < 1 {
      #expect(clock.now < deadline, "the poll never reached the server")
      if clock.now >= deadline { return }
      try await Task.sleep(for: .milliseconds(20))
    }
    let start = ContinuousClock.now
    server.stop(signal: signal)
    // Answered by the stop, not by the poll's own 60 s timeout.
    #expect(ContinuousClock.now - start < .seconds(50))
    let answer = try await waiting.value
    #expect(!answer.changed)
    #expect(!server.isRunning)
    // The log has one line per request, without the query.
    #expect(server.log.contains("GET /v1/changes/wait 200 "))
    #expect(!server.log.contains("since="))
  }

  @Test func startingPrintsTheListeningLineFirst() async throws {
    let server = try await ServerProcess()
    let first = server.log.split(separator: "\n").first.map(String.init)
    #expect(first == "folio serve: listening on http://127.0.0.1:\(server.port)")
  }

  @Test func servesHTTPSWithTheGivenCertificate() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-tls-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let cert = try ServerProcess.makeCertificate(in: dir).path
    let key = dir.appendingPathComponent("tls-key.pem").path
    let server = try await LaunchedServer(arguments: ["--tls-cert", cert, "--tls-key", key], users: ["ana": "pw"])
    #expect(server.baseURL.scheme == "https")
    let body = #"{"user":"ana","password":"pw"}"#
    let login = try run(
      "/usr/bin/curl",
      ["-sS", "--cacert", cert, "-X", "POST", "-d", body, server.baseURL.absoluteString + "/v1/login"])
    #expect(login.status == 0, "\(login.output)")
    #expect(login.output.contains("\"token\""))
    // Content goes both ways over TLS (the buffered path: a file region cannot be encrypted).
    let token = try JSONDecoder().decode(LoginResponse.self, from: Data(login.output.utf8)).token
    let bytes = testBytes(700_000, seed: 9)
    let source = dir.appendingPathComponent("source.bin")
    let back = dir.appendingPathComponent("back.bin")
    try Data(bytes).write(to: source)
    let up = try run(
      "/usr/bin/curl",
      [
        "-sS", "--cacert", cert, "-X", "POST", "-H", "Authorization: Bearer \(token)",
        "-H", "X-Folio-SHA256: \(TestClient.sha256(bytes))", "-H", "Content-Type: application/octet-stream",
        "--data-binary", "@\(source.path)", server.baseURL.absoluteString + "/v1/uploads?parent=root&name=f.bin",
      ])
    let item = try JSONDecoder().decode(UploadResponse.self, from: Data(up.output.utf8)).item
    let down = try run(
      "/usr/bin/curl",
      [
        "-sS", "--cacert", cert, "-H", "Authorization: Bearer \(token)", "-o", back.path,
        server.baseURL.absoluteString + "/v1/items/\(item.id)/content",
      ])
    #expect(down.status == 0, "\(down.output)")
    #expect(try Data(contentsOf: back) == Data(bytes))
    // Plain HTTP on the TLS port gets nowhere.
    let plain = try run("/usr/bin/curl", ["-sS", "-m", "5", "http://127.0.0.1:\(server.baseURL.port ?? 0)/v1/anchor"])
    #expect(plain.status != 0 || !plain.output.contains("anchor"))
  }

  @Test func everyCommandHasHelp() throws {
    for command in [
      ["serve", "--help"], ["serve", "run", "--help"], ["serve", "admin", "--help"],
      ["serve", "admin", "user", "--help"], ["serve", "admin", "user", "add", "--help"],
      ["serve", "admin", "user", "passwd", "--help"], ["serve", "admin", "user", "quota", "--help"],
      ["serve", "admin", "user", "list", "--help"], ["serve", "admin", "token", "--help"],
      ["serve", "admin", "token", "revoke", "--help"],
    ] {
      let r = try run(try ServerProcess.binary(), command)
      #expect(r.status == 0, "\(command)")
      #expect(r.output.contains("USAGE"), "\(command)")
    }
    let bad = try run(try ServerProcess.binary(), ["serve", "--tls-cert", "x"])
    #expect(bad.status == 2)
    let noRoot = try run(try ServerProcess.binary(), ["serve", "admin", "user", "list"])
    #expect(noRoot.status == 2)
  }

  /// Runs a program with an argv, returning its exit status and stdout+stderr.
  func run(_ path: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = arguments
    let out = Pipe()
    p.standardOutput = out
    p.standardError = out
    p.standardInput = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
  }
}
