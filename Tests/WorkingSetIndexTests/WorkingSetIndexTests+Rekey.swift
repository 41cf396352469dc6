import Foundation
import ProviderAPI
import Testing

@testable import WorkingSetIndex

/// Issue 10: storage whose identifiers are paths gives a renamed item — and everything below a
/// folder — new identifiers. Nothing the index keeps may be lost by a rename.
@Suite struct WorkingSetIndexRekeyTests {
  /// A path-keyed provider's identifiers: "p:" and the path; the root is `.root`.
  static let identifier: @Sendable (ItemPath) -> ItemIdentifier = { path in
    path == .root ? .root : ItemIdentifier("p:" + path.lossyString)
  }

  static let path: @Sendable (ItemIdentifier) -> ItemPath? = { id in
    id == .root ? .root : (id.rawValue.hasPrefix("p:") ? ItemPath(String(id.rawValue.dropFirst(2))) : nil)
  }

  static func item(_ path: String, folder: Bool = false) -> Item {
    let p = ItemPath(path)
    return Item(
      identifier: identifier(p), parentIdentifier: identifier(p.parent), filename: p.lastComponent!, path: p,
      contentType: folder ? .folder : .plainText)
  }

  @Test func aFolderRenameMovesTagsFavoritesRecentsContentTransfersAndConflicts() throws {
    let index = try WorkingSetIndex.inMemory()
    let d = Fixture.server
    let folder = Self.item("/a", folder: true)
    let file = Self.item("/a/b/notes.txt")
    let copy = Self.item("/a/b/notes (conflict).txt")
    let outside = Self.item("/ab.txt")
    _ = try index.setFavorite(true, item: folder, domain: d)
    try index.recordUse(of: file, domain: d, at: Fixture.date(1))
    try index.setTags(["Red"], of: file, domain: d, indexOnly: true)
    try index.recordUse(of: outside, domain: d, at: Fixture.date(2))
    try index.recordMaterialized(
      MaterializedContent(
        domain: d, identifier: file.identifier, version: .empty, size: 5, sha256: "ab", fileStamp: "s",
        lastAccess: Fixture.date(1), state: .dirty), item: file)
    let upload = try index.enqueueTransfer(.upload, domain: d, identifier: file.identifier)
    let create = try index.enqueueTransfer(
      .upload, domain: d, identifier: ItemIdentifier("placeholder-1"), parent: Self.identifier(ItemPath("/a/b")),
      name: ItemName("new.txt"))
    try index.recordUse(of: copy, domain: d, at: Fixture.date(3))
    try index.recordConflict(
      SyncConflict(domain: d, original: file.identifier, copy: copy.identifier, reason: .staleBase, detected: Fixture.date(3)))

    let replaced = try index.rekey(domain: d, from: ItemPath("/a"), to: ItemPath("/c"), identifier: Self.identifier, path: Self.path)
    #expect(Set(replaced.map(\.old.rawValue)) == ["p:/a", "p:/a/b/notes.txt", "p:/a/b/notes (conflict).txt"])

    let moved = try #require(try index.item(domain: d, identifier: ItemIdentifier("p:/c/b/notes.txt")))
    #expect(moved.path == ItemPath("/c/b/notes.txt"))
    #expect(moved.item().parentIdentifier == ItemIdentifier("p:/c/b"))
    #expect(try index.item(domain: d, identifier: file.identifier) == nil, "no row keeps the old identifier")
    #expect(try index.items(taggedWith: "Red").map(\.identifier) == [ItemIdentifier("p:/c/b/notes.txt")])
    #expect(try index.favorites().map(\.identifier) == [ItemIdentifier("p:/c")])
    #expect(try index.favorites().first?.path == ItemPath("/c"))
    #expect(try index.recents(limit: 10).map(\.path).contains(ItemPath("/ab.txt")), "a sibling with a common prefix stays")
    #expect(try index.content(domain: d, identifier: ItemIdentifier("p:/c/b/notes.txt"))?.state == .dirty)
    #expect(try index.content(domain: d, identifier: file.identifier) == nil)
    #expect(try index.transfer(id: upload)?.identifier == ItemIdentifier("p:/c/b/notes.txt"))
    #expect(try index.transfer(id: create)?.parentIdentifier == ItemIdentifier("p:/c/b"))
    let conflict = try #require(try index.conflicts(domain: d).first)
    #expect(conflict.original == ItemIdentifier("p:/c/b/notes.txt"))
    #expect(conflict.copy == ItemIdentifier("p:/c/b/notes (conflict).txt"))
    #expect(try index.search("notes", limit: 10).allSatisfy { $0.path.lossyString.hasPrefix("/c/") }, "search finds the new paths")
  }

  @Test func aRenameOntoAStaleRowKeepsTheMovedItemsHistory() throws {
    let index = try WorkingSetIndex.inMemory()
    let d = Fixture.server
    let old = Self.item("/x.txt")
    let stale = Self.item("/y.txt")
    try index.recordUse(of: old, domain: d, at: Fixture.date(5))
    try index.upsert([stale], domain: d, insertNew: true)
    try index.rekey(domain: d, from: ItemPath("/x.txt"), to: ItemPath("/y.txt"), identifier: Self.identifier, path: Self.path)
    let rows = try index.recents(limit: 10)
    #expect(rows.map(\.path) == [ItemPath("/y.txt")])
    #expect(rows.first?.lastUsed == Fixture.date(5))
  }
}
