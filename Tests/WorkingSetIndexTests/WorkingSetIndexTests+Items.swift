import Foundation
import GRDB
import ProviderAPI
import Testing

@testable import WorkingSetIndex

/// Item bookkeeping: exact names, refreshes that keep per-user fields, trash, deletion, moves.
@Suite struct WorkingSetIndexItemTests {
  /// Names are bytes: none of these may be changed, merged or lost.
  static let awkwardNames: [[UInt8]] = [
    Array("report".utf8) + [0xFF, 0xFE] + Array(".txt".utf8),  // invalid UTF-8
    Array("notes".utf8) + [0x1B, 0x5B, 0x33, 0x31, 0x6D, 0x0A, 0x07] + Array("end".utf8),  // ESC, newline, bell
    Array("café".precomposedStringWithCanonicalMapping.utf8),  // NFC
    Array("café".decomposedStringWithCanonicalMapping.utf8),  // NFD twin: a different name
    Array("日本語 📁 résumé.md".utf8),
    Array("50% off_sale [1].txt".utf8),  // LIKE and glob metacharacters
    Array("\u{202E}gnp.exe".utf8),  // bidi override
  ]

  @Test(arguments: awkwardNames)
  func awkwardNamesRoundTripExactly(name: [UInt8]) throws {
    let index = try WorkingSetIndex.inMemory()
    let path = Array("/home/u/".utf8) + name
    let item = Fixture.item("x", pathBytes: path)
    try index.upsert([item], domain: Fixture.local, insertNew: true)
    try index.recordUse(of: item, domain: Fixture.local, at: Fixture.date(1))

    let recent = try #require(try index.recents(limit: 5).first)
    #expect(recent.name.bytes == name)
    #expect(recent.path.bytes == path)
    #expect(recent.item().filename == item.filename)
    #expect(try index.item(domain: Fixture.local, path: ItemPath(bytes: path))?.identifier == item.identifier)

    // Search finds it by a word of its readable part, with the exact bytes.
    let word = ItemName(bytes: name).lossyString.split(whereSeparator: { !$0.isLetter }).first.map(String.init)
    if let word {
      let found = try index.search(word, limit: 5)
      #expect(found.map(\.name.bytes) == [name])
    }
  }

  @Test func nfcAndNFDTwinsStayTwoItems() throws {
    let index = try WorkingSetIndex.inMemory()
    let nfc = Fixture.item("nfc", pathBytes: Array("/d/".utf8) + Self.awkwardNames[2], lastUsed: Fixture.date(1))
    let nfd = Fixture.item("nfd", pathBytes: Array("/d/".utf8) + Self.awkwardNames[3], lastUsed: Fixture.date(2))
    try index.upsert([nfc, nfd], domain: Fixture.local, insertNew: true)
    #expect(try index.recents(limit: 5).map(\.name.bytes) == [Self.awkwardNames[3], Self.awkwardNames[2]])
    #expect(try index.item(domain: Fixture.local, path: nfc.path)?.identifier.rawValue == "nfc")
    #expect(try index.item(domain: Fixture.local, path: nfd.path)?.identifier.rawValue == "nfd")
  }

  @Test func aRefreshKeepsThePerUserFieldsTheIndexOwns() throws {
    let index = try WorkingSetIndex.inMemory()
    let item = Fixture.file("a", "/a.txt")
    try index.recordUse(of: item, domain: Fixture.local, at: Fixture.date(5))
    try index.setTags(["Red", "Work"], of: item, domain: Fixture.local)
    let rank = try index.setFavorite(true, item: item, domain: Fixture.local, at: Fixture.date(6))

    // The provider knows nothing of them: nil dates, no tags, no rank; its size changed.
    var refreshed = item
    refreshed.documentSize = 999
    #expect(try index.upsert([refreshed], domain: Fixture.local) == 1)

    let stored = try #require(try index.item(domain: Fixture.local, identifier: item.identifier))
    #expect(stored.size == 999)
    #expect(stored.lastUsed == Fixture.date(5))
    #expect(stored.tags == ["Red", "Work"])
    #expect(stored.favoriteRank == rank)
  }

  @Test func aProviderThatKnowsPerUserFieldsWinsButNeverMovesALastUseBack() throws {
    let index = try WorkingSetIndex.inMemory()
    let item = Fixture.file("a", "/a.txt")
    try index.recordUse(of: item, domain: Fixture.local, at: Fixture.date(5))
    try index.upsert([Fixture.file("a", "/a.txt", lastUsed: Fixture.date(1), tags: ["Blue"])], domain: Fixture.local)
    var stored = try #require(try index.item(domain: Fixture.local, identifier: item.identifier))
    #expect(stored.lastUsed == Fixture.date(5))
    #expect(stored.tags == ["Blue"])

    try index.upsert([Fixture.file("a", "/a.txt", lastUsed: Fixture.date(9))], domain: Fixture.local)
    stored = try #require(try index.item(domain: Fixture.local, identifier: item.identifier))
    #expect(stored.lastUsed == Fixture.date(9))
  }

  @Test func upsertOnlyInsertsWhenAsked() throws {
    let index = try WorkingSetIndex.inMemory()
    let item = Fixture.file("a", "/a.txt")
    #expect(try index.upsert([item], domain: Fixture.local) == 0)
    #expect(try index.item(domain: Fixture.local, identifier: item.identifier) == nil)
    #expect(try index.upsert([item], domain: Fixture.local, insertNew: true) == 1)
    #expect(try index.item(domain: Fixture.local, identifier: item.identifier) != nil)
    // Known but not in the working set: not in Recents.
    #expect(try index.recents(limit: 5).isEmpty)
  }

  @Test func theWorkingSetColumnFollowsEveryReason() throws {
    let index = try WorkingSetIndex.inMemory()
    let item = Fixture.file("a", "/a.txt")
    func inWorkingSet() throws -> Bool {
      try index.writer.read { db in try Bool.fetchOne(db, sql: "SELECT inWorkingSet FROM item WHERE identifier = 'a'") }
        ?? false
    }
    try index.upsert([item], domain: Fixture.local, insertNew: true)
    #expect(try !inWorkingSet())
    try index.setTags(["Red"], of: item, domain: Fixture.local)
    #expect(try inWorkingSet())
    try index.setTags([], of: item, domain: Fixture.local)
    #expect(try !inWorkingSet())
    try index.setFavorite(true, item: item, domain: Fixture.local)
    #expect(try inWorkingSet())
    try index.setFavorite(false, item: item, domain: Fixture.local)
    try index.setMaterialized(true, item: item, domain: Fixture.local)
    #expect(try inWorkingSet())
    try index.setMaterialized(false, item: item, domain: Fixture.local)
    try index.setPinned(true, item: item, domain: Fixture.local)
    #expect(try inWorkingSet())
    #expect(
      try index.item(domain: Fixture.local, identifier: item.identifier)?.item().contentPolicy
        == .downloadEagerlyAndKeepDownloaded)
    try index.setPinned(false, item: item, domain: Fixture.local)
    #expect(try !inWorkingSet())
    var shared = item
    shared.isShared = true
    try index.upsert([shared], domain: Fixture.local)
    #expect(try inWorkingSet())
    try index.upsert([item], domain: Fixture.local)
    #expect(try !inWorkingSet())
    try index.recordUse(of: item, domain: Fixture.local)
    #expect(try inWorkingSet())
  }

  @Test func itemRoundTripsThroughTheIndex() throws {
    let index = try WorkingSetIndex.inMemory()
    let item = Item(
      identifier: ItemIdentifier("f1"), parentIdentifier: ItemIdentifier("p"), filename: ItemName("doc.pdf"),
      path: ItemPath("/docs/doc.pdf"), contentType: .pdf, capabilities: [.reading, .renaming],
      version: try ItemVersion(content: "etag-1", metadata: "m-7"), documentSize: 12_345, childItemCount: nil,
      creationDate: Fixture.date(-100), contentModificationDate: Fixture.date(-50), lastUsedDate: Fixture.date(3),
      tags: ["Green"], favoriteRank: 42, isShared: true, isSharedByCurrentUser: false, ownerName: "Ada",
      mostRecentEditorName: "Grace", contentPolicy: .downloadLazily,
      userInfo: ["pinned": .bool(true), "n": .number(2.5), "s": .string("x"), "when": .date(Fixture.date(7))],
      decorations: [DecorationIdentifier("com.example.badge")], posixPermissions: 0o640)
    try index.upsert([item], domain: Fixture.server, insertNew: true)
    let stored = try #require(try index.item(domain: Fixture.server, identifier: item.identifier))
    #expect(stored.item() == item)
    #expect(stored.domain == Fixture.server)
    #expect(stored.isInWorkingSet)
  }

  @Test func trashRestoreAndDeleteKeepTheBooksStraight() throws {
    let index = try WorkingSetIndex.inMemory()
    let folder = Fixture.folder("F", "/home/u/Projects")
    let child = Fixture.file("c", "/home/u/Projects/plan.txt", parent: "F")
    try index.recordUse(of: child, domain: Fixture.local, at: Fixture.date(1))
    try index.setTags(["Work"], of: child, domain: Fixture.local)
    try index.recordUse(of: folder, domain: Fixture.local, at: Fixture.date(2))

    // Trash the folder: it is in Recently Deleted, and stays in Recents marked as deleted (the
    // working set holds recently deleted items); its child leaves Recents.
    let trashedFolder = Fixture.moved(folder, to: "/home/u/.local/share/Trash/files/Projects", parent: "#trash")
    try index.recordTrashed(trashedFolder, originalPath: folder.path, at: Fixture.date(10), domain: Fixture.local)
    let trashed = try index.trashed(domain: Fixture.local)
    #expect(Fixture.ids(trashed) == ["F"])
    #expect(trashed.first?.originalPath == folder.path)
    #expect(trashed.first?.trashedDate == Fixture.date(10))
    #expect(trashed.first?.item().parentIdentifier == .trash)
    let recentAfterTrash = try index.recents(limit: 10)
    #expect(Fixture.ids(recentAfterTrash) == ["F"])
    #expect(recentAfterTrash.first?.isTrashed == true)
    #expect(try index.items(taggedWith: "Work").isEmpty)
    let hidden = try #require(try index.item(domain: Fixture.local, identifier: child.identifier))
    #expect(hidden.path == ItemPath("/home/u/.local/share/Trash/files/Projects/plan.txt"))
    #expect(hidden.isInsideTrash)
    #expect(!hidden.isInWorkingSet)

    // Put it back: everything returns where it was.
    try index.recordRestored(identifier: folder.identifier, newItem: folder, domain: Fixture.local)
    #expect(try index.trashed().isEmpty)
    #expect(try Fixture.ids(index.recents(limit: 10)) == ["F", "c"])
    let restoredChild = try #require(try index.item(domain: Fixture.local, identifier: child.identifier))
    #expect(restoredChild.path == child.path)
    #expect(!restoredChild.isInsideTrash)
    #expect(restoredChild.tags == ["Work"])
    let restoredFolder = try #require(try index.item(domain: Fixture.local, identifier: folder.identifier))
    #expect(restoredFolder.originalPath == nil && restoredFolder.trashedDate == nil && !restoredFolder.isTrashed)

    // Trash again, then delete forever: the rows and their tags are gone.
    try index.recordTrashed(trashedFolder, originalPath: folder.path, at: Fixture.date(20), domain: Fixture.local)
    #expect(try index.recordDeleted(identifiers: [folder.identifier], domain: Fixture.local) == 2)
    #expect(try index.item(domain: Fixture.local, identifier: child.identifier) == nil)
    #expect(try index.trashed().isEmpty)
    #expect(try index.allTags().isEmpty)
    #expect(try index.search("plan", limit: 5).isEmpty)
  }

  @Test func trashingAnUnindexedFolderStillHidesItsIndexedChildren() throws {
    let index = try WorkingSetIndex.inMemory()
    let child = Fixture.file("c", "/a/b/c.txt", parent: "b")
    try index.recordUse(of: child, domain: Fixture.local, at: Fixture.date(1))
    let trashed = Fixture.moved(Fixture.folder("b", "/a/b"), to: "/trash/b", parent: "#trash")
    try index.recordTrashed(trashed, originalPath: ItemPath("/a/b"), domain: Fixture.local)
    #expect(try index.item(domain: Fixture.local, identifier: child.identifier)?.path == ItemPath("/trash/b/c.txt"))
    // Only the trashed folder itself shows (as deleted); the child it hides does not.
    #expect(try Fixture.ids(index.recents(limit: 5)) == ["b"])
  }

  /// folio-sim's seed 150379: a file moved elsewhere out of a folder this computer then trashed,
  /// the move learned later (an open): at the top, it is out of the trash and back in Recents.
  @Test func aFileMovedOutOfATrashedFolderLeavesTheTrash() throws {
    let index = try WorkingSetIndex.inMemory()
    let folder = Fixture.folder("d", "/d", parent: ItemIdentifier.root.rawValue)
    let file = Fixture.file("f", "/d/f.txt", parent: "d")
    try index.upsert([folder, file], domain: Fixture.server, insertNew: true)
    var trashed = Fixture.moved(folder, to: "/#trash/d", parent: ItemIdentifier.trash.rawValue)
    trashed.originalPath = ItemPath("/d")
    try index.upsert([trashed], domain: Fixture.server)
    #expect(try index.item(domain: Fixture.server, identifier: file.identifier)?.isInsideTrash == true)
    let atTop = Fixture.moved(file, to: "/f.txt", parent: ItemIdentifier.root.rawValue)
    try index.recordUse(of: atTop, domain: Fixture.server, at: Fixture.date(5))
    #expect(try index.item(domain: Fixture.server, identifier: file.identifier)?.isInsideTrash == false)
    #expect(try Fixture.ids(index.recents(limit: 5)).contains("f"))
  }

  /// folio-sim's seed 161827: the index keeps files of a folder but not the folder. The folder
  /// moved elsewhere into a folder this computer trashed: the folder's change (applied without
  /// inserting it) takes its files to their new paths, inside the trash, out of Recents.
  @Test func aFolderTheIndexDoesNotKeepTakesItsFilesAlong() throws {
    let index = try WorkingSetIndex.inMemory()
    let trashed = Fixture.folder("t", "/#trash/docs", parent: ItemIdentifier.trash.rawValue)
    try index.upsert([trashed], domain: Fixture.server, insertNew: true)
    let file = Fixture.file("f", "/emoji/todo.md", parent: "e")
    try index.recordUse(of: file, domain: Fixture.server, at: Fixture.date(1))
    #expect(try index.unindexedFoldersWithChildren(among: ["e", "t", "x"].map(ItemIdentifier.init), domain: Fixture.server) == [ItemIdentifier("e")])
    let folder = Fixture.folder("e", "/#trash/docs/emoji", parent: "t")
    #expect(try index.upsert([folder], domain: Fixture.server, insertNew: false) == 0)
    let row = try #require(try index.item(domain: Fixture.server, identifier: file.identifier))
    #expect(row.path.lossyString == "/#trash/docs/emoji/todo.md")
    #expect(row.isInsideTrash)
    #expect(try index.item(domain: Fixture.server, identifier: folder.identifier) == nil)
    #expect(try !Fixture.ids(index.recents(limit: 5)).contains("f"))
  }

  /// folio-sim's seed 100956: the same kind of folder, inside a folder trashed here, its own
  /// folder not indexed either: an indexed trashed folder above its path keeps its files in
  /// the trash (they were taken out of it, and shown as live).
  @Test func aFolderTheIndexDoesNotKeepUnderATrashedFolderKeepsItsFilesInTheTrash() throws {
    let index = try WorkingSetIndex.inMemory()
    let trashed = Fixture.folder("a", "/#trash/Archive", parent: ItemIdentifier.trash.rawValue)
    try index.upsert([trashed], domain: Fixture.server, insertNew: true)
    let file = Fixture.file("f", "/#trash/Archive/tmp/emoji/cafe.txt", parent: "e")
    try index.recordUse(of: file, domain: Fixture.server, at: Fixture.date(1))
    #expect(try index.item(domain: Fixture.server, identifier: file.identifier)?.isInsideTrash == true)
    let folder = Fixture.folder("e", "/#trash/Archive/tmp/emoji", parent: "tmp")
    try index.upsert([folder], domain: Fixture.server, insertNew: false)
    #expect(try index.item(domain: Fixture.server, identifier: file.identifier)?.isInsideTrash == true)
    // Put back elsewhere (its folder still unknown, nothing trashed above it): out of the trash.
    let restored = Fixture.folder("e", "/tmp/emoji", parent: "tmp")
    try index.upsert([restored], domain: Fixture.server, insertNew: false)
    let row = try #require(try index.item(domain: Fixture.server, identifier: file.identifier))
    #expect(!row.isInsideTrash && row.path.lossyString == "/tmp/emoji/cafe.txt")
  }

  /// folio-sim's seed 193257: two files of a folder the index does not keep, one refreshed alone
  /// after the folder above was renamed elsewhere (a pin looked it up at its new path), the other
  /// still at the old path. The folder above is then trashed: both go into the trash with it,
  /// not only the one its old path covers.
  @Test func filesOfOneUnkeptFolderAtDifferentPathsGoTogether() throws {
    let index = try WorkingSetIndex.inMemory()
    let archive = Fixture.folder("a", "/Archive", parent: ItemIdentifier.root.rawValue)
    try index.upsert([archive], domain: Fixture.server, insertNew: true)
    let stale = Fixture.file("n", "/Archive/emoji/Notes.TXT", parent: "e")
    let refreshed = Fixture.file("c", "/docs/emoji/café.txt", parent: "e")
    try index.recordUse(of: stale, domain: Fixture.server, at: Fixture.date(1))
    try index.recordUse(of: refreshed, domain: Fixture.server, at: Fixture.date(2))
    var trashed = Fixture.moved(archive, to: "/#trash/docs", parent: ItemIdentifier.trash.rawValue)
    trashed.originalPath = ItemPath("/docs")
    try index.upsert([trashed], domain: Fixture.server)
    for (file, path) in [(stale, "/#trash/docs/emoji/Notes.TXT"), (refreshed, "/#trash/docs/emoji/café.txt")] {
      let row = try #require(try index.item(domain: Fixture.server, identifier: file.identifier))
      #expect(row.path.lossyString == path)
      #expect(row.isInsideTrash)
    }
    #expect(try Set(Fixture.ids(index.recents(limit: 5))).isDisjoint(with: ["n", "c"]))
  }

  /// A file made in a folder after the folder was renamed elsewhere has the newer path; when the
  /// folder's last move arrives, the file follows its folder by identifier, whatever its path.
  @Test func aChildWithANewerPathFollowsItsFolder() throws {
    let index = try WorkingSetIndex.inMemory()
    let folder = Fixture.folder("d", "/a", parent: ItemIdentifier.root.rawValue)
    try index.upsert([folder], domain: Fixture.server, insertNew: true)
    let child = Fixture.file("x", "/b/x.txt", parent: "d")
    try index.recordUse(of: child, domain: Fixture.server, at: Fixture.date(1))
    try index.upsert([Fixture.moved(folder, to: "/c")], domain: Fixture.server)
    #expect(try index.item(domain: Fixture.server, identifier: child.identifier)?.path.lossyString == "/c/x.txt")
  }

  /// folio-sim's seed 104933: a folder renamed elsewhere keeps its old path here until the change
  /// arrives; another folder took that name meanwhile. Trashing, moving or deleting the stale one
  /// must not take the other's files by their paths: a file used there left Recents.
  @Test func aStaleFolderPathDoesNotTakeTheFilesOfTheFolderNowThere() throws {
    let index = try WorkingSetIndex.inMemory()
    let stale = Fixture.folder("old", "/tmp", parent: ItemIdentifier.root.rawValue)
    let newcomer = Fixture.folder("new", "/tmp", parent: ItemIdentifier.root.rawValue)
    try index.upsert([stale], domain: Fixture.server, insertNew: true)
    // One file in the folder now at /tmp, that folder indexed; one whose folder is not.
    let inIndexed = Fixture.file("x", "/tmp/x.txt", parent: "new")
    let inUnindexed = Fixture.file("y", "/tmp/y.txt", parent: "unindexed")
    // And a deeper one whose folders in between are unknown: by path it may be the stale one's.
    let deep = Fixture.file("z", "/tmp/sub/z.txt", parent: "sub")
    try index.recordUse(of: inUnindexed, domain: Fixture.server, at: Fixture.date(1))
    try index.recordUse(of: deep, domain: Fixture.server, at: Fixture.date(1))
    try index.upsert([newcomer], domain: Fixture.server, insertNew: true)
    try index.recordUse(of: inIndexed, domain: Fixture.server, at: Fixture.date(2))

    var trashed = Fixture.moved(stale, to: "/#trash/tmp", parent: ItemIdentifier.trash.rawValue)
    trashed.trashedDate = Fixture.date(3)
    trashed.originalPath = ItemPath("/tmp")
    try index.upsert([trashed], domain: Fixture.server)
    for file in [inIndexed, inUnindexed] {
      let row = try #require(try index.item(domain: Fixture.server, identifier: file.identifier))
      #expect(row.path == file.path && !row.isInsideTrash)
    }
    #expect(try index.item(domain: Fixture.server, identifier: deep.identifier)?.isInsideTrash == true)
    #expect(try Set(Fixture.ids(index.recents(limit: 5))) == ["x", "y", "old"])

    // Deleted for good: the files of the folder now at /tmp stay.
    try index.recordDeleted(identifiers: [stale.identifier], domain: Fixture.server)
    #expect(try index.item(domain: Fixture.server, identifier: inIndexed.identifier) != nil)
    #expect(try index.item(domain: Fixture.server, identifier: inUnindexed.identifier) != nil)
    #expect(try index.item(domain: Fixture.server, identifier: deep.identifier) == nil)
  }

  /// folio-sim's seeds 6 and 13: a file made in a folder after the folder went to the trash
  /// elsewhere (its path never under the folder's old one) read as live in Recents.
  @Test func aFileInAFolderTrashedElsewhereIsInsideTheTrashWhicheverCameFirst() throws {
    let index = try WorkingSetIndex.inMemory()
    let folder = Fixture.folder("d", "/d", parent: ItemIdentifier.root.rawValue)
    try index.upsert([folder], domain: Fixture.server, insertNew: true)
    // Made after the trashing (the server's answer already names the trash), learned before it.
    var late = Fixture.file("late", "/#trash/d/late.txt", parent: "d")
    late.lastUsedDate = Fixture.date(2)
    try index.recordUse(of: late, domain: Fixture.server, at: Fixture.date(2))
    #expect(try index.item(domain: Fixture.server, identifier: late.identifier)?.isInsideTrash == false)
    var trashed = Fixture.moved(folder, to: "/#trash/d", parent: ItemIdentifier.trash.rawValue)
    trashed.trashedDate = Fixture.date(3)
    trashed.originalPath = ItemPath("/d")
    try index.upsert([trashed], domain: Fixture.server)
    #expect(try index.item(domain: Fixture.server, identifier: late.identifier)?.isInsideTrash == true)
    #expect(try !Fixture.ids(index.recents(limit: 5)).contains("late"))
    // Learned after it: a new row takes its folder's state.
    let later = Fixture.file("later", "/#trash/d/later.txt", parent: "d")
    try index.recordUse(of: later, domain: Fixture.server, at: Fixture.date(4))
    #expect(try index.item(domain: Fixture.server, identifier: later.identifier)?.isInsideTrash == true)
    // Put back: both come out.
    try index.upsert([folder], domain: Fixture.server)
    #expect(try index.item(domain: Fixture.server, identifier: late.identifier)?.isInsideTrash == false)
    #expect(try index.item(domain: Fixture.server, identifier: later.identifier)?.isInsideTrash == false)
  }

  @Test func aMovedFolderRewritesItsDescendantsPathsAndNothingElse() throws {
    let index = try WorkingSetIndex.inMemory()
    let badByte: [UInt8] = Array("/a/b".utf8) + [0xFF]
    let folder = Fixture.item("b", pathBytes: badByte, type: .folder)
    let inside = [
      Fixture.item("c", pathBytes: badByte + Array("/c.txt".utf8), parent: "b"),
      // Their folder "d" not indexed: found by path.
      Fixture.item("e", pathBytes: badByte + Array("/d/e.txt".utf8), parent: "d"),
      Fixture.item("f", pathBytes: badByte + Array("/d/".utf8) + [0x80, 0x2E], parent: "d"),
    ]
    let outside = [
      Fixture.item("sib", pathBytes: badByte + Array("c.txt".utf8)),  // a sibling sharing the prefix
      Fixture.item("sib2", pathBytes: badByte + Array("0.txt".utf8)),  // '0' follows '/' in byte order
      Fixture.file("pct", "/a/b%/x.txt"),  // what a LIKE 'b%' would catch
      Fixture.file("up", "/a/c.txt"),
    ]
    for item in [folder] + inside + outside {
      try index.recordUse(of: item, domain: Fixture.local, at: Fixture.date(1))
    }
    // The same path in another domain is another item.
    try index.recordUse(of: inside[0], domain: Fixture.server, at: Fixture.date(1))

    let newPath: [UInt8] = Array("/z/renamed ".utf8) + [0xC3]
    var renamed = folder
    renamed.path = ItemPath(bytes: newPath)
    renamed.filename = renamed.path.lastComponent!
    try index.recordMoved(identifier: folder.identifier, to: renamed, domain: Fixture.local)

    for item in inside {
      let suffix = Array(item.path.bytes.dropFirst(badByte.count))
      #expect(try index.item(domain: Fixture.local, identifier: item.identifier)?.path.bytes == newPath + suffix)
    }
    for item in outside {
      #expect(try index.item(domain: Fixture.local, identifier: item.identifier)?.path == item.path)
    }
    #expect(try index.item(domain: Fixture.server, identifier: inside[0].identifier)?.path == inside[0].path)
    #expect(try index.item(domain: Fixture.local, identifier: folder.identifier)?.name == renamed.filename)
  }

  @Test func aMoveUnderANewIdentifierKeepsHistoryAndTags() throws {
    let index = try WorkingSetIndex.inMemory()
    let item = Fixture.file("old", "/a.txt")
    try index.recordUse(of: item, domain: Fixture.local, at: Fixture.date(3))
    try index.setTags(["Red"], of: item, domain: Fixture.local)
    try index.recordMoved(
      identifier: item.identifier, to: Fixture.moved(item, to: "/b.txt", id: "new"), domain: Fixture.local)
    #expect(try index.item(domain: Fixture.local, identifier: item.identifier) == nil)
    let moved = try #require(try index.item(domain: Fixture.local, identifier: ItemIdentifier("new")))
    #expect(moved.lastUsed == Fixture.date(3))
    #expect(moved.tags == ["Red"])
    #expect(try index.tags(of: [ItemIdentifier("new")], domain: Fixture.local) == [ItemIdentifier("new"): ["Red"]])
  }

  @Test func aMoveOfAnUnindexedFolderUsesThePreviousPath() throws {
    let index = try WorkingSetIndex.inMemory()
    let child = Fixture.file("c", "/a/b/c.txt", parent: "b")
    try index.recordUse(of: child, domain: Fixture.local, at: Fixture.date(1))
    try index.recordMoved(
      identifier: ItemIdentifier("b"), to: Fixture.folder("b", "/x/y"), domain: Fixture.local,
      from: ItemPath("/a/b"))
    #expect(try index.item(domain: Fixture.local, identifier: ItemIdentifier("b")) == nil)
    #expect(try index.item(domain: Fixture.local, identifier: child.identifier)?.path == ItemPath("/x/y/c.txt"))
  }

  @Test func removingADomainForgetsIt() throws {
    let index = try WorkingSetIndex.inMemory()
    try index.recordUse(of: Fixture.file("a", "/a"), domain: Fixture.server)
    try index.setTags(["Red"], of: Fixture.file("b", "/b"), domain: Fixture.server)
    try index.recordUse(of: Fixture.file("a", "/a"), domain: Fixture.local)
    try index.setAnchor(try SyncAnchor(Data([1])), domain: Fixture.server)
    try index.enqueueTransfer(.upload, domain: Fixture.server, identifier: ItemIdentifier("a"))
    try index.removeDomain(Fixture.server)
    #expect(try index.recents(limit: 10).map(\.domain) == [Fixture.local])
    #expect(try index.allTags().isEmpty)
    #expect(try index.anchor(domain: Fixture.server) == nil)
    #expect(try index.pendingTransfers().isEmpty)
  }
}
