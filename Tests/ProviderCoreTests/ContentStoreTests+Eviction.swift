import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// Eviction: by request and under the budget (LRU), never of unsynced, pinned or open content.
@Suite struct ContentEvictionTests {
  /// Materializes files of `size` bytes each, one after the other (so their last accesses are in
  /// that order).
  func materialize(_ f: SyncFixture, _ names: [String], in parent: ItemIdentifier = .root, size: Int = 100) async throws -> [Item] {
    var out: [Item] = []
    for n in names {
      let item = await f.memory.add(ItemName(n), in: parent, content: Data(repeating: 65, count: size))
      _ = try await f.engine.materialize(item, in: f.domain)
      out.append(item)
    }
    return out
  }

  @Test func theLeastRecentlyUsedGoFirstUnderTheBudget() async throws {
    let f = try SyncFixture(budget: 250)
    let items = try await materialize(f, ["a", "b"])
    // Using a again makes b the least recent.
    _ = try await f.engine.materialize(items[0], in: f.domain)
    let c = try await materialize(f, ["c"])[0]
    #expect(f.storeFiles().content.count == 2)
    #expect(try f.index.content(domain: SyncFixture.cloud, identifier: items[1].identifier) == nil)
    #expect(try f.store.localFile(domain: SyncFixture.cloud, identifier: items[0].identifier) != nil)
    #expect(try f.store.localFile(domain: SyncFixture.cloud, identifier: c.identifier) != nil)
    #expect(try f.index.item(domain: SyncFixture.cloud, identifier: items[1].identifier)?.isMaterialized == false)
  }

  @Test func pinnedUnsyncedOpenAndEditedContentIsNeverEvicted() async throws {
    let f = try SyncFixture(budget: 1 << 30)
    let folder = await f.memory.add(ItemName("Keep"), folder: true)
    let inPinned = try await materialize(f, ["in-pinned"], in: folder.identifier)[0]
    let items = try await materialize(f, ["pinned", "dirty", "open", "edited", "plain"])
    try await f.engine.pin(folder, in: f.domain)
    try await f.engine.pin(items[0], in: f.domain)
    // dirty: an edit noticed (upload queued, not sent: the queue does not run here)
    let dirtyURL = try #require(try f.store.localFile(domain: SyncFixture.cloud, identifier: items[1].identifier)).url
    try Data("changed".utf8).write(to: dirtyURL)
    #expect(try await f.engine.noticeEdits(items[1], in: f.domain) != nil)
    // open: an opener of this (live) process has it
    _ = try await f.engine.materialize(items[2], in: f.domain, forOpen: true)
    // edited: written, nobody noticed yet
    let editedURL = try #require(try f.store.localFile(domain: SyncFixture.cloud, identifier: items[3].identifier)).url
    try Data("written behind our back".utf8).write(to: editedURL)

    let evicted = try f.store.enforceBudget(0)
    #expect(evicted.map(\.identifier) == [items[4].identifier])
    for kept in [inPinned] + items.dropLast() {
      #expect(try f.store.localFile(domain: SyncFixture.cloud, identifier: kept.identifier) != nil, "\(kept.filename)")
    }
    // Asked for by name, each refuses with its reason.
    for (item, code) in [
      (items[0], ProviderError.Code.nonEvictable), (inPinned, .nonEvictable), (items[1], .unsyncedEdits),
      (items[2], .nonEvictable), (items[3], .unsyncedEdits),
    ] {
      let error = await #expect(throws: ProviderError.self) { try await f.engine.evict(item, in: f.domain) }
      #expect(error?.code == code, "\(item.filename)")
    }
    // Closed again (the opener returned), the open one may go; unpinned, the pinned one too.
    try await f.engine.noticeEdits(items[2], in: f.domain)
    #expect(try await f.engine.evict(items[2], in: f.domain) == 1)
    try await f.engine.pin(items[0], in: f.domain, false)
    #expect(try await f.engine.evict(items[0], in: f.domain) == 1)
  }

  @Test func anOpenMarkerOfAProcessThatDiedDoesNotProtect() async throws {
    let f = try SyncFixture()
    let item = try await materialize(f, ["x"])[0]
    try f.index.beginOpen(domain: SyncFixture.cloud, identifier: item.identifier, pid: try SyncFixture.deadPID())
    #expect(try f.store.enforceBudget(0).map(\.identifier) == [item.identifier])
  }

  @Test func evictingAFolderEvictsItsMaterializedFilesAndStopsAtOneThatCannotGo() async throws {
    let f = try SyncFixture()
    let folder = await f.memory.add(ItemName("F"), folder: true)
    let files = try await materialize(f, ["1", "2"], in: folder.identifier)
    let outside = try await materialize(f, ["3"])[0]
    #expect(try await f.engine.evict(folder, in: f.domain) == 2)
    #expect(f.storeFiles().content == [ContentStore.key(for: outside.identifier)])
    _ = try await f.engine.materialize(files[0], in: f.domain, forOpen: true)
    let error = await #expect(throws: ProviderError.self) { try await f.engine.evict(folder, in: f.domain) }
    #expect(error?.code == .nonEvictableChildren)
  }

  @Test func localItemsSayTheyAreLocal() async throws {
    let f = try SyncFixture()
    let local = f.registry.local
    let item = Item(
      identifier: ItemIdentifier("x"), parentIdentifier: .root, filename: ItemName("a"), path: ItemPath("/tmp/a"),
      contentType: .data)
    for error in [
      await #expect(throws: ProviderError.self) { try await f.engine.evict(item, in: local) },
      await #expect(throws: ProviderError.self) { try await f.engine.pin(item, in: local) },
    ] {
      #expect(error?.code == .featureUnsupported)
      #expect(error?.message.contains("on this computer") == true)
    }
    #expect(try await f.engine.materialize(item, in: local).path == "/tmp/a")
  }
}
