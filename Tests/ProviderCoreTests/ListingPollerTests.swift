import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// The poller over a path-keyed store without a change feed, a real index, content store and
/// WorkingSetSync (`applyListing`): deletions, failures, renames done elsewhere, the cadence.
@Suite struct ListingPollerTests {
  static let host = DomainIdentifier(unchecked: "host")

  final class Fixture: @unchecked Sendable {
    let scratch = ScratchFolder()
    let store: PathKeyedStore
    let index: WorkingSetIndex
    let engine: SyncEngine
    let domain: Domain
    let time = VirtualTime()
    let poller: ListingPoller

    /// - Parameters:
    ///   - index: An index to share (another process, as it were, on the same file); a fresh one
    ///     in memory otherwise.
    ///   - store: The server to share with another fixture; a new empty one otherwise.
    init(cadence: PollSchedule.Cadence = .standard, index: WorkingSetIndex? = nil, store: PathKeyedStore? = nil) throws {
      self.index = try index ?? WorkingSetIndex.inMemory()
      self.store = store ?? PathKeyedStore(domain: ListingPollerTests.host)
      let (index, store) = (self.index, self.store)
      domain = Domain(identifier: ListingPollerTests.host, displayName: "Host", provider: store, localRoot: nil)
      var registry = DomainRegistry(
        local: Domain(identifier: .local, displayName: "This Computer", provider: InMemoryProvider(), localRoot: .root))
      try registry.add(domain)
      engine = SyncEngine(
        registry: registry, index: index,
        contentRoot: URL(fileURLWithPath: scratch.path.lossyString).appendingPathComponent("content", isDirectory: true),
        cacheBudget: 1 << 30, jitter: { 0 })
      let sync = engine.workingSetSync(for: ListingPollerTests.host)!
      poller = ListingPoller(
        domain: ListingPollerTests.host, provider: store, index: index, cadence: cadence,
        massGuard: MassDeletionGuard(share: sync.massDeleteShare, minimum: sync.massDeleteMinimum), clock: time.clock,
        jitter: { 0 }, apply: { changes throws(ProviderError) in try await sync.applyListing(changes) })
    }

    /// Puts a file on the server and tags it here (the server keeps no tags).
    @discardableResult
    func tagged(_ path: String, _ content: String, tag: String = "Red") throws -> Item {
      let item = store.put(path, content)
      try index.setTags([tag], of: item, domain: ListingPollerTests.host, indexOnly: true)
      return item
    }

    func known(_ path: String) throws -> IndexedItem? {
      try index.item(domain: ListingPollerTests.host, identifier: PathKeys.identifier(ItemPath(path)))
    }
  }

  static let folder = PathKeys.identifier(ItemPath("/d"))

  @Test func aFileDeletedElsewhereLeavesTheIndexAfterTwoCompleteListingsOnly() async throws {
    let f = try Fixture()
    f.store.put("/d", "", folder: true)
    try f.tagged("/d/a.txt", "a")
    try f.tagged("/d/b.txt", "b")
    f.store.remove("/d/b.txt")
    let first = await f.poller.pollNow(Self.folder)
    #expect(first.missingOnce == [PathKeys.identifier(ItemPath("/d/b.txt"))])
    #expect(try f.known("/d/b.txt") != nil)
    // A failure and a cut-short listing in between delete nothing and restart the count.
    f.store.setPageSize(1)
    f.store.plan([.failAfter(pages: 0), .failAfter(pages: 1), .empty])
    #expect(await f.poller.pollNow(Self.folder).verdict == .failed)
    f.store.put("/d/c.txt", "other content")  // not b.txt's size and mtime: no move
    #expect(await f.poller.pollNow(Self.folder).verdict == .cutShort)
    // An empty answer: each known child is asked for; a.txt answers, so nothing goes.
    #expect(await f.poller.pollNow(Self.folder).verdict == .suspectEmpty)
    #expect(try f.known("/d/b.txt") != nil)
    #expect(await f.poller.pollNow(Self.folder).deletedIdentifiers.isEmpty)
    #expect(await f.poller.pollNow(Self.folder).deletedIdentifiers == [PathKeys.identifier(ItemPath("/d/b.txt"))])
    #expect(try f.known("/d/b.txt") == nil)
    #expect(try f.known("/d/a.txt")?.tags == ["Red"])
  }

  @Test func aFolderEmptiedElsewhereIsConfirmedItemByItem() async throws {
    let f = try Fixture()
    f.store.put("/d", "", folder: true)
    try f.tagged("/d/a.txt", "a")
    f.store.remove("/d/a.txt")
    let changes = await f.poller.pollNow(Self.folder)
    #expect(changes.verdict == .suspectEmpty)
    #expect(changes.deletedIdentifiers == [PathKeys.identifier(ItemPath("/d/a.txt"))], "noSuchItem for its own identifier")
    #expect(try f.known("/d/a.txt") == nil)
  }

  /// Storage that keeps favorites (Nextcloud's `oc:favorite`) lists them: one marked elsewhere
  /// enters the index with the listing (a folder's ETag does not move with it, so the entry's
  /// favorite state alone makes it changed), and one unmarked elsewhere leaves it; on storage that
  /// keeps none, the index's favorites are this computer's and a listing never removes them.
  @Test func favoritesTheStorageKeepsReachTheIndexWithTheListingBothWays() async throws {
    let f = try Fixture(store: PathKeyedStore(domain: Self.host, storesFavorites: true))
    f.store.put("/d", "", folder: true)
    f.store.put("/d/plan.txt", "plan")
    f.store.setFavorite("/d/plan.txt", true)
    _ = await f.poller.pollNow(Self.folder)
    #expect(try f.known("/d/plan.txt")?.isFavorite == true, "marked elsewhere: in the index")
    f.store.setFavorite("/d/plan.txt", false)
    let unmarked = await f.poller.pollNow(Self.folder)
    #expect(unmarked.updatedItems.map(\.path) == [ItemPath("/d/plan.txt")], "the same version, another favorite state")
    #expect(try f.known("/d/plan.txt")?.isFavorite == false, "unmarked elsewhere: not a favorite here either")
    #expect(try f.index.favorites().isEmpty)

    let local = try Fixture()
    local.store.put("/d", "", folder: true)
    let item = local.store.put("/d/plan.txt", "plan")
    try local.index.setFavorite(true, item: item, domain: Self.host)
    _ = await local.poller.pollNow(Self.folder)
    _ = await local.poller.pollNow(Self.folder)
    #expect(try local.known("/d/plan.txt")?.isFavorite == true, "this computer's favorite stays")
  }

  @Test func aRenameElsewhereKeepsTagsAndRelinksTheDownloadedCopy() async throws {
    let f = try Fixture()
    f.store.put("/d", "", folder: true)
    let item = try f.tagged("/d/report.txt", "the report")
    let url = try await f.engine.materialize(item, in: f.domain)
    #expect(try String(contentsOf: url, encoding: .utf8) == "the report")
    f.store.rename("/d/report.txt", to: "/d/final.txt")
    _ = await f.poller.pollNow(Self.folder)
    let second = await f.poller.pollNow(Self.folder)
    #expect(second.moves.map(\.new.path) == [ItemPath("/d/final.txt")])
    #expect(try f.known("/d/report.txt") == nil)
    let moved = try #require(try f.known("/d/final.txt"))
    #expect(moved.tags == ["Red"])
    let content = try #require(try f.index.content(domain: Self.host, identifier: moved.identifier))
    #expect(content.size == 10)
    let relinked = f.engine.store.fileURL(domain: Self.host, identifier: moved.identifier)
    #expect(try String(contentsOf: relinked, encoding: .utf8) == "the report", "no download again")
    #expect(!FileManager.default.fileExists(atPath: url.path), "the old name of the cached file is gone")
  }

  @Test func theRunningPollerListsTheShownFolderOnItsCadenceAndAtOnceOnCtrlR() async throws {
    let f = try Fixture(cadence: PollSchedule.Cadence(visible: .seconds(20), workingSet: .seconds(600)))
    f.store.put("/d", "", folder: true)
    try f.tagged("/d/a.txt", "a")
    // Shown before the poller starts: the browser has just listed it, so the working set's
    // first pass does not list it again at once.
    await f.poller.receive(.show(Self.folder))
    await f.poller.start()
    await eventually { f.time.sleeping > 0 }
    #expect(f.store.listings == 0)
    f.store.remove("/d/a.txt")
    f.store.put("/d/other.txt", "x")
    f.time.advance(by: .seconds(20))
    await eventually { await f.poller.state(of: Self.folder).awaitsConfirmation }
    #expect(f.store.listings == 1)
    #expect(try f.known("/d/a.txt") != nil)
    // Ctrl-R: at once, with no time passing.
    f.poller.refresh(Self.folder)
    try await eventually { try f.known("/d/a.txt") == nil }
    #expect(f.time.now == .seconds(20))
    await f.poller.stop()
  }

  /// A big folder on screen costs one request per turn while its mtime stays: it is listed again
  /// only when the mtime moves, when its last listing is too old to stand in (edits in place
  /// leave the mtime alone), or at once on Ctrl-R.
  @Test func aBigShownFolderWhoseHintStaysIsCheckedNotListed() async throws {
    // 15,000 s per 1,000 entries: an unchanged hint stands in for 45 s for three entries, 60 s
    // for four.
    let f = try Fixture(
      cadence: PollSchedule.Cadence(visible: .seconds(20), workingSet: .seconds(600), hintTrustPerThousand: .seconds(15_000)))
    f.store.put("/d", "", modified: 1_700_000_000, folder: true)
    for name in ["a", "b", "c"] { f.store.put("/d/\(name).txt", name) }
    await f.poller.receive(.show(Self.folder))
    await f.poller.start()
    func settle() async {
      await eventually { f.time.sleeping > 0 }
      await eventually { await !f.poller.isBusy }
    }
    await settle()
    f.time.advance(by: .seconds(20))
    await eventually { f.store.listings == 1 }
    await settle()
    let looked = f.store.lookups
    // Two turns: a look each, no listing.
    for turn in 1...2 {
      f.time.advance(by: .seconds(20))
      await eventually { f.store.lookups == looked + turn }
      await settle()
      #expect(f.store.listings == 1, "turn \(turn)")
    }
    // A file made elsewhere moves the folder's mtime: the next turn lists it.
    f.store.put("/d/new.txt", "n")
    f.store.put("/d", "", modified: 1_700_000_100, folder: true)
    f.time.advance(by: .seconds(20))
    await eventually { f.store.listings == 2 }
    await settle()
    // Unchanged since: checked at 20 s, 40 s; listed once its listing is 60 s old.
    f.time.advance(by: .seconds(20))
    await eventually { f.time.sleeping > 0 && f.store.lookups >= looked + 4 }
    await settle()
    f.time.advance(by: .seconds(20))
    await settle()
    #expect(f.store.listings == 2)
    f.time.advance(by: .seconds(20))
    await eventually { f.store.listings == 3 }
    await settle()
    // Ctrl-R: listed at once, with no time passing.
    let now = f.time.now
    f.poller.refresh(Self.folder)
    await eventually { f.store.listings == 4 }
    #expect(f.time.now == now)
    await f.poller.stop()
  }

  @Test func theWorkingSetFoldersArePolledWithoutBeingShown() async throws {
    let f = try Fixture(cadence: PollSchedule.Cadence(visible: .seconds(20), workingSet: .seconds(120)))
    f.store.put("/d", "", folder: true)
    try f.tagged("/d/a.txt", "a")
    #expect(try f.index.workingSetFolders(domain: Self.host) == [Self.folder])
    f.store.remove("/d/a.txt")
    f.store.put("/d/b.txt", "b")
    await f.poller.readWorkingSetFoldersIfDue()
    for task in await f.poller.launchDue() { _ = await task.value }
    #expect(await f.poller.state(of: Self.folder).awaitsConfirmation)
    f.time.advance(by: .seconds(120))
    for task in await f.poller.launchDue() { _ = await task.value }
    #expect(try f.known("/d/a.txt") == nil)
  }
}
