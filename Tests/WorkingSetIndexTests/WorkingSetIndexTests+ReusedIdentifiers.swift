import Foundation
import ProviderAPI
import Testing

@testable import WorkingSetIndex

/// Issue 9: a filesystem gives a deleted file's inode to the next file it makes, so a local
/// identifier can come back naming another item. The index tells them apart by creation date and
/// never credits the new file with the old one's tags, favorite or last use.
@Suite struct WorkingSetIndexReusedIdentifierTests {
  static func created(_ item: Item, _ offset: Int) -> Item {
    var i = item
    i.creationDate = Fixture.date(offset)
    return i
  }

  @Test func aNewItemUnderAReusedIdentifierInheritsNothing() throws {
    let index = try WorkingSetIndex.inMemory()
    let old = Self.created(Fixture.file("fe:42", "/home/ana/notes.txt", tags: ["Red"]), 0)
    try index.recordUse(of: old, domain: Fixture.local, at: Fixture.date(10))
    try index.setTags(["Red"], of: old, domain: Fixture.local, indexOnly: true)
    _ = try index.setFavorite(true, item: old, domain: Fixture.local)
    #expect(try index.annotations(of: [old.identifier], domain: Fixture.local)[old.identifier]?.favoriteRank != nil)

    // Deleted elsewhere; a new file gets the inode, listed by the provider.
    let new = Self.created(Fixture.file("fe:42", "/home/ana/other.txt"), 500)
    try index.upsert([new], domain: Fixture.local)
    #expect(try index.recents(limit: 10).isEmpty, "the old entry is gone, and the new file was never opened")
    #expect(try index.favorites().isEmpty)
    #expect(try index.items(taggedWith: "Red").isEmpty)

    // Annotations read before any write (a page being shown) say when the row was made.
    try index.recordUse(of: old, domain: Fixture.local, at: Fixture.date(20))
    let a = try #require(try index.annotations(of: [old.identifier], domain: Fixture.local)[old.identifier])
    #expect(a.created == Fixture.date(0))
  }

  @Test func theSameItemKeepsItsHistory() throws {
    let index = try WorkingSetIndex.inMemory()
    let item = Self.created(Fixture.file("fe:43", "/home/ana/keep.txt"), 0)
    try index.recordUse(of: item, domain: Fixture.local, at: Fixture.date(10))
    try index.upsert([Fixture.moved(item, to: "/home/ana/kept.txt")], domain: Fixture.local)
    #expect(try index.recents(limit: 10).map(\.path) == [ItemPath("/home/ana/kept.txt")])
  }
}
