import Foundation
import ProviderAPI
import ProviderCore
import Testing
import WorkingSetIndex

@testable import ExtensionHost

/// An edit queued for upload survives the extension's crash: the journaled upload goes again
/// once the extension is back (the core's TransferQueue, as the browser and `folio sync` run it).
@Suite struct ExtensionQueueTests {
  @Test func aQueuedUploadSurvivesACrash() async throws {
    let f = try ExtensionFixture(["crash_on": "modifyItem"])
    defer { Task { await f.close() } }
    let domain = Domain(identifier: f.provider.domain, displayName: "Ext", provider: f.provider, localRoot: nil)
    var registry = DomainRegistry(
      local: Domain(identifier: .local, displayName: "This Computer", provider: f.provider, localRoot: .root))
    try registry.add(domain)
    let index = try WorkingSetIndex.inMemory()
    let engine = SyncEngine(
      registry: registry, index: index, contentRoot: f.base.appendingPathComponent("content"), cacheBudget: 1 << 30,
      policy: RetryPolicy(base: 0.01, cap: 0.05, attemptsPerDrain: 2), jitter: { 0 })

    let item = try await f.provider.item(at: ItemPath("/a.txt"))
    let url = try await engine.materialize(item, in: domain, forOpen: true)
    try Data("edited here".utf8).write(to: url)
    #expect(try await engine.noticeEdits(item, in: domain) != nil)

    // The upload's attempt kills the extension: the transfer stays journaled.
    #expect(await !engine.queue.drain().succeeded)
    #expect(f.log.contains("about to crash in modifyItem"))
    #expect(try index.pendingTransfers(domain: domain.identifier).count == 1)
    #expect(try String(contentsOf: f.root.appendingPathComponent("a.txt"), encoding: .utf8) == "alpha")

    // The extension behaves again; the held upload goes, through a restarted process.
    f.behave()
    await engine.queue.resolve(domain: domain.identifier)
    await eventually {
      _ = await engine.queue.drain()
      return (try? String(contentsOf: f.root.appendingPathComponent("a.txt"), encoding: .utf8)) == "edited here"
    }
    #expect(try index.pendingTransfers(domain: domain.identifier).isEmpty)
    #expect(f.provider.startCount >= 2)
  }
}
