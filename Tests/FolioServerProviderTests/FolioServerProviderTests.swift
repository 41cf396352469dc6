import Crypto
import FolioProtocol
import FolioServerProvider
import Foundation
import ProviderAPI
import Testing

/// The provider against a real `folio serve` on loopback: paging, mapping, trash, copies,
/// declarations and actions.
@Suite("FolioServerProvider", .serialized)
struct FolioServerProviderTests {
  @Test func pagesA1000ItemFolderWithoutRepeatsOrGaps() async throws {
    let fx = try await ServerFixture()
    let ana = fx.provider()
    let big = try await ana.createItem(folderTemplate("big"), fields: [], contents: nil, options: [])
    // Every tenth name is hidden: pages must still come full when hidden items are left out.
    let names = (0..<1000).map { i in (i % 10 == 3 ? ".h" : "item-") + String(format: "%04d", i) }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for chunk in stride(from: 0, to: names.count, by: 125) {
        group.addTask {
          for name in names[chunk..<min(chunk + 125, names.count)] {
            _ = try await ana.createItem(folderTemplate(name, in: big.identifier), fields: [], contents: nil, options: [])
          }
        }
      }
      try await group.waitForAll()
    }

    var seen: [ItemName] = []
    var page: Page?
    var sizes: [Int] = []
    repeat {
      let r = try await ana.enumerate(
        EnumerationRequest(container: big.identifier, includeHidden: true, suggestedPageSize: 128), page: page,
        progress: { _ in })
      #expect(r.totalCount == 1000)
      #expect((r.nextPage?.data.count ?? 0) <= 500)
      sizes.append(r.items.count)
      seen += r.items.map(\.filename)
      page = r.nextPage
    } while page != nil
    #expect(sizes == [128, 128, 128, 128, 128, 128, 128, 104])
    #expect(seen == names.sorted().map { ItemName($0) })

    // Without hidden items: 900, in full pages of 100.
    var visible: [ItemName] = []
    sizes = []
    page = nil
    repeat {
      let r = try await ana.enumerate(
        EnumerationRequest(container: big.identifier, includeHidden: false, suggestedPageSize: 100), page: page,
        progress: { _ in })
      sizes.append(r.items.count)
      visible += r.items.map(\.filename)
      page = r.nextPage
    } while page != nil
    #expect(sizes.dropLast().allSatisfy { $0 == 100 } && visible.count == 900)
    #expect(visible == names.filter { !$0.hasPrefix(".") }.sorted().map { ItemName($0) })

    // A token the server never made is pageExpired (the enumeration starts over).
    let bogus = await #expect(throws: ProviderError.self) {
      try await ana.enumerate(
        EnumerationRequest(container: big.identifier, suggestedPageSize: 10), page: try Page(Data("bogus".utf8)),
        progress: { _ in })
    }
    #expect(bogus?.code == .pageExpired)

    // Descending name order, a different page size.
    let reversed = try await listAll(
      ana, big.identifier, pageSize: 333, sort: ItemSort(key: .name, ascending: false, foldersFirst: true))
    #expect(reversed.map(\.filename) == names.sorted().reversed().map { ItemName($0) })
  }

  @Test func sortsFoldersFirstByNameSizeAndDate() async throws {
    let fx = try await ServerFixture()
    let ana = fx.provider()
    for (name, size) in [("b.txt", 30), ("a.txt", 10), ("c.txt", 20)] {
      _ = try await ana.createItem(fileTemplate(name), fields: [], contents: try temporaryFile(size), options: [])
    }
    _ = try await ana.createItem(folderTemplate("z-folder"), fields: [], contents: nil, options: [])
    let byName = try await listAll(ana, .root)
    #expect(byName.map(\.filename.lossyString) == ["z-folder", "a.txt", "b.txt", "c.txt"])
    let bySize = try await listAll(ana, .root, sort: ItemSort(key: .size, ascending: true, foldersFirst: false))
    #expect(bySize.filter { !$0.isFolder }.map(\.filename.lossyString) == ["a.txt", "c.txt", "b.txt"])
    let byKind = try await listAll(ana, .root, sort: ItemSort(key: .kind, ascending: true, foldersFirst: false))
    #expect(byKind.first?.filename == ItemName("z-folder"))
    let byDate = try await listAll(ana, .root, sort: ItemSort(key: .date, ascending: false, foldersFirst: false))
    #expect(byDate.count == 4)
  }

  @Test func itemsCarryOwnerSharingAndPerUserFields() async throws {
    let fx = try await ServerFixture()
    let ana = fx.provider()
    let ben = fx.provider("ben")
    let docs = try await ana.createItem(folderTemplate("Docs"), fields: [], contents: nil, options: [])
    let note = try await ana.createItem(fileTemplate("note.md", in: docs.identifier), fields: [], contents: try temporaryFile(5), options: [])
    #expect(note.path == ItemPath("/Docs/note.md") && note.parentIdentifier == docs.identifier)
    #expect(note.contentType.identifier == "net.daringfireball.markdown" && note.documentSize == 5)
    #expect(!note.isShared && note.ownerName == nil && !note.isDownloaded)

    var t = ItemTemplate(note)
    t.tags = ["Red", "Work"]
    let tagged = try await ana.modifyItem(t, baseVersion: note.version, changedFields: .tagData, contents: nil)
    #expect(tagged.tags == ["Red", "Work"])
    t.favoriteRank = 5
    _ = try await ana.modifyItem(t, baseVersion: tagged.version, changedFields: .favoriteRank, contents: nil)

    let seenByBen = try await ben.item(at: ItemPath("/Docs/note.md"))
    #expect(seenByBen.identifier == note.identifier)
    #expect(seenByBen.isShared && seenByBen.ownerName == "ana")
    #expect(seenByBen.decorations.contains(DecorationIdentifier("sharedBy")))
    // Tags and favorites are per user.
    #expect(seenByBen.tags.isEmpty && seenByBen.favoriteRank == nil)
    let again = try await ana.item(for: note.identifier, pathHint: nil)
    #expect(again.tags == ["Red", "Work"] && again.favoriteRank == 5)

    let root = try await ana.item(at: .root)
    #expect(root.identifier == .root && root.filename == ItemName("Work") && root.isFolder)
    await #expect(throws: ProviderError.self) { try await ana.item(at: ItemPath("/Docs/missing")) }
    await #expect(throws: ProviderError.self) { try await ana.item(at: ItemPath(bytes: [0x2F, 0xFF])) }
  }

  @Test func renamesMovesAndRefusesTakenNames() async throws {
    let fx = try await ServerFixture()
    let ana = fx.provider()
    let a = try await ana.createItem(folderTemplate("A"), fields: [], contents: nil, options: [])
    let b = try await ana.createItem(folderTemplate("B"), fields: [], contents: nil, options: [])
    let f = try await ana.createItem(fileTemplate("f.txt", in: a.identifier), fields: [], contents: try temporaryFile(3), options: [])
    var t = ItemTemplate(f)
    t.filename = ItemName("g.txt")
    t.parentIdentifier = b.identifier
    let moved = try await ana.modifyItem(t, baseVersion: f.version, changedFields: [.filename, .parentItemIdentifier], contents: nil)
    #expect(moved.path == ItemPath("/B/g.txt") && moved.identifier == f.identifier)
    #expect(moved.version.content == f.version.content && moved.version.metadata != f.version.metadata)

    var clash = ItemTemplate(a)
    clash.filename = ItemName("B")
    let error = await #expect(throws: ProviderError.self) {
      try await ana.modifyItem(clash, baseVersion: a.version, changedFields: .filename, contents: nil)
    }
    #expect(error?.code == .filenameCollision && error?.existingItem == b.identifier)
    let dup = await #expect(throws: ProviderError.self) {
      try await ana.createItem(folderTemplate("A"), fields: [], contents: nil, options: [])
    }
    #expect(dup?.code == .filenameCollision)
    // A re-import merges into the existing folder.
    let merged = try await ana.createItem(folderTemplate("A"), fields: [], contents: nil, options: .mayAlreadyExist)
    #expect(merged.identifier == a.identifier)
    // Names that are not names never leave the client.
    let bad = await #expect(throws: ProviderError.self) {
      try await ana.createItem(ItemTemplate(parentIdentifier: .root, filename: ItemName(".."), contentType: .folder),
        fields: [], contents: nil, options: [])
    }
    #expect(bad?.code == .invalidArgument)
  }

  @Test func trashRestoreCopyAndDeleteForever() async throws {
    let fx = try await ServerFixture()
    let ana = fx.provider()
    let docs = try await ana.createItem(folderTemplate("Docs"), fields: [], contents: nil, options: [])
    let f = try await ana.createItem(fileTemplate("a.txt", in: docs.identifier), fields: [], contents: try temporaryFile(4), options: [])
    var t = ItemTemplate(f)
    t.parentIdentifier = .trash
    let trashed = try await ana.modifyItem(t, baseVersion: f.version, changedFields: .parentItemIdentifier, contents: nil)
    #expect(trashed.isTrashed && trashed.originalPath == ItemPath("/Docs/a.txt") && trashed.trashedDate != nil)
    let inTrash = try await listAll(ana, .trash)
    #expect(inTrash.map(\.identifier) == [f.identifier])
    #expect(try await listAll(ana, docs.identifier).isEmpty)

    // Keep Both: the name taken meanwhile, the server restores it under the name asked for.
    let other = try await ana.createItem(fileTemplate("a.txt", in: docs.identifier), fields: [], contents: try temporaryFile(2), options: [])
    let taken = await #expect(throws: ProviderError.self) { try await ana.restoreItem(f.identifier, to: nil) }
    #expect(taken?.code == .filenameCollision)
    let both = try await ana.restoreItem(f.identifier, to: nil, as: ItemName("a 2.txt"))
    #expect(both.path == ItemPath("/Docs/a 2.txt") && !both.isTrashed && both.documentSize == 4)
    var back = ItemTemplate(both)
    back.parentIdentifier = .trash
    _ = try await ana.modifyItem(back, baseVersion: both.version, changedFields: .parentItemIdentifier, contents: nil)
    try await ana.deleteItem(other.identifier, baseVersion: nil, options: .recursive)

    // It keeps the name it was restored with.
    let restored = try await ana.restoreItem(f.identifier, to: nil)
    #expect(restored.path == ItemPath("/Docs/a 2.txt") && !restored.isTrashed)

    let copy = try await ana.copyItem(f.identifier, to: .root, name: nil)
    #expect(copy.identifier != f.identifier && copy.path == ItemPath("/a 2.txt") && copy.documentSize == 4)

    // A stale base refuses the delete (an edit beats a delete); a fresh one deletes.
    let newer = try await ana.modifyItem(ItemTemplate(copy), baseVersion: copy.version, changedFields: .contents, contents: try temporaryFile(9))
    let refused = await #expect(throws: ProviderError.self) {
      try await ana.deleteItem(copy.identifier, baseVersion: copy.version, options: .recursive)
    }
    #expect(refused?.code == .deletionRejected)
    let notEmpty = await #expect(throws: ProviderError.self) {
      try await ana.deleteItem(docs.identifier, baseVersion: nil, options: [])
    }
    #expect(notEmpty?.code == .directoryNotEmpty)
    try await ana.deleteItem(copy.identifier, baseVersion: newer.version, options: .recursive)
    try await ana.deleteItem(docs.identifier, baseVersion: nil, options: .recursive)
    try await ana.deleteItem(ItemIdentifier("never-existed"), baseVersion: nil, options: .recursive)
    #expect(try await listAll(ana, .root).isEmpty)
    await #expect(throws: ProviderError.self) { try await ana.item(for: f.identifier, pathHint: nil) }
  }

  @Test func declarationsArriveWithSignInAndActionsRunOnTheServer() async throws {
    let fx = try await ServerFixture()
    let ana = fx.provider()
    let ben = fx.provider("ben")
    #expect(ana.actionDeclarations.isEmpty)
    let f = try await ana.createItem(fileTemplate("plan.txt"), fields: [], contents: try temporaryFile(10), options: [])
    let ids = ana.actionDeclarations.map(\.identifier.rawValue)
    #expect(ids.contains("lock") && ids.contains("unlock"))
    #expect(ana.decorationDeclarations.map(\.identifier.rawValue).contains("conflict"))
    let lock = try #require(ana.actionDeclarations.first { $0.identifier.rawValue == "lock" })
    #expect(lock.activationRule.matches(ActivationContext(selection: [f])))

    try await ana.performAction(ActionIdentifier("lock"), on: [f.identifier])
    let locked = try await ana.item(for: f.identifier, pathHint: nil)
    #expect(locked.userInfo["locked"] == .bool(true) && locked.decorations.contains(DecorationIdentifier("locked")))
    #expect(locked.capabilities.contains(.writing))
    let lockedForBen = try await ben.item(for: f.identifier, pathHint: nil)
    #expect(!lockedForBen.capabilities.contains(.writing))
    let refused = await #expect(throws: ProviderError.self) {
      try await ben.modifyItem(ItemTemplate(lockedForBen), baseVersion: lockedForBen.version, changedFields: .contents,
        contents: try temporaryFile(3))
    }
    // Issue 9 item 7: the lock has its own code and advice, and Unlock is offered only to who may.
    #expect(refused?.code == .itemLocked)
    #expect(refused?.message.contains("locked by ana") == true)
    #expect(refused?.recoverySuggestion?.contains("unlock") == true)
    let unlock = try #require(ana.actionDeclarations.first { $0.identifier.rawValue == "unlock" })
    #expect(unlock.activationRule.matches(ActivationContext(selection: [locked])))
    #expect(!unlock.activationRule.matches(ActivationContext(selection: [lockedForBen])))
  }
}
