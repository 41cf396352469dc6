import FolioProtocol
import Foundation
import TestSupport
import Testing

/// Quotas count the bytes a user owns (trash and conflict copies included) and are checked before
/// an upload's body is read.
@Suite struct QuotaTests {
  @Test func overQuotaIs507AndStoresNothing() async throws {
    let server = try await ServerProcess(users: ["ana": "ana-password"], quotas: ["ana": 1000])
    let ana = try await TestClient.signedIn(server)
    let first = try await ana.upload("a", testBytes(600))
    let refused = try await ana.uploadAnswer("b", testBytes(600))
    #expect(refused.status == 507)
    #expect(refused.errorCode == "insufficientQuota")
    // Growing a file past the quota is refused; shrinking is fine.
    #expect(try await ana.put(first.id, base: 1, testBytes(1100)).status == 507)
    #expect(try await ana.put(first.id, base: 1, testBytes(900)).status == 200)
    // Trashed files still count; deleted ones do not.
    _ = try await ana.patch(first.id, ModifyRequest(parent: "trash"))
    #expect(try await ana.uploadAnswer("c", testBytes(200)).status == 507)
    #expect(try await ana.send("POST", "/v1/trash/empty").status == 204)
    #expect(try await ana.uploadAnswer("c", testBytes(200)).status == 201)
    let account = try await ana.expect(AccountResponse.self, 200, "GET", "/v1/account")
    #expect(account.usedBytes == 200)
    #expect(account.quotaBytes == 1000)
    try ContentTests.expectNoLeftovers(server, live: Set(try await ana.allChildren("root").map { "\($0.id).1" }))
  }

  @Test func quotaIsCheckedBeforeTheBodyIsRead() async throws {
    let server = try await ServerProcess(users: ["ana": "ana-password"], quotas: ["ana": 1000])
    let ana = try await TestClient.signedIn(server)
    // Promise 10 MB, send nothing: the answer comes back at once, and the server closes the
    // connection rather than wait for bytes it will not keep.
    let start = ContinuousClock.now
    let exchange = try RawHTTP.exchange(
      port: server.port,
      request: RawHTTP.request(
        "POST", "/v1/uploads?parent=root&name=huge", headers: [
          ("Authorization", "Bearer \(ana.token ?? "")"), ("Content-Length", "10000000"),
          ("X-Folio-SHA256", String(repeating: "0", count: 64)),
        ]), readTimeout: 10)
    #expect(exchange.status == 507)
    #expect(exchange.header("Connection") == "close")
    #expect(ContinuousClock.now - start < .seconds(5))
  }

  @Test func copiesAndConflictCopiesCountForTheirOwner() async throws {
    let server = try await ServerProcess(users: ["ana": "ana-password", "ben": "ben-password"], quotas: ["ben": 500])
    let ana = try await TestClient.signedIn(server, "ana")
    let ben = try await TestClient.signedIn(server, "ben")
    let big = try await ana.upload("big", testBytes(800))
    // Ben's copy would be his: over his quota.
    #expect(try await ben.send("POST", "/v1/items/\(big.id)/copy", json: CopyRequest(parent: "root", name: "mine")).status == 507)
    _ = try await ana.put(big.id, base: 1, testBytes(10))
    // Ben's stale upload becomes his conflict copy: 600 bytes are over his 500.
    #expect(try await ben.put(big.id, base: 1, testBytes(600)).status == 507)
    #expect(try await ben.put(big.id, base: 1, testBytes(400)).decode(UploadResponse.self).conflictCopy != nil)
    #expect(try await ben.expect(AccountResponse.self, 200, "GET", "/v1/account").usedBytes == 400)
  }
}
