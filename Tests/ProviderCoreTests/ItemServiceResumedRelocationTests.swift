import Foundation
import ProviderAPI
import Synchronization
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// The renames a provider journaled and finishes after a crash (S3's `S3RelocationJob`) reach the
/// core through `ItemService.resumeRelocations`, which re-keys tags, favorites, Recents and cached
/// content as for a rename that answered at once.
@Suite struct ItemServiceResumedRelocationTests {
  @Test func aRenameFinishedAfterACrashKeepsTagsFavoritesAndRecents() async throws {
    let memory = InMemoryProvider(domain: DomainIdentifier(unchecked: "bucket"))
    let provider = ResumingProvider(base: PathKeyedMemoryProvider(base: memory))
    let folderInner = await memory.add(ItemName("photos"), folder: true)
    _ = await memory.add(ItemName("cat.jpg"), in: folderInner.identifier, content: Data("meow".utf8))
    let index = try WorkingSetIndex.inMemory()
    let cache = FileManager.default.temporaryDirectory.appendingPathComponent("folio-resume-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: cache) }
    let domain = Domain(identifier: provider.domain, displayName: "bucket", provider: provider, localRoot: nil)
    var registry = DomainRegistry(
      local: Domain(identifier: .local, displayName: "This Computer", provider: InMemoryProvider(traits: .localFilesystem), localRoot: .root))
    try registry.add(domain)
    let service = ItemService(registry: registry, index: index, contentRoot: cache)

    let folder = try await provider.item(at: ItemPath("/photos"))
    let file = try await provider.item(at: ItemPath("/photos/cat.jpg"))
    _ = try await service.setFavorite(true, item: folder, in: domain)
    try service.recordOpen(file, in: domain)
    _ = try await service.setTags(["Red"], of: file, in: domain)

    // Nothing journaled: nothing done.
    #expect(try await service.resumeRelocations(in: domain) == 0)
    // A process was killed mid-rename; the journal holds it, and this one finishes it.
    provider.journaled.withLock { $0 = [FinishedRelocation(from: ItemPath("/photos"), to: ItemPath("/albums"))] }
    #expect(try await service.resumeRelocations(in: domain) == 1)

    let newFolder = provider.identifier(for: ItemPath("/albums"))
    let newFile = provider.identifier(for: ItemPath("/albums/cat.jpg"))
    #expect(try index.favorites().map(\.identifier) == [newFolder], "the favorite follows")
    #expect(try index.recents(limit: 10).map(\.path).contains(ItemPath("/albums/cat.jpg")), "Recents follows")
    #expect(try index.items(taggedWith: "Red").map(\.identifier) == [newFile], "the tag follows")
    #expect(try index.item(domain: domain.identifier, identifier: file.identifier) == nil)
  }
}

/// A path-keyed provider with a journal of renames to finish: `resumeUnfinishedRelocations`
/// does them (a rename of the base) and says which.
final class ResumingProvider: ResumableRelocations, @unchecked Sendable {
  let base: PathKeyedMemoryProvider
  let journaled = Mutex<[FinishedRelocation]>([])

  init(base: PathKeyedMemoryProvider) { self.base = base }

  var domain: DomainIdentifier { base.domain }
  var traits: ProviderTraits { base.traits }

  func resumeUnfinishedRelocations(progress: @escaping @Sendable (TransferProgress) -> Void)
    async throws(ProviderError) -> [FinishedRelocation]
  {
    let pending = journaled.withLock { all in
      defer { all = [] }
      return all
    }
    for move in pending {
      let item = try await base.item(at: move.from)
      var template = ItemTemplate(item)
      template.filename = move.to.lastComponent!
      _ = try await base.modifyItem(template, baseVersion: item.version, changedFields: .filename, contents: nil)
    }
    return pending
  }

  func identifier(for path: ItemPath) -> ItemIdentifier { base.identifier(for: path) }
  func path(for identifier: ItemIdentifier) -> ItemPath? { base.path(for: identifier) }
  func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item {
    try await base.item(for: identifier, pathHint: pathHint)
  }
  func item(at path: ItemPath) async throws(ProviderError) -> Item { try await base.item(at: path) }
  func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    try await base.enumerate(request, page: page, progress: progress)
  }
  func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor {
    try await base.currentSyncAnchor(for: container)
  }
  func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch {
    try await base.changes(in: container, since: anchor)
  }
  func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await base.fetchContents(identifier, version: version, to: destination, progress: progress)
  }
  func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await base.createItem(template, fields: fields, contents: contents, options: options, progress: progress)
  }
  func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await base.modifyItem(
      template, baseVersion: baseVersion, changedFields: changedFields, contents: contents, progress: progress)
  }
  func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    try await base.deleteItem(identifier, baseVersion: baseVersion, options: options)
  }
}
