import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// Issue 10 §1: on path-keyed storage a rename that Folio performs gives the item and everything
/// below it new identifiers; no tag, favorite, Recents entry, cached edit or queued upload is lost.
@Suite struct ItemServicePathKeyedTests {
  @Test func renamingAFolderReKeysTheIndexTheCacheAndTheQueue() async throws {
    let memory = InMemoryProvider(domain: DomainIdentifier(unchecked: "ssh"))
    let provider = PathKeyedMemoryProvider(base: memory)
    let folderInner = await memory.add(ItemName("a"), folder: true)
    _ = await memory.add(ItemName("notes.txt"), in: folderInner.identifier, content: Data("server".utf8))
    let index = try WorkingSetIndex.inMemory()
    let cache = FileManager.default.temporaryDirectory.appendingPathComponent("folio-rekey-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: cache) }
    let domain = Domain(identifier: provider.domain, displayName: "ssh", provider: provider, localRoot: nil)
    var registry = DomainRegistry(
      local: Domain(identifier: .local, displayName: "This Computer", provider: InMemoryProvider(traits: .localFilesystem), localRoot: .root))
    try registry.add(domain)
    let service = ItemService(registry: registry, index: index, contentRoot: cache)
    let store = try #require(service.contentStore)

    let folder = try await provider.item(at: ItemPath("/a"))
    let file = try await provider.item(at: ItemPath("/a/notes.txt"))
    _ = try await service.setFavorite(true, item: folder, in: domain)
    try service.recordOpen(file, in: domain)
    _ = try await service.setTags(["Red"], of: file, in: domain)
    // An edit in the cache not uploaded yet, and its upload queued.
    try FileManager.default.createDirectory(at: store.folder(for: domain.identifier), withIntermediateDirectories: true)
    let cached = store.fileURL(domain: domain.identifier, identifier: file.identifier)
    try Data("my edit".utf8).write(to: cached)
    try index.recordMaterialized(
      MaterializedContent(
        domain: domain.identifier, identifier: file.identifier, version: file.version, size: 7, sha256: "x",
        fileStamp: "s", lastAccess: Date(), state: .dirty), item: file)
    let upload = try index.enqueueTransfer(.upload, domain: domain.identifier, identifier: file.identifier)

    let renamed = try await service.rename(folder, to: ItemName("b"), in: domain)
    #expect(renamed.path == ItemPath("/b"))
    let newFile = provider.identifier(for: ItemPath("/b/notes.txt"))
    #expect(newFile != file.identifier)

    #expect(try index.favorites().map(\.identifier) == [renamed.identifier], "the favorite follows")
    #expect(try index.recents(limit: 10).map(\.path).contains(ItemPath("/b/notes.txt")), "Recents follows")
    #expect(try index.items(taggedWith: "Red").map(\.identifier) == [newFile], "the tag follows")
    #expect(try index.content(domain: domain.identifier, identifier: newFile)?.state == .dirty)
    let moved = store.fileURL(domain: domain.identifier, identifier: newFile)
    #expect(try Data(contentsOf: moved) == Data("my edit".utf8), "the cached edit is under the new key")
    #expect(!FileManager.default.fileExists(atPath: cached.path), "the old key is gone")
    #expect(try index.transfer(id: upload)?.identifier == newFile, "the queued upload follows")
    #expect(try index.item(domain: domain.identifier, identifier: file.identifier) == nil)
  }
}
