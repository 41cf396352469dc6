import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// Remote changes into the index: working-set items only, stale content, pins, and
/// reconciliation that never reads a missing entry as a deletion.
@Suite struct WorkingSetSyncTests {
  func sync(_ f: SyncFixture) async throws -> WorkingSetSync.Summary {
    try await f.engine.syncChanges(of: SyncFixture.cloud)
  }

  func used(_ f: SyncFixture, _ name: String, in parent: ItemIdentifier = .root, content: String = "x") async throws -> Item {
    let item = await f.memory.add(ItemName(name), in: parent, content: Data(content.utf8))
    try f.index.recordUse(of: item, domain: SyncFixture.cloud)
    return item
  }

  @Test func changesOfKnownItemsAreAppliedAndOthersAreNotIndexed() async throws {
    let f = try SyncFixture()
    let a = try await used(f, "a.txt")
    let b = try await used(f, "b.txt")
    #expect(try await sync(f).reconciled)
    let stranger = await f.memory.add(ItemName("not-in-the-working-set.txt"))
    var t = ItemTemplate(try await f.memory.item(for: a.identifier))
    t.filename = ItemName("renamed.txt")
    _ = try await f.memory.modifyItem(t, baseVersion: a.version, changedFields: .filename, contents: nil)
    try await f.memory.deleteItem(b.identifier, baseVersion: nil, options: [])
    let recorder = await SyncEventRecorder.follow(f.engine.events)
    let summary = try await sync(f)
    #expect(!summary.reconciled && summary.deleted == 1)
    #expect(try f.index.item(domain: SyncFixture.cloud, identifier: a.identifier)?.path == ItemPath("/renamed.txt"))
    #expect(try f.index.item(domain: SyncFixture.cloud, identifier: b.identifier) == nil)
    #expect(try f.index.item(domain: SyncFixture.cloud, identifier: stranger.identifier) == nil)
    await recorder.wait { $0.contains(.itemsChanged(SyncFixture.cloud, updated: [a.identifier], deleted: [b.identifier])) }
  }

  /// folio-sim's seed 203161: a file two levels down, in folders the working set does not hold.
  /// The top folder is renamed, then trashed elsewhere, and reaches this computer as one change
  /// naming only its last place. The sync keeps the folders between the file and the top (not in
  /// Recents), so the file follows them into the trash instead of keeping a path that is gone.
  @Test func aFileFollowsAFolderTwoLevelsUpRenamedAndTrashedElsewhere() async throws {
    let f = try SyncFixture()
    let top = await f.memory.add(ItemName("tmp"), folder: true)
    let middle = await f.memory.add(ItemName("docs"), in: top.identifier, folder: true)
    _ = try await sync(f)
    let file = try await used(f, "x.txt", in: middle.identifier)
    _ = try await sync(f)
    for folder in [top, middle] {
      #expect(try f.index.item(domain: SyncFixture.cloud, identifier: folder.identifier)?.path == folder.path)
    }
    #expect(try f.index.recents(limit: 10).map(\.identifier) == [file.identifier])

    var t = ItemTemplate(try await f.memory.item(for: top.identifier))
    t.filename = ItemName("docs")
    let renamed = try await f.memory.modifyItem(t, baseVersion: top.version, changedFields: .filename, contents: nil)
    t = ItemTemplate(renamed)
    t.parentIdentifier = .trash
    _ = try await f.memory.modifyItem(t, baseVersion: renamed.version, changedFields: .parentItemIdentifier, contents: nil)
    _ = try await sync(f)
    let now = try await f.memory.item(for: file.identifier)
    let row = try #require(try f.index.item(domain: SyncFixture.cloud, identifier: file.identifier))
    #expect(row.path == now.path && row.path != file.path)
    #expect(row.isInsideTrash)
    #expect(try !f.index.recents(limit: 10).map(\.identifier).contains(file.identifier))
  }

  @Test func aRemoteChangeMakesMaterializedContentStaleAndTheNextOpenFetchesIt() async throws {
    let f = try SyncFixture()
    let a = await f.memory.add(ItemName("a.txt"), content: Data("v1".utf8))
    _ = try await sync(f)
    _ = try await f.engine.materialize(a, in: f.domain)
    let newer = try await f.remoteEdit(a.identifier, "v2")
    #expect(try await sync(f).staleContent == 1)
    #expect(try f.index.content(domain: SyncFixture.cloud, identifier: a.identifier)?.state == .stale)
    let url = try await f.engine.materialize(newer, in: f.domain)
    #expect(try String(contentsOf: url, encoding: .utf8) == "v2")
    #expect(try f.index.content(domain: SyncFixture.cloud, identifier: a.identifier)?.state == .clean)
  }

  @Test func pinnedContentIsDownloadedAgainAtOnce() async throws {
    let f = try SyncFixture()
    let folder = await f.memory.add(ItemName("Offline"), folder: true)
    let a = await f.memory.add(ItemName("a.txt"), in: folder.identifier, content: Data("v1".utf8))
    _ = try await sync(f)
    let queued = try await f.engine.pin(folder, in: f.domain)
    #expect(queued.count == 1)
    #expect(await f.queue.drain().succeeded)
    try await f.remoteEdit(a.identifier, "v2")
    _ = try await sync(f)
    #expect(try f.index.pendingTransfers().map(\.direction) == [.download])
    #expect(await f.queue.drain().succeeded)
    let local = try #require(try f.store.localFile(domain: SyncFixture.cloud, identifier: a.identifier))
    #expect(try String(contentsOf: local.url, encoding: .utf8) == "v2")
  }

  /// F09/D1: with an expired anchor, a listing that fails deletes nothing and keeps no anchor.
  @Test func aFailingListingDeletesNothing() async throws {
    let f = try SyncFixture()
    let a = try await used(f, "a.txt")
    _ = try await sync(f)
    try f.index.setAnchor(try SyncAnchor(Data("999999".utf8)), domain: SyncFixture.cloud)  // expired
    await f.memory.setHook { call throws(ProviderError) in
      if call == .enumerateWorkingSet { throw ProviderError(.serverBusy, "503 maintenance") }
    }
    await #expect(throws: ProviderError.self) { _ = try await sync(f) }
    #expect(try f.index.item(domain: SyncFixture.cloud, identifier: a.identifier) != nil)
    #expect(try f.index.anchor(domain: SyncFixture.cloud) == nil)
  }

  /// F09: an empty listing is not an empty server: each known item is asked for by identifier.
  @Test func anEmptyListingDeletesOnlyWhatIsReallyGone() async throws {
    let f = try SyncFixture()
    let kept = try await used(f, "kept.txt")
    let gone = try await used(f, "gone.txt")
    _ = try await sync(f)
    try await f.memory.deleteItem(gone.identifier, baseVersion: nil, options: [])
    f.provider.set { $0.emptyWorkingSetListing = true }
    try f.index.setAnchor(try SyncAnchor(Data("garbage".utf8)), domain: SyncFixture.cloud)
    let summary = try await sync(f)
    #expect(summary.reconciled && summary.deleted == 1 && summary.heldDeletions.isEmpty)
    #expect(try f.index.item(domain: SyncFixture.cloud, identifier: kept.identifier) != nil)
    #expect(try f.index.item(domain: SyncFixture.cloud, identifier: gone.identifier) == nil)
    #expect(try f.index.anchor(domain: SyncFixture.cloud) != nil)
  }

  /// I9: a reconciliation that would delete most of the known items holds them back.
  @Test func aMassDeletionIsHeldBack() async throws {
    let f = try SyncFixture()
    var items: [Item] = []
    for i in 0..<12 { items.append(try await used(f, "f\(i)")) }
    _ = try await sync(f)
    for item in items.prefix(11) { try await f.memory.deleteItem(item.identifier, baseVersion: nil, options: []) }
    try f.index.setAnchor(nil, domain: SyncFixture.cloud)
    let summary = try await sync(f)
    #expect(summary.heldDeletions.count == 11 && summary.deleted == 0)
    #expect(try f.index.itemIdentifiers(domain: SyncFixture.cloud).count == 12)
    #expect(try f.index.anchor(domain: SyncFixture.cloud) == nil)
    let confirmed = try await f.engine.syncChanges(of: SyncFixture.cloud, allowMassDeletion: true)
    #expect(confirmed.deleted == 11)
  }

  @Test func aPushSignalSyncsWithoutBeingAsked() async throws {
    let f = try SyncFixture()
    let a = try await used(f, "a.txt")
    _ = try await sync(f)
    let recorder = await SyncEventRecorder.follow(f.engine.events)
    let sync = try #require(f.engine.workingSetSync(for: SyncFixture.cloud))
    await sync.start()
    var t = ItemTemplate(try await f.memory.item(for: a.identifier))
    t.filename = ItemName("pushed.txt")
    _ = try await f.memory.modifyItem(t, baseVersion: a.version, changedFields: .filename, contents: nil)
    f.provider.push()
    await recorder.wait { $0.contains { if case .itemsChanged = $0 { true } else { false } } }
    await sync.stop()
    #expect(try f.index.item(domain: SyncFixture.cloud, identifier: a.identifier)?.name == ItemName("pushed.txt"))
  }
}
