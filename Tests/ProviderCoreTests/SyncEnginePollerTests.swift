import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// Issue 10 §2: a storage without a change feed gets its changes from the listing poller, which
/// the sync engine makes for it: `folio sync` (`syncChanges`) lists the root and the working set's
/// folders, and a rename done elsewhere keeps the item's tag.
@Suite struct SyncEnginePollerTests {
  @Test func aRenameElsewhereOnStorageWithoutAFeedKeepsTheTag() async throws {
    let memory = InMemoryProvider(domain: DomainIdentifier(unchecked: "ssh"))
    let provider = PathKeyedMemoryProvider(base: memory)
    let inner = await memory.add(ItemName("notes.txt"), content: Data("hello".utf8))
    let domain = Domain(identifier: provider.domain, displayName: "ssh", provider: provider, localRoot: nil)
    var registry = DomainRegistry(
      local: Domain(identifier: .local, displayName: "This Computer", provider: InMemoryProvider(traits: .localFilesystem), localRoot: .root))
    try registry.add(domain)
    let index = try WorkingSetIndex.inMemory()
    let cache = FileManager.default.temporaryDirectory.appendingPathComponent("folio-poller-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: cache) }
    let engine = SyncEngine(registry: registry, index: index, contentRoot: cache, cacheBudget: 1 << 30)
    #expect(engine.listingPoller(for: domain.identifier) != nil, "no feed: a poller")
    #expect(engine.listingPoller(for: .local) == nil)

    let file = try await provider.item(at: ItemPath("/notes.txt"))
    try index.recordUse(of: file, domain: domain.identifier)
    try index.setTags(["Red"], of: file, domain: domain.identifier, indexOnly: true)

    // Renamed on the server by someone else: to this computer, a delete and a create.
    var template = ItemTemplate(inner)
    template.filename = ItemName("renamed.txt")
    _ = try await memory.modifyItem(template, baseVersion: inner.version, changedFields: .filename, contents: nil)

    // Two complete listings confirm the old name is gone; the same content under a new name is a move.
    _ = try await engine.syncChanges(of: domain.identifier)
    _ = try await engine.syncChanges(of: domain.identifier)
    let tagged = try index.items(taggedWith: "Red")
    #expect(tagged.map(\.path) == [ItemPath("/renamed.txt")], "the tag followed the rename: \(tagged.map(\.path))")
    #expect(try index.item(domain: domain.identifier, identifier: file.identifier) == nil)
  }
}
