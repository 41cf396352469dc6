import AsyncHTTPClient
import FolioProtocol
import Foundation
import TestSupport
import Testing

/// Every fault kind of docs/PROTOCOL.md, and that none exists without `--faults`.
@Suite struct FaultTests {
  static func install(_ client: TestClient, _ rules: [FaultRule]) async throws {
    let a = try await client.send("POST", "/v1/_faults", json: FaultRulesRequest(rules: rules))
    #expect(a.status == 204, "\(a.text)")
  }

  @Test func faultsNeedTheFlag() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let a = try await ana.send("POST", "/v1/_faults", json: FaultRulesRequest(rules: [FaultRule(kind: .drop)]))
    #expect(a.status == 404)
    #expect(try await ana.send("DELETE", "/v1/_faults").status == 404)
    #expect(try await ana.send("GET", "/v1/items/root").status == 200)
  }

  @Test func statusWithRetryAfterForCountRequests() async throws {
    let server = try await ServerProcess(faults: true)
    let ana = try await TestClient.signedIn(server)
    try await Self.install(
      ana, [FaultRule(method: "GET", pathPrefix: "/v1/items/", kind: .status, status: 503, count: 2, retryAfter: 1)])
    for _ in 0..<2 {
      let a = try await ana.send("GET", "/v1/items/root")
      #expect(a.status == 503)
      #expect(a.header("Retry-After") == "1")
      #expect(a.errorCode == "serverError")
      #expect(a.header("X-Folio-Server") == "1")
    }
    #expect(try await ana.send("GET", "/v1/items/root").status == 200)
    // Other methods and paths were never affected.
    try await Self.install(ana, [FaultRule(pathPrefix: "/v1/account", kind: .status, status: 507)])
    #expect(try await ana.send("GET", "/v1/account").errorCode == "insufficientQuota")
    #expect(try await ana.send("GET", "/v1/items/root").status == 200)
    #expect(try await ana.send("DELETE", "/v1/_faults").status == 204)
    #expect(try await ana.send("GET", "/v1/account").status == 200)
  }

  @Test func delay() async throws {
    let server = try await ServerProcess(faults: true)
    let ana = try await TestClient.signedIn(server)
    try await Self.install(ana, [FaultRule(pathPrefix: "/v1/anchor", kind: .delay, count: 1, delayMs: 400)])
    let start = ContinuousClock.now
    #expect(try await ana.send("GET", "/v1/anchor").status == 200)
    #expect(ContinuousClock.now - start >= .milliseconds(400))
    // The count is spent: the next request answers normally.
    #expect(try await ana.send("GET", "/v1/anchor").status == 200)
  }

  @Test func truncateSendsHalfOfWhatItPromised() async throws {
    let server = try await ServerProcess(faults: true)
    let ana = try await TestClient.signedIn(server)
    let bytes = testBytes(100_000, seed: 5)
    let f = try await ana.upload("f", bytes)
    try await Self.install(ana, [FaultRule(method: "GET", pathPrefix: "/v1/items/\(f.id)/content", kind: .truncate, count: 1)])
    let raw = try RawHTTP.exchange(
      port: server.port,
      request: RawHTTP.request("GET", "/v1/items/\(f.id)/content", headers: [("Authorization", "Bearer \(ana.token ?? "")")]),
      readTimeout: 5)
    #expect(raw.status == 200)
    #expect(raw.header("Content-Length") == "100000")
    #expect(raw.body == Array(bytes[0..<50_000]))
    // A client library sees the cut as an error, not as a short file.
    try await Self.install(ana, [FaultRule(method: "GET", pathPrefix: "/v1/items/\(f.id)/content", kind: .truncate, count: 1)])
    await #expect(throws: (any Error).self) { _ = try await ana.content(f.id) }
    #expect(try await ana.content(f.id).body == bytes)
    // JSON answers are cut too.
    try await Self.install(ana, [FaultRule(pathPrefix: "/v1/items/root/children", kind: .truncate, count: 1)])
    await #expect(throws: (any Error).self) { _ = try await ana.send("GET", "/v1/items/root/children") }
  }

  @Test func dropClosesWithoutAnswering() async throws {
    let server = try await ServerProcess(faults: true)
    let ana = try await TestClient.signedIn(server)
    try await Self.install(ana, [FaultRule(method: "GET", pathPrefix: "/v1/account", kind: .drop, count: 1)])
    let raw = try RawHTTP.exchange(
      port: server.port,
      request: RawHTTP.request("GET", "/v1/account", headers: [("Authorization", "Bearer \(ana.token ?? "")")]),
      readTimeout: 5)
    #expect(raw.received.isEmpty)
    try await Self.install(ana, [FaultRule(method: "GET", pathPrefix: "/v1/account", kind: .drop, count: 1)])
    await #expect(throws: (any Error).self) { _ = try await ana.send("GET", "/v1/account") }
    #expect(try await ana.send("GET", "/v1/account").status == 200)
  }

  @Test func emptyListingsAndChangeBatches() async throws {
    let server = try await ServerProcess(faults: true)
    let ana = try await TestClient.signedIn(server)
    let anchor = try await ana.anchor()
    for i in 0..<3 { _ = try await ana.upload("f\(i)", [1]) }
    try await Self.install(ana, [FaultRule(method: "GET", kind: .empty, count: 2)])
    let page = try await ana.children("root")
    #expect(page.items.isEmpty)
    #expect(page.nextPage == nil)
    let batch = try await ana.changes(since: anchor)
    #expect(batch.updated.isEmpty && batch.deleted.isEmpty && !batch.more)
    #expect(batch.anchor == anchor)
    #expect(try await ana.children("root").items.count == 3)
    #expect(try await ana.changes(since: anchor).updated.count == 3)
  }

  @Test func badRulesAreRefused() async throws {
    let server = try await ServerProcess(faults: true)
    let ana = try await TestClient.signedIn(server)
    #expect(
      try await ana.send("POST", "/v1/_faults", json: FaultRulesRequest(rules: [FaultRule(kind: .status, status: 200)])).status
        == 400)
    #expect(try await ana.send("POST", "/v1/_faults", body: Array("{\"rules\":[{\"kind\":\"explode\"}]}".utf8)).status == 400)
  }
}
