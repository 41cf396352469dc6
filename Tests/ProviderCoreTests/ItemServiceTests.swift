import Foundation
import LocalProvider
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A LocalProvider on a real temporary folder, with its own trash and an in-memory index.
struct LocalFixture {
  let tmp = ScratchFolder()
  let provider: LocalProvider
  let index: WorkingSetIndex
  let domain: Domain
  let service: ItemService

  init() throws {
    // No mount table: only the home trash inside the temporary folder is ever read or emptied.
    let environment = FreedesktopTrash.Environment(
      home: tmp.path, dataHome: tmp.child(".data"), uid: getuid(), mountTable: tmp.child("no-mount-table"))
    provider = LocalProvider(trash: FreedesktopTrash(environment: environment))
    index = try WorkingSetIndex.inMemory()
    domain = Domain(identifier: .local, displayName: "This Computer", provider: provider, localRoot: .root)
    service = ItemService(registry: DomainRegistry(local: domain), index: index)
  }

  func item(_ path: ItemPath) async throws -> Item { try await provider.item(at: path) }

  /// Recents without the recently deleted items (whether Recents lists those, marked, is the
  /// index's choice; where they are not is what these tests check).
  func liveRecents() throws -> [IndexedItem] { try index.recents(limit: 100).filter { !$0.isTrashed } }

  /// Whether the temporary folder's filesystem takes user xattrs.
  var hasUserXattrs: Bool {
    let probe = tmp.makeFile("xattr-probe")
    defer { _ = probe.withCString { unlink($0) } }
    do {
      try XattrTags().write(["probe"], at: probe)
      return true
    } catch {
      return false
    }
  }
}

/// A remote-like domain over an InMemoryProvider (or any provider), with an in-memory index.
struct MemoryFixture {
  let memory: InMemoryProvider
  let index: WorkingSetIndex
  let domain: Domain
  let service: ItemService

  init(provider: (any Provider)? = nil, memory: InMemoryProvider = InMemoryProvider()) throws {
    self.memory = memory
    index = try WorkingSetIndex.inMemory()
    let p: any Provider = provider ?? memory
    domain = Domain(identifier: p.domain, displayName: "Memory", provider: p, localRoot: nil)
    let local = Domain(identifier: .local, displayName: "This Computer", provider: InMemoryProvider(traits: .localFilesystem), localRoot: .root)
    var registry = DomainRegistry(local: local)
    try registry.add(domain)
    service = ItemService(registry: registry, index: index)
  }
}

/// Storage that cannot hold tags, like a filesystem without user xattrs (vfat, some NFS): tag
/// changes are refused with `featureUnsupported`; everything else goes to an InMemoryProvider.
struct TaglessProvider: Provider {
  let base: InMemoryProvider

  var domain: DomainIdentifier { base.domain }
  var traits: ProviderTraits { base.traits }

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
    try await base.createItem(
      template, fields: fields.subtracting(.tagData), contents: contents, options: options, progress: progress)
  }

  func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    if changedFields.contains(.tagData) {
      throw ProviderError(.featureUnsupported, "this filesystem does not support user extended attributes")
    }
    return try await base.modifyItem(
      template, baseVersion: baseVersion, changedFields: changedFields, contents: contents, progress: progress)
  }

  func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    try await base.deleteItem(identifier, baseVersion: baseVersion, options: options)
  }

  func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?) async throws(ProviderError) -> Item {
    try await base.restoreItem(identifier, to: parent)
  }
}

@Suite struct ItemServiceWorkingSetTests {
  @Test func recordOpenPutsTheItemFirstInRecents() async throws {
    let f = try LocalFixture()
    let a = try await f.item(f.tmp.makeFile("a.txt"))
    let b = try await f.item(f.tmp.makeFile("b.txt"))
    let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    try f.service.recordOpen(a, in: f.domain, at: t0)
    try f.service.recordOpen(b, in: f.domain, at: t0 + 60)
    #expect(try f.index.recents(limit: 10).map(\.identifier) == [b.identifier, a.identifier])

    try f.service.recordOpen(a, in: f.domain, at: t0 + 120)
    let recents = try f.index.recents(limit: 10)
    #expect(recents.map(\.identifier) == [a.identifier, b.identifier])
    #expect(recents.first?.path == f.tmp.child("a.txt"))
    #expect(recents.first?.lastUsed == t0 + 120)

    // The provider knows nothing of last use; reading through the service merges it back.
    #expect(try await f.provider.item(at: a.path).lastUsedDate == nil)
    #expect(try await f.service.item(at: a.path, in: f.domain).lastUsedDate == t0 + 120)
    #expect(f.service.annotate([b], domain: f.domain.identifier).first?.lastUsedDate == t0 + 60)
  }

  @Test func setTagsWritesTheXattrAndMirrorsTheIndex() async throws {
    let f = try LocalFixture()
    guard f.hasUserXattrs else {
      print("no user xattrs under /var/tmp here; the tagless path is covered with TaglessProvider")
      return
    }
    let report = try await f.item(f.tmp.makeFile("Quarterly report.pdf", content: "%PDF"))
    let other = try await f.item(f.tmp.makeFile("other.txt"))

    let tagged = try await f.service.setTags([" Red", "work ", "Red"], of: report, in: f.domain)
    #expect(tagged.tags == ["Red", "work"])
    // Stored where other tools see it: the user.xdg.tags xattr, read back through the provider.
    #expect(try await f.provider.item(for: report.identifier).tags == ["Red", "work"])
    #expect(try XattrTags().read(at: report.path) == ["Red", "work"])
    #expect(try XattrTags().read(at: other.path) == [])

    // Mirrored in the index for the Tags sidebar, tag lists and search.
    #expect(try f.index.allTags().map(\.name) == ["Red", "work"])
    #expect(try f.index.allTags().map(\.count) == [1, 1])
    #expect(try f.index.items(taggedWith: "work").map(\.identifier) == [report.identifier])
    #expect(try f.index.items(taggedWith: "Red").first?.path == report.path)
    #expect(try f.index.search("work", limit: 10).map(\.identifier) == [report.identifier])
    #expect(try f.index.recents(limit: 10, tag: "Red").map(\.identifier) == [report.identifier])

    // Replacing the tags replaces them everywhere; no tags removes the attribute.
    _ = try await f.service.setTags(["Blue"], of: tagged, in: f.domain)
    #expect(try XattrTags().read(at: report.path) == ["Blue"])
    #expect(try f.index.allTags().map(\.name) == ["Blue"])
    #expect(try f.index.items(taggedWith: "work").isEmpty)
    _ = try await f.service.setTags([], of: tagged, in: f.domain)
    #expect(try await f.provider.item(for: report.identifier).tags == [])
    #expect(try f.index.allTags().isEmpty)
    #expect(try f.index.search("Blue", limit: 10).isEmpty)
  }

  /// Tags another tool removed from the xattr must not come back from the index's mirror.
  @Test func mirroredTagsRemovedOutsideFolioDoNotComeBack() async throws {
    let f = try LocalFixture()
    guard f.hasUserXattrs else { return }
    let file = try await f.item(f.tmp.makeFile("notes.txt"))
    _ = try await f.service.setTags(["Red"], of: file, in: f.domain)
    try XattrTags().write([], at: file.path)
    #expect(try await f.service.item(at: file.path, in: f.domain).tags == [])
  }

  @Test(arguments: [[""], ["   "], ["a,b"], ["ok", ","]])
  func invalidTagsAreRefusedBeforeAnythingIsWritten(_ tags: [String]) async throws {
    let f = try LocalFixture()
    let file = try await f.item(f.tmp.makeFile("file.txt"))
    let error = await #expect(throws: ProviderError.self) { try await f.service.setTags(tags, of: file, in: f.domain) }
    #expect(error?.code == .invalidArgument)
    #expect(try f.index.allTags().isEmpty)
    #expect(try f.index.item(domain: .local, identifier: file.identifier) == nil)
    #expect(try await f.provider.item(for: file.identifier).tags == [])
  }

  @Test func aTagIsTrimmedTheSameWayInTheXattrAndTheIndex() async throws {
    // The xattr format trims every kind of white space around a tag; the index mirror must
    // hold exactly what the attribute holds, or the Tags sidebar lists a tag no file has.
    let f = try LocalFixture()
    guard f.hasUserXattrs else { return }
    let file = try await f.item(f.tmp.makeFile("file.txt"))
    let tagged = try await f.service.setTags(["work\n", "\tRed"], of: file, in: f.domain)
    let stored = try XattrTags().read(at: file.path)
    #expect(stored == ["work", "Red"])
    #expect(tagged.tags == stored)
    #expect(try f.index.allTags().map(\.name).sorted() == stored.sorted())
  }

  @Test func withoutUserXattrsTheIndexKeepsTheTagsAndAnnotateMergesThem() async throws {
    let memory = InMemoryProvider()
    let f = try MemoryFixture(provider: TaglessProvider(base: memory), memory: memory)
    let notes = await memory.add(ItemName("notes.txt"))
    let plain = await memory.add(ItemName("plain.txt"))

    let tagged = try await f.service.setTags(["Blue", "later"], of: notes, in: f.domain)
    #expect(tagged.tags == ["Blue", "later"])
    // The storage has no tags...
    #expect(try await memory.item(for: notes.identifier).tags == [])
    // ...the index has them, and merges them into what the provider returns.
    #expect(try f.index.tags(of: [notes.identifier], domain: f.domain.identifier) == [notes.identifier: ["Blue", "later"]])
    #expect(try await f.service.item(at: notes.path, in: f.domain).tags == ["Blue", "later"])
    let fresh = try await memory.item(for: notes.identifier)
    let annotated = f.service.annotate([fresh, plain], domain: f.domain.identifier)
    #expect(annotated.map(\.tags) == [["Blue", "later"], []])
    #expect(try f.index.allTags().map(\.name) == ["Blue", "later"])
    #expect(try f.index.items(taggedWith: "later").map(\.identifier) == [notes.identifier])

    // Clearing them clears the index too, so nothing is merged back.
    _ = try await f.service.setTags([], of: tagged, in: f.domain)
    #expect(try await f.service.item(at: notes.path, in: f.domain).tags == [])
    #expect(try f.index.allTags().isEmpty)
  }

  @Test func aProviderFailureWhileTaggingRecordsNothing() async throws {
    let f = try MemoryFixture()
    let file = await f.memory.add(ItemName("file.txt"))
    await f.memory.setHook { call throws(ProviderError) in
      if call == .modify { throw ProviderError(.serverUnreachable, "offline") }
    }
    let error = await #expect(throws: ProviderError.self) { try await f.service.setTags(["Red"], of: file, in: f.domain) }
    #expect(error?.code == .serverUnreachable)
    #expect(try f.index.allTags().isEmpty)
    #expect(try f.index.item(domain: f.domain.identifier, identifier: file.identifier) == nil)
  }

  @Test func favoritesListInTheOrderTheyWereAddedAndAnnotateCarriesTheRank() async throws {
    let f = try LocalFixture()
    let a = try await f.item(f.tmp.makeFolder("A"))
    let b = try await f.item(f.tmp.makeFolder("B"))
    let c = try await f.item(f.tmp.makeFolder("C"))
    // Added C, A, B: listed C, A, B, whatever their names.
    let rc = try await f.service.setFavorite(true, item: c, in: f.domain)
    let ra = try await f.service.setFavorite(true, item: a, in: f.domain)
    let rb = try await f.service.setFavorite(true, item: b, in: f.domain)
    #expect(try f.index.favorites().map(\.identifier) == [c.identifier, a.identifier, b.identifier])
    let ranks = [rc, ra, rb].map(\.favoriteRank)
    #expect(ranks.allSatisfy { $0 != nil })
    #expect(ranks.compactMap { $0 } == ranks.compactMap { $0 }.sorted())
    #expect(Set(ranks).count == 3)
    #expect(try f.index.favorites().map(\.favoriteRank) == ranks)
    // The local filesystem has nowhere to keep a favorite: the index does, annotate merges it.
    #expect(try await f.provider.item(for: a.identifier).favoriteRank == nil)
    #expect(f.service.annotate([a, b, c], domain: .local).map(\.favoriteRank) == [ra, rb, rc].map(\.favoriteRank))

    // Making a favorite again keeps its place.
    let again = try await f.service.setFavorite(true, item: a, in: f.domain)
    #expect(again.favoriteRank == ra.favoriteRank)

    // Off: gone from the list and from annotate; on again: last.
    let off = try await f.service.setFavorite(false, item: a, in: f.domain)
    #expect(off.favoriteRank == nil)
    #expect(try f.index.favorites().map(\.identifier) == [c.identifier, b.identifier])
    #expect(f.service.annotate([a], domain: .local).first?.favoriteRank == nil)
    let back = try await f.service.setFavorite(true, item: a, in: f.domain)
    #expect(try f.index.favorites().map(\.identifier) == [c.identifier, b.identifier, a.identifier])
    #expect((back.favoriteRank ?? 0) > (rb.favoriteRank ?? .max))
  }

  @Test func aRemoteFavoriteIsStoredByTheProviderToo() async throws {
    let f = try MemoryFixture()
    let folder = await f.memory.add(ItemName("Projects"), folder: true)
    let on = try await f.service.setFavorite(true, item: folder, in: f.domain)
    let rank = try #require(on.favoriteRank)
    #expect(try await f.memory.item(for: folder.identifier).favoriteRank == rank)
    #expect(try f.index.favorites().map(\.identifier) == [folder.identifier])

    let off = try await f.service.setFavorite(false, item: on, in: f.domain)
    #expect(off.favoriteRank == nil)
    #expect(try await f.memory.item(for: folder.identifier).favoriteRank == nil)
    #expect(try f.index.favorites().isEmpty)
  }

  @Test func aRemoteFavoriteTheProviderRefusesRecordsNothing() async throws {
    let f = try MemoryFixture()
    let folder = await f.memory.add(ItemName("Projects"), folder: true)
    await f.memory.setHook { call throws(ProviderError) in
      if call == .modify { throw ProviderError(.notAuthenticated, "signed out") }
    }
    let error = await #expect(throws: ProviderError.self) {
      try await f.service.setFavorite(true, item: folder, in: f.domain)
    }
    #expect(error?.code == .notAuthenticated)
    #expect(try f.index.favorites().isEmpty)
    #expect(try f.index.item(domain: f.domain.identifier, identifier: folder.identifier) == nil)
  }
}

@Suite struct ItemServiceOrganizingTests {
  @Test func renameAndMoveRewriteTheIndexedPaths() async throws {
    let f = try LocalFixture()
    let docsPath = f.tmp.makeFolder("docs")
    let archivePath = f.tmp.makeFolder("archive")
    let notePath = f.tmp.makeFile("note.txt", in: docsPath)
    let note = try await f.item(notePath)
    let docs = try await f.item(docsPath)
    let archive = try await f.item(archivePath)
    try f.service.recordOpen(note, in: f.domain)

    // The folder was never used itself; its recent child still follows the rename.
    let papers = try await f.service.rename(docs, to: ItemName("papers"), in: f.domain)
    #expect(papers.identifier == docs.identifier)
    #expect(papers.path == f.tmp.child("papers"))
    let renamedNote = f.tmp.child("papers").appending(ItemName("note.txt"))
    #expect(try f.index.item(domain: .local, identifier: note.identifier)?.path == renamedNote)
    #expect(try f.index.item(domain: .local, path: renamedNote)?.identifier == note.identifier)
    #expect(try f.index.item(domain: .local, path: notePath) == nil)

    // A move does the same, one level deeper.
    let moved = try await f.service.move(papers, to: archive, in: f.domain)
    let movedNote = archivePath.appending(ItemName("papers")).appending(ItemName("note.txt"))
    #expect(moved.path == archivePath.appending(ItemName("papers")))
    #expect(try f.index.recents(limit: 10).map(\.path) == [movedNote])
    #expect(ScratchFolder.exists(movedNote))

    // Renaming the indexed file itself updates its own row: name and path.
    let current = try await f.item(movedNote)
    let renamed = try await f.service.rename(current, to: ItemName("-rf $(x)\n.txt"), in: f.domain)
    let row = try #require(try f.index.item(domain: .local, identifier: note.identifier))
    #expect(row.name == ItemName("-rf $(x)\n.txt"))
    #expect(row.path == renamed.path)
    #expect(row.lastUsed != nil)
  }

  @Test func aRefusedRenameOrMoveRecordsNothing() async throws {
    let f = try LocalFixture()
    let a = try await f.item(f.tmp.makeFile("a.txt", content: "A"))
    let b = try await f.item(f.tmp.makeFile("b.txt", content: "B"))
    let folder = try await f.item(f.tmp.makeFolder("folder"))
    let clash = try await f.item(f.tmp.makeFile("a.txt", in: folder.path))

    let renameError = await #expect(throws: ProviderError.self) {
      try await f.service.rename(a, to: ItemName("b.txt"), in: f.domain)
    }
    #expect(renameError?.code == .filenameCollision)
    let moveError = await #expect(throws: ProviderError.self) { try await f.service.move(a, to: folder, in: f.domain) }
    #expect(moveError?.code == .filenameCollision)
    #expect(moveError?.existingItem == clash.identifier)
    // Nothing moved on disk, and the index claims nothing.
    #expect(ScratchFolder.read(a.path) == bytes("A"))
    #expect(ScratchFolder.read(b.path) == bytes("B"))
    #expect(try f.index.item(domain: .local, identifier: a.identifier) == nil)
    #expect(try f.index.recents(limit: 10).isEmpty)

    // An indexed item keeps its row as it was.
    try f.service.recordOpen(a, in: f.domain)
    let before = try f.index.item(domain: .local, identifier: a.identifier)
    await #expect(throws: ProviderError.self) { try await f.service.rename(a, to: ItemName("b.txt"), in: f.domain) }
    await #expect(throws: ProviderError.self) { try await f.service.move(a, to: folder, in: f.domain) }
    #expect(try f.index.item(domain: .local, identifier: a.identifier) == before)
  }

  @Test func invalidNamesAreRefusedBeforeTheProviderIsAsked() async throws {
    let f = try MemoryFixture()
    let file = await f.memory.add(ItemName("file.txt"))
    for name in [ItemName(bytes: []), ItemName("a/b"), ItemName(".."), ItemName(bytes: [0x61, 0, 0x62])] {
      let error = await #expect(throws: ProviderError.self) { try await f.service.rename(file, to: name, in: f.domain) }
      #expect(error?.code == .invalidArgument)
    }
    #expect(await !f.memory.calls.contains(.modify))
  }
}

@Suite struct ItemServiceTrashTests {
  @Test func trashGoesToRecentlyDeletedAndRestoreBringsItBack() async throws {
    let f = try LocalFixture()
    let xPath = f.tmp.makeFile("x.txt", content: "x")
    let x = try await f.item(xPath)
    try f.service.recordOpen(x, in: f.domain)

    let trashed = try await f.service.trash(x, in: f.domain)
    #expect(trashed.isTrashed)
    #expect(!ScratchFolder.exists(xPath))
    let deleted = try f.index.trashed(domain: .local)
    #expect(deleted.map(\.identifier) == [x.identifier])
    #expect(deleted.first?.originalPath == xPath)
    #expect(deleted.first?.trashedDate != nil)
    #expect(try f.liveRecents().isEmpty)
    #expect(try f.index.recents(limit: 10).allSatisfy { $0.isTrashed && $0.originalPath == xPath })
    #expect(try await f.service.trashedItems(in: f.domain).map(\.identifier) == [x.identifier])

    let restored = try await f.service.restore(trashed, in: f.domain)
    #expect(restored.path == xPath)
    #expect(!restored.isTrashed)
    #expect(ScratchFolder.read(xPath) == bytes("x"))
    #expect(try f.index.trashed().isEmpty)
    let recents = try f.index.recents(limit: 10)
    #expect(recents.map(\.identifier) == [x.identifier])
    #expect(recents.first?.path == xPath)
    #expect(recents.first?.originalPath == nil)
    #expect(try await f.service.trashedItems(in: f.domain).isEmpty)
  }

  @Test func aTrashedFolderTakesItsIndexedChildrenAlongAndBack() async throws {
    let f = try LocalFixture()
    let projPath = f.tmp.makeFolder("proj")
    let notePath = f.tmp.makeFile("notes.txt", in: projPath)
    let note = try await f.item(notePath)
    try f.service.recordOpen(note, in: f.domain)
    let proj = try await f.item(projPath)

    let trashed = try await f.service.trash(proj, in: f.domain)
    let inside = try #require(try f.index.item(domain: .local, identifier: note.identifier))
    #expect(inside.isInsideTrash)
    #expect(!inside.isInWorkingSet)
    #expect(try f.liveRecents().isEmpty)
    #expect(try f.index.trashed().map(\.identifier) == [proj.identifier])

    _ = try await f.service.restore(trashed, in: f.domain)
    let back = try #require(try f.index.item(domain: .local, identifier: note.identifier))
    #expect(!back.isInsideTrash)
    #expect(back.path == notePath)
    #expect(try f.liveRecents().map(\.identifier) == [note.identifier])
  }

  @Test func deleteForeverForgetsTheItem() async throws {
    let f = try LocalFixture()
    let x = try await f.item(f.tmp.makeFile("x.txt"))
    try f.service.recordOpen(x, in: f.domain)
    let trashed = try await f.service.trash(x, in: f.domain)
    try await f.service.deleteForever(trashed, in: f.domain)
    #expect(try f.index.item(domain: .local, identifier: x.identifier) == nil)
    #expect(try f.index.trashed().isEmpty)
    #expect(try await f.service.trashedItems(in: f.domain).isEmpty)
  }

  @Test func emptyTrashDeletesEverythingAndForgetsIt() async throws {
    let f = try LocalFixture()
    let a = try await f.item(f.tmp.makeFile("a.txt"))
    let b = try await f.item(f.tmp.makeFolder("b"))
    let kept = try await f.item(f.tmp.makeFile("kept.txt"))
    try f.service.recordOpen(a, in: f.domain)
    try f.service.recordOpen(kept, in: f.domain)
    _ = try await f.service.trash(a, in: f.domain)
    _ = try await f.service.trash(b, in: f.domain)
    #expect(try f.index.trashed().count == 2)

    #expect(try await f.service.emptyTrash(in: f.domain) == 2)
    #expect(try f.index.trashed().isEmpty)
    #expect(try f.index.item(domain: .local, identifier: a.identifier) == nil)
    #expect(try await f.service.trashedItems(in: f.domain).isEmpty)
    #expect(try f.liveRecents().map(\.identifier) == [kept.identifier])
    #expect(try await f.service.emptyTrash(in: f.domain) == 0)
  }

  @Test func aRestoreOntoATakenNameIsRefusedAndRecordsNothing() async throws {
    let f = try LocalFixture()
    let path = f.tmp.makeFile("a.txt", content: "old")
    let old = try await f.item(path)
    try f.service.recordOpen(old, in: f.domain)
    let trashed = try await f.service.trash(old, in: f.domain)
    f.tmp.makeFile("a.txt", content: "new")

    let error = await #expect(throws: ProviderError.self) { try await f.service.restore(trashed, in: f.domain) }
    #expect(error?.code == .filenameCollision)
    #expect(ScratchFolder.read(path) == bytes("new"))
    #expect(try f.index.trashed().map(\.identifier) == [old.identifier])
    #expect(try f.liveRecents().isEmpty)
  }
}

/// Restore on a provider other than the local one: InMemoryProvider puts items back in the live
/// folder at their original path, and never recreates one.
@Suite struct ItemServiceRemoteTrashTests {
  @Test func restorePutsTheItemBackInItsFolderWithItsChildren() async throws {
    let f = try MemoryFixture()
    let docs = await f.memory.add(ItemName("docs"), folder: true)
    let sub = await f.memory.add(ItemName("sub"), in: docs.identifier, folder: true)
    let leaf = await f.memory.add(ItemName("leaf.txt"), in: sub.identifier)
    try f.service.recordOpen(leaf, in: f.domain)

    let trashed = try await f.service.trash(sub, in: f.domain)
    #expect(trashed.originalPath == ItemPath("/docs/sub"))
    #expect(trashed.trashedDate != nil)
    #expect(try await f.service.trashedItems(in: f.domain).map(\.identifier) == [sub.identifier])
    // Children follow their folder: paths are under the trash, not where they were.
    let leafInTrash = try await f.memory.item(for: leaf.identifier)
    #expect(leafInTrash.path != leaf.path)
    #expect(try f.index.item(domain: f.domain.identifier, identifier: leaf.identifier)?.isInsideTrash == true)
    await #expect(throws: ProviderError.self) { try await f.memory.item(at: ItemPath("/docs/sub/leaf.txt")) }

    let restored = try await f.service.restore(trashed, in: f.domain)
    #expect(restored.parentIdentifier == docs.identifier)
    #expect(restored.path == ItemPath("/docs/sub"))
    #expect(restored.originalPath == nil && restored.trashedDate == nil)
    #expect(try await f.memory.item(at: ItemPath("/docs/sub/leaf.txt")).identifier == leaf.identifier)
    #expect(try await f.service.trashedItems(in: f.domain).isEmpty)
    let row = try #require(try f.index.item(domain: f.domain.identifier, identifier: leaf.identifier))
    #expect(!row.isInsideTrash)
    #expect(row.path == ItemPath("/docs/sub/leaf.txt"))
  }

  @Test func restoreNeverRecreatesAFolderThatIsGone() async throws {
    let f = try MemoryFixture()
    let docs = await f.memory.add(ItemName("docs"), folder: true)
    let file = await f.memory.add(ItemName("a.txt"), in: docs.identifier)
    let trashed = try await f.service.trash(file, in: f.domain)
    try await f.service.deleteForever(docs, in: f.domain)

    let error = await #expect(throws: ProviderError.self) { try await f.service.restore(trashed, in: f.domain) }
    #expect(error?.code == .noSuchItem)
    #expect(error?.message.contains("/docs") == true)
    #expect(try await f.memory.item(for: file.identifier).isTrashed)
    #expect(try f.index.trashed().map(\.identifier) == [file.identifier])
  }

  @Test func restoreIntoAFolderThatIsItselfInTheTrashIsRefused() async throws {
    let f = try MemoryFixture()
    let docs = await f.memory.add(ItemName("docs"), folder: true)
    let file = await f.memory.add(ItemName("a.txt"), in: docs.identifier)
    let trashedFile = try await f.service.trash(file, in: f.domain)
    _ = try await f.service.trash(docs, in: f.domain)

    let error = await #expect(throws: ProviderError.self) { try await f.service.restore(trashedFile, in: f.domain) }
    #expect(error?.code == .noSuchItem)
    // An explicit parent in the trash is refused too.
    let explicit = await #expect(throws: ProviderError.self) {
      try await f.memory.restoreItem(file.identifier, to: docs.identifier)
    }
    #expect(explicit?.code == .invalidArgument)
  }

  @Test func restoreOntoATakenNameIsACollisionAndNothingMoves() async throws {
    let f = try MemoryFixture()
    let file = await f.memory.add(ItemName("a.txt"), content: Data("old".utf8))
    try f.service.recordOpen(file, in: f.domain)
    let trashed = try await f.service.trash(file, in: f.domain)
    let newer = await f.memory.add(ItemName("a.txt"), content: Data("new".utf8))

    let error = await #expect(throws: ProviderError.self) { try await f.service.restore(trashed, in: f.domain) }
    #expect(error?.code == .filenameCollision)
    #expect(error?.existingItem == newer.identifier)
    #expect(try await f.memory.item(for: file.identifier).isTrashed)
    #expect(try await f.memory.item(at: ItemPath("/a.txt")).identifier == newer.identifier)
    #expect(try f.index.trashed().map(\.identifier) == [file.identifier])
  }

  @Test func theTrashHoldsSeveralItemsOfTheSameName() async throws {
    let f = try MemoryFixture()
    let first = await f.memory.add(ItemName("a.txt"), content: Data("1".utf8))
    let firstTrashed = try await f.service.trash(first, in: f.domain)
    let second = await f.memory.add(ItemName("a.txt"), content: Data("2".utf8))
    let secondTrashed = try await f.service.trash(second, in: f.domain)
    #expect(Set(try await f.service.trashedItems(in: f.domain).map(\.identifier)) == [first.identifier, second.identifier])
    #expect(Set(try f.index.trashed().map(\.identifier)) == [first.identifier, second.identifier])

    // Only one of them can go back.
    _ = try await f.service.restore(secondTrashed, in: f.domain)
    let error = await #expect(throws: ProviderError.self) { try await f.service.restore(firstTrashed, in: f.domain) }
    #expect(error?.code == .filenameCollision)
    #expect(try await f.memory.item(at: ItemPath("/a.txt")).identifier == second.identifier)
    #expect(try f.index.trashed().map(\.identifier) == [first.identifier])
  }

  @Test func restoreToAChosenFolder() async throws {
    let f = try MemoryFixture()
    let file = await f.memory.add(ItemName("a.txt"))
    let elsewhere = await f.memory.add(ItemName("elsewhere"), folder: true)
    _ = try await f.service.trash(file, in: f.domain)
    let restored = try await f.memory.restoreItem(file.identifier, to: elsewhere.identifier)
    #expect(restored.parentIdentifier == elsewhere.identifier)
    #expect(restored.path == ItemPath("/elsewhere/a.txt"))
    // Only trashed items can be restored.
    let error = await #expect(throws: ProviderError.self) { try await f.memory.restoreItem(file.identifier, to: nil) }
    #expect(error?.code == .invalidArgument)
  }

  @Test func emptyTrashOnARemoteDomain() async throws {
    let f = try MemoryFixture()
    let a = await f.memory.add(ItemName("a.txt"))
    let b = await f.memory.add(ItemName("b.txt"))
    _ = try await f.service.trash(a, in: f.domain)
    _ = try await f.service.trash(b, in: f.domain)
    #expect(try await f.service.emptyTrash(in: f.domain) == 2)
    await #expect(throws: ProviderError.self) { try await f.memory.item(for: a.identifier) }
    #expect(try f.index.trashed().isEmpty)
  }
}
