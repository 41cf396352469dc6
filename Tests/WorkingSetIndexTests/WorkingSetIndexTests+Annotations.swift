import Foundation
import ProviderAPI
import Testing

@testable import WorkingSetIndex

@Suite struct WorkingSetIndexAnnotationTests {
  /// A page's last uses, favorite ranks and index-only tags come back from one read; mirrored tags
  /// and items the index knows nothing about are left out.
  @Test func annotationsOfAPageInOneRead() throws {
    let index = try WorkingSetIndex.inMemory()
    let used = Fixture.file("a", "/p/a")
    let favorite = Fixture.file("b", "/p/b")
    let indexTagged = Fixture.file("c", "/p/c")
    let mirrored = Fixture.file("d", "/p/d")
    try index.recordUse(of: used, domain: Fixture.local, at: Fixture.date(5))
    let rank = try index.setFavorite(true, item: favorite, domain: Fixture.local, at: Fixture.date(6))
    try index.setTags(["Red", "work"], of: indexTagged, domain: Fixture.local, indexOnly: true)
    try index.setTags(["Blue"], of: mirrored, domain: Fixture.local, indexOnly: false)
    // The same identifier in another domain is another item.
    try index.recordUse(of: Fixture.file("e", "/p/e"), domain: Fixture.server, at: Fixture.date(7))

    let ids = ["a", "b", "c", "d", "e", "unknown"].map(ItemIdentifier.init)
    let got = try index.annotations(of: ids, domain: Fixture.local)
    #expect(got[ItemIdentifier("a")] == ItemAnnotation(lastUsed: Fixture.date(5)))
    #expect(got[ItemIdentifier("b")] == ItemAnnotation(favoriteRank: rank))
    #expect(got[ItemIdentifier("c")] == ItemAnnotation(indexOnlyTags: ["Red", "work"]))
    #expect(got[ItemIdentifier("d")] == nil)
    #expect(got[ItemIdentifier("e")] == nil)
    #expect(got.count == 3)
  }

  /// More identifiers than one `IN (…)` takes are read in chunks.
  @Test func largePagesAreChunked() throws {
    let index = try WorkingSetIndex.inMemory()
    let items = (0..<1_200).map { Fixture.file("i\($0)", "/p/i\($0)") }
    for (k, item) in items.enumerated() where k % 100 == 99 {
      try index.recordUse(of: item, domain: Fixture.local, at: Fixture.date(k))
    }
    let got = try index.annotations(of: items.map(\.identifier), domain: Fixture.local)
    #expect(got.count == 12)
    #expect(got[ItemIdentifier("i1199")]?.lastUsed == Fixture.date(1_199))
    #expect(try index.annotations(of: [], domain: Fixture.local).isEmpty)
  }
}
