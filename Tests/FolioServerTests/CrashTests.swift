import AsyncHTTPClient
import FolioProtocol
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `kill -9` of the server: whatever it was doing, the next start shows the old state or the new,
/// never a half, and leaves no upload or unreferenced content behind.
@Suite struct CrashTests {
  @Test func killDuringAnUploadKeepsTheOldContentAndLeavesNothing() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let old = testBytes(2000, seed: 11)
    let f = try await ana.upload("doc.bin", old)
    let new = testBytes(4 << 20, seed: 12)

    // Send the first MiB of a new version, then stall.
    var request = HTTPClientRequest(url: server.baseURL.absoluteString + "/v1/items/\(f.id)/content?base=1")
    request.method = .PUT
    request.headers.add(name: "Authorization", value: "Bearer \(ana.token ?? "")")
    request.headers.add(name: "X-Folio-SHA256", value: TestClient.sha256(new))
    let (stream, continuation) = AsyncStream<ByteBuffer>.makeStream()
    request.body = .stream(stream, length: .known(Int64(new.count)))
    let upload = Task { try await HTTPClient.shared.execute(request, timeout: .seconds(60)) }
    continuation.yield(ByteBuffer(bytes: new[0..<(1 << 20)]))
    let uploads = server.root.appendingPathComponent("uploads")
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
      let files = try FileManager.default.contentsOfDirectory(atPath: uploads.path)
      if let name = files.first,
        let size = try FileManager.default.attributesOfItem(atPath: uploads.appendingPathComponent(name).path)[.size]
          as? Int, size > 0
      {
        break
      }
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(try !FileManager.default.contentsOfDirectory(atPath: uploads.path).isEmpty, "the upload never started")
    server.stop(signal: SIGKILL)
    continuation.finish()
    _ = try? await upload.value

    try await server.start()
    #expect(server.log.contains("removed 1"))
    let again = try await TestClient.signedIn(server)
    let item = try await again.item(f.id)
    #expect(item.version.content == 1)
    #expect(try await again.content(f.id).body == old)
    try ContentTests.expectNoLeftovers(server, live: ["\(f.id).1"])
    // And the server works: the same upload goes through now.
    #expect(try await again.put(f.id, base: 1, new).status == 200)
    #expect(try await again.content(f.id).body == new)
  }

  @Test func startRemovesLeftoversOfACrashBetweenRenameAndCommit() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let f = try await ana.upload("keep", [1, 2])
    server.stop(signal: SIGKILL)
    // What a crash can leave: a half upload, and a content file renamed in but never committed.
    let content = server.root.appendingPathComponent("content")
    try Data([9]).write(to: server.root.appendingPathComponent("uploads/up-stale"))
    try Data([9, 9]).write(to: content.appendingPathComponent("\(f.id).2"))
    try Data([9, 9]).write(to: content.appendingPathComponent("i999.1"))
    try await server.start()
    try ContentTests.expectNoLeftovers(server, live: ["\(f.id).1"])
    let again = try await TestClient.signedIn(server)
    #expect(try await again.content(f.id).body == [1, 2])
    // The database is intact.
    #expect(try await again.put(f.id, base: 1, [3]).status == 200)
  }

  @Test func killWhileManyWritesRunLosesNoCommittedItem() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    actor Acknowledged {
      var ids: [String] = []
      func add(_ id: String) { ids.append(id) }
    }
    let acknowledged = Acknowledged()
    let writers = Task {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for w in 0..<4 {
          group.addTask {
            for i in 0..<10_000 {
              guard let item = try? await ana.upload("w\(w)-\(i)", testBytes(3000, seed: UInt64(i))) else { return }
              await acknowledged.add(item.id)
            }
          }
        }
        try await group.waitForAll()
      }
    }
    // Kill once some uploads were acknowledged and more are in flight (the bound only ends a
    // broken server's test: under two CPU burners and a build, 30 s once saw 16 of 20).
    let deadline = ContinuousClock.now + .seconds(300)
    while await acknowledged.ids.count < 20, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(10))
    }
    server.stop(signal: SIGKILL)
    writers.cancel()
    _ = try? await writers.value
    let acked = await acknowledged.ids
    #expect(acked.count >= 20)
    try await server.start()
    let again = try await TestClient.signedIn(server)
    let listed = try await again.allChildren("root")
    // Every acknowledged upload is there with its bytes; nothing half-made is.
    #expect(Set(acked).isSubset(of: Set(listed.map(\.id))))
    for item in listed {
      #expect(try await again.content(item.id).body.count == 3000)
    }
    try ContentTests.expectNoLeftovers(server, live: Set(listed.map { "\($0.id).1" }))
  }
}
