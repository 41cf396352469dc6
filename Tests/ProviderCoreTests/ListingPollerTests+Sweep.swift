import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// The poller over storage whose folder versions cover their descendants (Nextcloud's ETags):
/// the working set is brought up to date by sweeps from the top that list only where a
/// folder's version moved (docs/DECISIONS.md, "On Nextcloud the poller descends only where a
/// folder's ETag moved").
extension ListingPollerTests {
  static func covering() throws -> Fixture {
    let f = try Fixture(
      cadence: PollSchedule.Cadence(visible: .seconds(20), workingSet: .seconds(120)),
      store: PathKeyedStore(domain: host, coversDescendants: true))
    for folder in ["/a", "/a/b", "/a/b/c", "/x", "/x/y"] { f.store.put(folder, "", folder: true) }
    try f.tagged("/a/b/c/deep.txt", "deep")
    try f.tagged("/x/y/side.txt", "side")
    return f
  }

  static func paths(_ list: [String]) -> [ItemPath] { list.map { ItemPath($0) } }

  @Test func aSweepListsOnlyTheChainAboveAChangeAndNothingWhenTheTopStays() async throws {
    let f = try Self.covering()
    #expect(f.poller.sweepsFromTheTop)
    let folders = try f.index.workingSetFolders(domain: Self.host)
    // The first sweep of a process walks every chain to the working set's folders.
    _ = await f.poller.sweep(folders)
    #expect(Set(f.store.listedFolders) == Set(Self.paths(["/", "/a", "/a/b", "/a/b/c", "/x", "/x/y"])))
    // Nothing changed: one read of the top, no listing.
    var listed = f.store.listedFolders.count
    var reads = f.store.folderReads
    #expect(await f.poller.sweep(folders).isEmpty)
    #expect(f.store.folderReads == reads + 1 && f.store.listedFolders.count == listed)
    // A working-set file edited in /a/b/c: /, /a, /a/b, /a/b/c only; /x is not listed.
    f.store.put("/a/b/c/deep.txt", "deep, edited elsewhere")
    reads = f.store.folderReads
    let changes = await f.poller.sweep(folders)
    #expect(Array(f.store.listedFolders.dropFirst(listed)) == Self.paths(["/", "/a", "/a/b", "/a/b/c"]))
    #expect(f.store.folderReads == reads + 1)
    #expect(changes.flatMap(\.updatedItems).map(\.path).contains(ItemPath("/a/b/c/deep.txt")))
    #expect(try f.known("/a/b/c/deep.txt")?.item().documentSize == 22)
    listed = f.store.listedFolders.count
    #expect(await f.poller.sweep(folders).isEmpty)
    #expect(f.store.listedFolders.count == listed)
  }

  /// A listing that fails mid-walk leaves its chain for the next sweep: the top's version is
  /// not recorded as current, so the change below still arrives though nothing moved since.
  @Test func aSweepCutByAFailureIsWalkedAgainNotCalledCurrent() async throws {
    let f = try Self.covering()
    let folders = try f.index.workingSetFolders(domain: Self.host)
    _ = await f.poller.sweep(folders)
    f.store.put("/a/b/c/deep.txt", "deep, edited late")
    f.store.plan([.complete, .complete, .complete, .failAfter(pages: 0)])
    let cut = await f.poller.sweep(folders)
    #expect(cut.map(\.verdict) == [.complete, .complete, .complete, .failed])
    #expect(try f.known("/a/b/c/deep.txt")?.item().documentSize == 4)
    let listed = f.store.listedFolders.count
    _ = await f.poller.sweep(folders)
    #expect(Array(f.store.listedFolders.dropFirst(listed)) == Self.paths(["/", "/a", "/a/b", "/a/b/c"]))
    #expect(try f.known("/a/b/c/deep.txt")?.item().documentSize == 17)
  }

  /// The running poller sweeps every `workingSet` period: a change deep down reaches the index
  /// without the working set's folders being scheduled one by one, and a sweep that finds the
  /// top unchanged lists nothing.
  @Test func theRunningPollerSweepsTheWorkingSetOnItsCadence() async throws {
    let f = try Self.covering()
    await f.poller.start()
    await eventually { f.store.listedFolders.count == 6 && f.time.sleeping > 0 }
    await eventually { await f.poller.sweepInFlight() == nil }
    let reads = f.store.folderReads
    f.time.advance(by: .seconds(120))
    await eventually { f.store.folderReads == reads + 1 }
    await eventually { await f.poller.sweepInFlight() == nil && f.time.sleeping > 0 }
    #expect(f.store.listedFolders.count == 6)
    f.store.put("/x/y/side.txt", "side, edited")
    f.time.advance(by: .seconds(120))
    try await eventually { try f.known("/x/y/side.txt")?.item().documentSize == 12 }
    #expect(Array(f.store.listedFolders.dropFirst(6)) == Self.paths(["/", "/x", "/x/y"]))
    await f.poller.stop()
  }
}
