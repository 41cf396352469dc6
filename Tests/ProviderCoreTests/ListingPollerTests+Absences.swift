import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// The count of complete listings that lacked an item lives in the index, not in the poller:
/// `folio sync` is a new process each time, and two runs (one listing each) must confirm a
/// deletion, while one run never deletes.
extension ListingPollerTests {
  @Test func aDeletionElsewhereIsConfirmedByTwoPollersThatShareOnlyTheIndexFile() async throws {
    let scratch = ScratchFolder()
    let url = URL(fileURLWithPath: scratch.path.lossyString).appendingPathComponent("index.sqlite")
    let b = PathKeys.identifier(ItemPath("/d/b.txt"))
    let store = PathKeyedStore(domain: Self.host)
    do {
      let first = try Fixture(index: try WorkingSetIndex.open(at: url), store: store)
      store.put("/d", "", folder: true)
      try first.tagged("/d/a.txt", "a")
      try first.tagged("/d/b.txt", "b")
      store.remove("/d/b.txt")
      let changes = await first.poller.pollNow(Self.folder)
      #expect(changes.missingOnce == [b] && changes.deletedIdentifiers.isEmpty)
      #expect(try first.known("/d/b.txt") != nil, "one listing never deletes")
      try first.index.close()
    }
    // Another process: nothing in memory, the same index file.
    let second = try Fixture(index: try WorkingSetIndex.open(at: url), store: store)
    #expect(try Array(second.index.listingAbsences(domain: Self.host, folder: Self.folder).keys) == [b])
    let changes = await second.poller.pollNow(Self.folder)
    #expect(changes.deletedIdentifiers == [b])
    #expect(try second.known("/d/b.txt") == nil)
    #expect(try second.known("/d/a.txt")?.tags == ["Red"])
    #expect(try second.index.listingAbsences(domain: Self.host, folder: Self.folder).isEmpty)
    try second.index.close()
  }

  @Test func anItemListedAgainOrAListingNotCompleteStartsTheCountAgainForTheNextProcess() async throws {
    let index = try WorkingSetIndex.inMemory()
    let store = PathKeyedStore(domain: Self.host)
    let b = PathKeys.identifier(ItemPath("/d/b.txt"))
    // Each run is a new poller (a new `folio sync`), with nothing in memory.
    func nextRun() async throws -> ListingChanges {
      let f = try Fixture(index: index, store: store)
      return await f.poller.pollNow(Self.folder)
    }
    let first = try Fixture(index: index, store: store)
    store.put("/d", "", folder: true)
    try first.tagged("/d/a.txt", "a")
    try first.tagged("/d/b.txt", "b")
    store.remove("/d/b.txt")
    #expect(await first.poller.pollNow(Self.folder).missingOnce == [b])
    // Back on the server (a maintenance window, a restore): listed, so no longer missing.
    store.put("/d/b.txt", "b")
    #expect(try await nextRun().missingOnce.isEmpty)
    #expect(try index.listingAbsences(domain: Self.host, folder: Self.folder).isEmpty)
    store.remove("/d/b.txt")
    #expect(try await nextRun().missingOnce == [b])
    // A listing that fails in between proves nothing, and the count starts again.
    store.plan([.failAfter(pages: 0)])
    #expect(try await nextRun().verdict == .failed)
    let after = try await nextRun()
    #expect(after.deletedIdentifiers.isEmpty && after.missingOnce == [b])
    #expect(try first.known("/d/b.txt") != nil)
    #expect(try await nextRun().deletedIdentifiers == [b])
  }
}
