import Foundation
import ProviderAPI
import Testing

@testable import WorkingSetIndex

/// The listing poller's absences: what a complete listing lacked once survives the process that
/// saw it, and goes when the item is listed again, deleted or forgotten.
@Suite struct WorkingSetIndexAbsenceTests {
  static let folder = ItemIdentifier("parent")

  @Test func anAbsenceSurvivesReopeningKeepsItsFirstDateAndGoesWhenListedAgain() throws {
    try Fixture.withTemporaryDirectory { dir in
      let url = dir.appendingPathComponent("index.sqlite")
      let (a, b) = (ItemIdentifier("a"), ItemIdentifier("b"))
      let index = try WorkingSetIndex.open(at: url)
      try index.replaceListingAbsences([a], domain: Fixture.server, folder: Self.folder, at: Fixture.date(1))
      try index.close()

      let reopened = try WorkingSetIndex.open(at: url)
      #expect(try reopened.listingAbsences(domain: Fixture.server, folder: Self.folder) == [a: Fixture.date(1)])
      #expect(try reopened.listingAbsences(domain: Fixture.local, folder: Self.folder).isEmpty, "per domain")
      try reopened.replaceListingAbsences([a, b], domain: Fixture.server, folder: Self.folder, at: Fixture.date(2))
      #expect(
        try reopened.listingAbsences(domain: Fixture.server, folder: Self.folder) == [a: Fixture.date(1), b: Fixture.date(2)],
        "a stays missing since its first listing")
      try reopened.replaceListingAbsences([b], domain: Fixture.server, folder: Self.folder, at: Fixture.date(3))
      #expect(try reopened.listingAbsences(domain: Fixture.server, folder: Self.folder) == [b: Fixture.date(2)])
      try reopened.close()
    }
  }

  @Test func aDeletedForgottenOrRemovedItemTakesItsAbsenceWithIt() throws {
    let index = try WorkingSetIndex.inMemory()
    let items = ["a", "b", "c"].map { Fixture.file($0, "/p/\($0).txt", tags: ["Red"]) }
    try index.upsert(items, domain: Fixture.server, insertNew: true)
    try index.replaceListingAbsences(
      Set(items.map(\.identifier)), domain: Fixture.server, folder: Self.folder, at: Fixture.date(1))
    try index.recordDeleted(identifiers: [ItemIdentifier("a")], domain: Fixture.server)
    try index.forget(identifier: ItemIdentifier("b"), domain: Fixture.server)
    #expect(try index.listingAbsences(domain: Fixture.server, folder: Self.folder).keys.map(\.rawValue) == ["c"])
    try index.removeDomain(Fixture.server)
    #expect(try index.listingAbsences(domain: Fixture.server, folder: Self.folder).isEmpty)
  }
}
