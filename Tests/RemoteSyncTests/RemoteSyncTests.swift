import FolioServerProvider
import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport
import TestExecution

/// The sync engine against a real `folio serve` on loopback (needs `swift build --product folio`).
@Suite("RemoteSync", .serialized, .offThePool)
struct RemoteSyncTests {
  @Test func uploadAndDownloadRoundTripsKeepEveryByte() async throws {
    let server = try await RemoteServer()
    let ana = try RemoteClient(server, user: "ana")
    let ben = try RemoteClient(server, user: "ben")
    let data = randomData(3 << 20 + 17, seed: 42)
    let ids = try await ana.engine.put([try ana.file("big.bin", data)], into: try await ana.root(), in: ana.domain)
    let report = await ana.engine.queue.drain()
    #expect(report.succeeded && report.completed.map(\.transferID) == ids)
    let item = try await ana.item("/big.bin")
    #expect(item.documentSize == Int64(data.count))
    // Ana's copy is the staged bytes (no download), Ben downloads them.
    let anaLocal = try #require(try ana.engine.store.localFile(domain: RemoteServer.work, identifier: item.identifier))
    #expect(anaLocal.content.sha256 == (try sha256(data)))
    let progress = waitForEvent(ben.engine.events) { if case .progress(let a) = $0 { a.percent == 100 } else { false } }
    let url = try await ben.engine.materialize(item, in: ben.domain)
    #expect(try Data(contentsOf: url) == data)
    #expect(await progress.value != nil)
    // Ben's record holds the digest the provider verified the bytes against (not hashed again).
    let benLocal = try #require(try ben.engine.store.localFile(domain: RemoteServer.work, identifier: item.identifier))
    #expect(benLocal.content.sha256 == (try sha256(data)) && benLocal.content.size == Int64(data.count))
    #expect(try await ana.serverBytes(item.identifier) == data)
  }

  /// Two computers edit the same file from the same version: both versions survive.
  @Test func twoClientsEditingOneFileKeepBothVersions() async throws {
    let server = try await RemoteServer()
    let ana = try RemoteClient(server, user: "ana")
    let ben = try RemoteClient(server, user: "ben")
    _ = try await ana.engine.put([try ana.file("plan.txt", Data("base".utf8))], into: try await ana.root(), in: ana.domain)
    #expect(await ana.engine.queue.drain().succeeded)
    let item = try await ana.item("/plan.txt")
    let benItem = try await ben.item("/plan.txt")
    try await ana.edit(item, Data("ana's version".utf8))
    try await ben.edit(benItem, Data("ben's version".utf8))
    #expect(await ana.engine.queue.drain().succeeded)
    #expect(await ben.engine.queue.drain().succeeded)

    let files = try await ana.children().filter { !$0.isFolder }
    #expect(files.count == 2)
    var contents: [String] = []
    for f in files { contents.append(String(decoding: try await ana.serverBytes(f.identifier), as: UTF8.self)) }
    #expect(contents.sorted() == ["ana's version", "ben's version"])
    // Ben's side knows it lost the race: a conflict, and his copy is stale (theirs on next open).
    let conflict = try #require(try ben.index.conflicts().first)
    #expect(conflict.original == item.identifier && conflict.reason == .staleBase)
    #expect(String(decoding: try await ben.serverBytes(conflict.copy), as: UTF8.self) == "ben's version")
    let reopened = try await ben.engine.materialize(try await ben.item("/plan.txt"), in: ben.domain)
    #expect(try String(contentsOf: reopened, encoding: .utf8) == "ana's version")
    // Resolving: Ben keeps his.
    try await ben.engine.resolve(conflict, .keepMine)
    #expect(String(decoding: try await ben.serverBytes(item.identifier), as: UTF8.self) == "ben's version")
    // Ana's version is not lost: it is in Recently Deleted, where she can restore it.
    let trashed = try await ana.children(.trash)
    #expect(trashed.map(\.identifier) == [conflict.copy], "\(trashed)")
    #expect(String(decoding: try await ana.serverBytes(conflict.copy), as: UTF8.self) == "ana's version")
  }

  /// What another computer does reaches this index through the change feed.
  @Test func anotherClientsEditsRenamesMovesAndDeletesAppear() async throws {
    let server = try await RemoteServer()
    let ana = try RemoteClient(server, user: "ana")
    let ben = try RemoteClient(server, user: "ben")
    let root = try await ana.root()
    let archive = try await ana.provider.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("Archive"), contentType: .folder), fields: [], contents: nil,
      options: [])
    _ = try await ana.engine.put(
      ["a.txt", "b.txt", "c.txt", "d.txt"].map { try! ana.file($0, Data($0.utf8)) }, into: root, in: ana.domain)
    #expect(await ana.engine.queue.drain().succeeded)
    for name in ["a.txt", "b.txt", "c.txt", "d.txt"] {
      try ana.index.recordUse(of: try await ana.item("/" + name), domain: RemoteServer.work)
    }
    _ = try await ana.engine.syncChanges(of: RemoteServer.work)
    let a = try await ana.item("/a.txt")
    let b = try await ana.item("/b.txt")
    let c = try await ana.item("/c.txt")
    let d = try await ana.item("/d.txt")
    _ = try await ana.engine.materialize(d, in: ana.domain)

    // Ben: rename a, move b, delete c, edit d.
    var t = ItemTemplate(try await ben.provider.item(for: a.identifier))
    t.filename = ItemName("renamed.txt")
    _ = try await ben.provider.modifyItem(t, baseVersion: a.version, changedFields: .filename, contents: nil)
    t = ItemTemplate(try await ben.provider.item(for: b.identifier))
    t.parentIdentifier = archive.identifier
    _ = try await ben.provider.modifyItem(t, baseVersion: b.version, changedFields: .parentItemIdentifier, contents: nil)
    try await ben.provider.deleteItem(c.identifier, baseVersion: nil, options: [])
    try await ben.edit(try await ben.item("/d.txt"), Data("ben edited d".utf8))
    #expect(await ben.engine.queue.drain().succeeded)

    let summary = try await ana.engine.syncChanges(of: RemoteServer.work)
    #expect(summary.deleted == 1 && summary.staleContent == 1)
    #expect(try ana.index.item(domain: RemoteServer.work, identifier: a.identifier)?.path == ItemPath("/renamed.txt"))
    #expect(try ana.index.item(domain: RemoteServer.work, identifier: b.identifier)?.path == ItemPath("/Archive/b.txt"))
    #expect(try ana.index.item(domain: RemoteServer.work, identifier: c.identifier) == nil)
    let fresh = try await ana.engine.materialize(try await ana.item("/d.txt"), in: ana.domain)
    #expect(try String(contentsOf: fresh, encoding: .utf8) == "ben edited d")
  }

  /// Push: with polling off (an hour), a change on the server reaches the index through the
  /// long-poll. The delay is printed, not asserted beyond "well before any poll".
  @Test func pushBringsAChangeWithoutPolling() async throws {
    let server = try await RemoteServer()
    let ana = try RemoteClient(server, user: "ana", pollInterval: 3600)
    let ben = try RemoteClient(server, user: "ben")
    _ = try await ana.engine.put([try ana.file("x.txt", Data("x".utf8))], into: try await ana.root(), in: ana.domain)
    #expect(await ana.engine.queue.drain().succeeded)
    let x = try await ana.item("/x.txt")
    try ana.index.recordUse(of: x, domain: RemoteServer.work)
    _ = try await ana.engine.syncChanges(of: RemoteServer.work)
    let sync = try #require(ana.engine.workingSetSync(for: RemoteServer.work))
    await sync.start()
    // Let the long-poll get in place before the change.
    try await Task.sleep(nanoseconds: 300_000_000)
    let arrived = waitForEvent(ana.engine.events, seconds: 30) {
      if case .itemsChanged(_, let updated, _) = $0 { updated.contains(x.identifier) } else { false }
    }
    let start = Date()
    var t = ItemTemplate(try await ben.provider.item(for: x.identifier))
    t.filename = ItemName("pushed.txt")
    _ = try await ben.provider.modifyItem(t, baseVersion: x.version, changedFields: .filename, contents: nil)
    let event = await arrived.value
    let latency = Date().timeIntervalSince(start)
    await sync.stop()
    #expect(event != nil)
    print("push latency: \(Int(latency * 1000)) ms")
    #expect(try ana.index.item(domain: RemoteServer.work, identifier: x.identifier)?.name == ItemName("pushed.txt"))
  }

  /// Quota: the upload is throttled (not failed, not retried blindly), with what to do; freeing
  /// quota and resolving sends it.
  @Test func quotaExceededThrottlesWithTheRecoveryText() async throws {
    let server = try await RemoteServer(quotas: ["ana": 1000])
    let ana = try RemoteClient(server, user: "ana")
    let ids = try await ana.engine.put([try ana.file("big.bin", randomData(5000, seed: 1))], into: try await ana.root(), in: ana.domain)
    let report = await ana.engine.queue.drain()
    let entry = try #require(report.unfinished.first)
    #expect(entry.state == .throttled && entry.code == ProviderError.Code.insufficientQuota.rawValue)
    #expect(entry.recovery == "Free space on the server, then retry.")
    #expect(entry.attempts <= 1)
    try server.server.admin(["user", "quota", "ana", "none"])
    try await ana.engine.queue.retry(ids[0])
    #expect(await ana.engine.queue.drain().succeeded)
    #expect(try await ana.item("/big.bin").documentSize == 5000)
  }
}
