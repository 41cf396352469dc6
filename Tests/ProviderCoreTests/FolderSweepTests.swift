import Foundation
import ProviderAPI
import Testing

@testable import ProviderCore

/// The sweep's walk as a pure value: what it lists given the hints, and what it records.
@Suite struct FolderSweepTests {
  let h1 = Data([1])
  let h2 = Data([2])

  @Test func anUnchangedTopListsNothingUnlessTheSweepIsFull() {
    var quiet = FolderSweep(targets: [ItemPath("/a/b")], previous: [.root: h1], full: false)
    #expect(quiet.start(topHint: h1).isEmpty)
    #expect(quiet.result()[.root] == h1)
    var full = FolderSweep(targets: [ItemPath("/a/b")], previous: [.root: h1, ItemPath("/a"): h1], full: true)
    #expect(full.start(topHint: h1) == [.root])
    #expect(full.listed(.root, complete: true, childHints: [ItemPath("/a"): h1, ItemPath("/z"): h2]) == [ItemPath("/a")])
  }

  @Test func theWalkDescendsOnlyIntoMovedFoldersOnTheWayToATarget() {
    let previous: [ItemPath: Data] = [.root: h1, ItemPath("/a"): h1, ItemPath("/x"): h1, ItemPath("/a/b"): h1]
    var walk = FolderSweep(targets: [ItemPath("/a/b"), ItemPath("/x")], previous: previous, full: false)
    #expect(walk.start(topHint: h2) == [.root])
    // /x unchanged; /other leads to no target.
    #expect(walk.listed(.root, complete: true, childHints: [ItemPath("/a"): h2, ItemPath("/x"): h1, ItemPath("/other"): h2]) == [ItemPath("/a")])
    #expect(walk.listed(ItemPath("/a"), complete: true, childHints: [ItemPath("/a/b"): h2]) == [ItemPath("/a/b")])
    #expect(walk.listed(ItemPath("/a/b"), complete: true, childHints: [:]).isEmpty)
    #expect(walk.succeeded)
    #expect(walk.result() == [.root: h2, ItemPath("/a"): h2, ItemPath("/a/b"): h2, ItemPath("/x"): h1])
  }

  @Test func aFailureForgetsTheChainAboveIt() {
    let previous: [ItemPath: Data] = [.root: h1, ItemPath("/a"): h1, ItemPath("/a/b"): h1, ItemPath("/x"): h1]
    var walk = FolderSweep(targets: [ItemPath("/a/b"), ItemPath("/x")], previous: previous, full: false)
    _ = walk.start(topHint: h2)
    _ = walk.listed(.root, complete: true, childHints: [ItemPath("/a"): h2, ItemPath("/x"): h1])
    _ = walk.listed(ItemPath("/a"), complete: true, childHints: [ItemPath("/a/b"): h2])
    _ = walk.listed(ItemPath("/a/b"), complete: false, childHints: [:])
    #expect(!walk.succeeded)
    #expect(walk.result() == [ItemPath("/x"): h1])
  }
}
