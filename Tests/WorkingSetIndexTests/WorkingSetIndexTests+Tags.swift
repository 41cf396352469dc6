import Foundation
import ProviderAPI
import Testing

@testable import WorkingSetIndex

/// Tags and favorites.
@Suite struct WorkingSetIndexTagTests {
  @Test func tagsAreStoredInOrderWithoutDuplicates() throws {
    let index = try WorkingSetIndex.inMemory()
    let a = Fixture.file("a", "/a.txt")
    let b = Fixture.file("b", "/b.txt")
    try index.setTags(["Work", "Red", "", "Work", "naïve, tags"], of: a, domain: Fixture.local)
    try index.setTags(["Red"], of: b, domain: Fixture.local)
    try index.setTags(["Red"], of: Fixture.file("c", "/c.txt"), domain: Fixture.server)

    #expect(
      try index.tags(of: [a.identifier, b.identifier, ItemIdentifier("zz")], domain: Fixture.local) == [
        a.identifier: ["Work", "Red", "naïve, tags"], b.identifier: ["Red"],
      ])
    let all = try index.allTags()
    #expect(all.map(\.name) == ["Red", "Work", "naïve, tags"])
    #expect(all.map(\.count) == [3, 1, 1])
    #expect(Set(try Fixture.ids(index.items(taggedWith: "Red"))) == ["a", "b", "c"])

    // Items in Recently Deleted are not counted, nor listed; back from it, they are again.
    try index.recordTrashed(b, originalPath: b.path, domain: Fixture.local)
    #expect(try index.allTags().map(\.count) == [2, 1, 1])
    #expect(Set(try Fixture.ids(index.items(taggedWith: "Red"))) == ["a", "c"])
    try index.recordRestored(identifier: b.identifier, newItem: b, domain: Fixture.local)
    #expect(try index.allTags().map(\.count) == [3, 1, 1])

    try index.setTags([], of: a, domain: Fixture.local)
    #expect(try index.tags(of: [a.identifier], domain: Fixture.local).isEmpty)
    #expect(try index.allTags().map(\.name) == ["Red"])
    #expect(try index.recents(limit: 10).map(\.identifier).contains(a.identifier) == false)
  }

  /// "Green" and "green" are one tag, spelled as first written: a later spelling joins it, the
  /// sidebar counts one, and a lookup in any case finds every item (issue 13).
  @Test func tagsAreOneWhateverTheirCase() throws {
    let index = try WorkingSetIndex.inMemory()
    let a = Fixture.file("a", "/a.txt")
    let b = Fixture.file("b", "/b.txt")
    let c = Fixture.file("c", "/c.txt")
    try index.setTags(["Green"], of: a, domain: Fixture.local)
    // Mirrored from another tool's xattr in another case, and twice in one list.
    try index.setTags(["green", "GREEN", "Äpfel"], of: b, domain: Fixture.local)
    try index.setTags(["äpfel"], of: c, domain: Fixture.server, indexOnly: true)

    #expect(try index.tags(of: [b.identifier], domain: Fixture.local) == [b.identifier: ["Green", "Äpfel"]])
    #expect(try index.tags(of: [c.identifier], domain: Fixture.server) == [c.identifier: ["Äpfel"]])
    let all = try index.allTags()
    #expect(all.map(\.name) == ["Green", "Äpfel"])
    #expect(all.map(\.count) == [2, 2])
    for spelled in ["green", "GREEN", "Green"] {
      #expect(Set(try Fixture.ids(index.items(taggedWith: spelled))) == ["a", "b"], "\(spelled)")
    }
    #expect(Set(try Fixture.ids(index.items(taggedWith: "ÄPFEL"))) == ["b", "c"])
    #expect(try index.spellings(of: ["gReEn", "new", "äPFEL"]) == ["Green", "new", "Äpfel"])
  }

  @Test func favoritesAreRankedByEpochMillisecondsInTheOrderAdded() throws {
    let index = try WorkingSetIndex.inMemory()
    let a = Fixture.folder("a", "/A")
    let b = Fixture.folder("b", "/B")
    let c = Fixture.folder("c", "/C")
    let rankA = try index.setFavorite(true, item: a, domain: Fixture.local, at: Fixture.date(0))
    // Same millisecond, and then a clock that went backwards: still appended after.
    let rankB = try index.setFavorite(true, item: b, domain: Fixture.local, at: Fixture.date(0))
    let rankC = try index.setFavorite(true, item: c, domain: Fixture.server, at: Fixture.date(-60))
    #expect(rankA == 1_700_000_000_000)
    #expect(rankB == 1_700_000_000_001)
    #expect(rankC == 1_700_000_000_002)
    #expect(try Fixture.ids(index.favorites()) == ["a", "b", "c"])

    // Favoriting again keeps the rank; an explicit rank reorders; off removes.
    #expect(try index.setFavorite(true, item: a, domain: Fixture.local, at: Fixture.date(100)) == rankA)
    try index.setFavoriteRank(1, item: c, domain: Fixture.server)
    #expect(try Fixture.ids(index.favorites()) == ["c", "a", "b"])
    #expect(try index.setFavorite(false, item: b, domain: Fixture.local) == nil)
    #expect(try Fixture.ids(index.favorites()) == ["c", "a"])
    #expect(
      try index.favoriteRanks(of: [a.identifier, b.identifier, c.identifier], domain: Fixture.local) == [
        a.identifier: 1_700_000_000_000
      ])
  }

  @Test func anUnrankedFavoriteFromAProviderGetsARank() throws {
    let index = try WorkingSetIndex.inMemory()
    var folder = Fixture.folder("a", "/A")
    folder.favoriteRank = UInt64.max  // NSFileProviderFavoriteRankUnranked
    try index.upsert([folder], domain: Fixture.local, insertNew: true)
    let rank = try #require(try index.item(domain: Fixture.local, identifier: folder.identifier)?.favoriteRank)
    #expect(rank < UInt64(Int64.max))
    try index.upsert([folder], domain: Fixture.local)
    #expect(try index.item(domain: Fixture.local, identifier: folder.identifier)?.favoriteRank == rank)
  }
}
