import Foundation
import ProviderAPI
import Synchronization
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// Opening, editing, and what happens when the server moved on meanwhile: never a lost byte.
@Suite struct SyncConflictTests {
  /// Opens the item (materialize for open), writes `text` into the local file as an editor would,
  /// and returns as the opener does (notice edits).
  @discardableResult
  func edit(_ f: SyncFixture, _ item: Item, _ text: String) async throws -> Int64? {
    let url = try await f.engine.materialize(item, in: f.domain, forOpen: true)
    try Data(text.utf8).write(to: url)
    return try await f.engine.noticeEdits(item, in: f.domain)
  }

  /// Another client puts `item` in the trash; this one then reads the change.
  func trashElsewhere(_ f: SyncFixture, _ item: Item) async throws {
    var trashed = ItemTemplate(item)
    trashed.parentIdentifier = .trash
    _ = try await f.memory.modifyItem(trashed, baseVersion: item.version, changedFields: .parentItemIdentifier, contents: nil)
    _ = try await f.engine.syncChanges(of: SyncFixture.cloud)
  }

  @Test func anEditIsUploadedWithItsBaseAndTheContentBecomesClean() async throws {
    let f = try SyncFixture()
    let item = await f.memory.add(ItemName("a.txt"), content: Data("v1".utf8))
    #expect(try await edit(f, item, "v2") != nil)
    #expect(try f.index.content(domain: SyncFixture.cloud, identifier: item.identifier)?.state == .dirty)
    #expect(try f.index.pendingUploads(domain: SyncFixture.cloud, identifier: item.identifier).first?.baseVersion == item.version)
    #expect(await f.queue.drain().succeeded)
    #expect(await f.text(of: item.identifier) == "v2")
    let content = try #require(try f.index.content(domain: SyncFixture.cloud, identifier: item.identifier))
    #expect(content.state == .clean)
    #expect(content.version == (try await f.memory.item(for: item.identifier)).version)
    #expect(try f.index.conflicts().isEmpty)
  }

  @Test func openingWithoutChangesQueuesNothing() async throws {
    let f = try SyncFixture()
    let item = await f.memory.add(ItemName("a.txt"), content: Data("v1".utf8))
    _ = try await f.engine.materialize(item, in: f.domain, forOpen: true)
    #expect(try await f.engine.noticeEdits(item, in: f.domain) == nil)
    // Saved unchanged (a new stamp, the same bytes): still nothing.
    let url = try await f.engine.materialize(item, in: f.domain, forOpen: true)
    try Data("v1".utf8).write(to: url)
    #expect(try await f.engine.noticeEdits(item, in: f.domain) == nil)
    #expect(try f.index.pendingTransfers().isEmpty)
  }

  /// Issue 9 item 7: an upload refused because someone else locked the file fails with its own
  /// code and advice, and a later edit of the file supersedes it: before, the failed one kept the
  /// item's upload slot and the new edit waited behind it for ever (`◷`, "syncing 1").
  @Test func aLockRefusalFailsWithItsOwnCodeAndALaterEditIsNotStuckBehindIt() async throws {
    let f = try SyncFixture()
    let item = await f.memory.add(ItemName("a.txt"), content: Data("v1".utf8))
    let locked = Flag()
    await locked.set()
    await f.memory.setHook { call throws(ProviderError) in
      if call == .modify, await locked.value { throw ProviderError(.itemLocked, "a.txt is locked by ben") }
    }
    try await edit(f, item, "v2")
    let first = await f.queue.drain()
    #expect(first.unfinished.map(\.state) == [.failed])
    #expect(FailureDisposition.of(ProviderError(.itemLocked, "x")) == .fail)
    #expect(ProviderError(.itemLocked, "x").recoverySuggestion?.contains("unlock") == true)
    // Ben unlocks; the person edits again.
    await locked.clear()
    try await edit(f, item, "v3")
    #expect(try f.index.pendingUploads(domain: SyncFixture.cloud, identifier: item.identifier).count == 1)
    #expect(await f.queue.drain().succeeded)
    #expect(await f.text(of: item.identifier) == "v3")
    #expect(SyncEngine.syncingCount(SyncFixture.cloud, index: f.index) == 0)
  }

  /// Two edits before the first upload: both reach the server in order, the second based on the
  /// first's result, so the person's own edits never conflict with each other.
  @Test func successiveEditsAreRebasedNotConflicted() async throws {
    let f = try SyncFixture()
    let item = await f.memory.add(ItemName("a.txt"), content: Data("v1".utf8))
    try await edit(f, item, "v2")
    try await edit(f, item, "v3")
    #expect(try f.index.pendingUploads(domain: SyncFixture.cloud, identifier: item.identifier).count == 2)
    #expect(await f.queue.drain().succeeded)
    #expect(await f.text(of: item.identifier) == "v3")
    #expect(try await f.children().count == 1)
    #expect(try f.index.content(domain: SyncFixture.cloud, identifier: item.identifier)?.state == .clean)
  }

  /// The provider refuses the stale base and keeps nothing (InMemoryProvider): the engine keeps
  /// the local bytes as a new item beside the original.
  @Test func aStaleBaseKeepsBothVersionsWhenTheProviderRefuses() async throws {
    let f = try SyncFixture()
    let recorder = await SyncEventRecorder.follow(f.engine.events)
    let item = await f.memory.add(ItemName("plan.txt"), content: Data("base".utf8))
    try await edit(f, item, "mine")
    try await f.remoteEdit(item.identifier, "theirs")
    #expect(await f.queue.drain().succeeded)
    let children = try await f.children()
    #expect(children.count == 2)
    #expect(await f.text(of: item.identifier) == "theirs")
    let copy = try #require(children.first { $0.identifier != item.identifier })
    #expect(copy.filename.lossyString.hasPrefix("plan (conflict, ") && copy.filename.lossyString.hasSuffix(").txt"))
    #expect(await f.text(of: copy.identifier) == "mine")
    let conflict = try #require(try f.index.conflicts().first)
    #expect(conflict.original == item.identifier && conflict.copy == copy.identifier && conflict.reason == .staleBase)
    // (Matched by identifiers: the stored date went through a Double.)
    await recorder.wait {
      $0.contains { if case .conflict(let c) = $0 { c.copy == conflict.copy && c.original == conflict.original } else { false } }
    }
    // The local file: stale, so the next open shows theirs.
    #expect(try f.index.content(domain: SyncFixture.cloud, identifier: item.identifier)?.state == .stale)
    let url = try await f.engine.materialize(try await f.memory.item(for: item.identifier), in: f.domain)
    #expect(try String(contentsOf: url, encoding: .utf8) == "theirs")
  }

  /// The FolioServer way: the server keeps the stale upload as a copy and answers with the
  /// original and `localVersionConflictingWithServer`.
  @Test func aStaleBaseKeptByTheServerIsRecordedAsAConflict() async throws {
    let f = try SyncFixture()
    f.provider.set { $0.serverConflicts = true }
    let item = await f.memory.add(ItemName("plan.txt"), content: Data("base".utf8))
    try await edit(f, item, "mine")
    try await f.remoteEdit(item.identifier, "theirs")
    #expect(await f.queue.drain().succeeded)
    let children = try await f.children()
    #expect(children.count == 2)
    let conflict = try #require(try f.index.conflicts().first)
    #expect(await f.text(of: conflict.copy) == "mine")
    #expect(await f.text(of: conflict.original) == "theirs")
    #expect(await f.memory.calls.filter { $0 == .create }.count == 1)
  }

  /// Deleted on the server while edited here: the edits become a new item (I3, D9).
  @Test func aRemoteDeleteOfAnEditedFileKeepsTheEdits() async throws {
    let f = try SyncFixture()
    let folder = await f.memory.add(ItemName("Docs"), folder: true)
    let item = await f.memory.add(ItemName("draft.txt"), in: folder.identifier, content: Data("base".utf8))
    _ = try await f.engine.syncChanges(of: SyncFixture.cloud)
    try await edit(f, item, "my edits")
    try await f.memory.deleteItem(item.identifier, baseVersion: nil, options: [])
    let summary = try await f.engine.syncChanges(of: SyncFixture.cloud)
    #expect(summary.deleted == 0)
    #expect(try f.index.item(domain: SyncFixture.cloud, identifier: item.identifier) != nil)
    let report = await f.queue.drain()
    #expect(report.succeeded)
    let recovered = try #require(try await f.children(of: folder.identifier).first)
    // `folio sync` names what it uploaded from this: the new item, not the original that is gone.
    #expect(report.completed.map(\.identifier) == [recovered.identifier])
    #expect(recovered.filename == ItemName("draft.txt"))
    #expect(await f.text(of: recovered.identifier) == "my edits")
    #expect(try f.index.conflicts().first?.reason == .remoteDeletion)
    #expect(try f.index.item(domain: SyncFixture.cloud, identifier: item.identifier) == nil)
  }

  /// Trashed elsewhere is deleted as far as edits here are concerned: they come back as a new
  /// item where it was, never sent into the trashed one (out of sight in Recently Deleted).
  @Test func editsOfAnItemTrashedElsewhereComeBackWhereItWas() async throws {
    let f = try SyncFixture()
    let folder = await f.memory.add(ItemName("Docs"), folder: true)
    let item = await f.memory.add(ItemName("draft.txt"), in: folder.identifier, content: Data("base".utf8))
    _ = try await f.engine.syncChanges(of: SyncFixture.cloud)
    try await edit(f, item, "my edits")
    try await trashElsewhere(f, item)
    #expect(await f.queue.drain().succeeded)
    let recovered = try #require(try await f.children(of: folder.identifier).first)
    #expect(recovered.identifier != item.identifier && recovered.filename == ItemName("draft.txt"))
    #expect(await f.text(of: recovered.identifier) == "my edits")
    // The trashed item is as it was, restorable.
    #expect(try await f.children(of: .trash).map(\.identifier) == [item.identifier])
    #expect(await f.text(of: item.identifier) == "base")
    #expect(try f.index.conflicts().map(\.reason) == [.remoteDeletion])
  }

  /// folio-sim's seed 258670: two edits wait, the item is trashed elsewhere, and the first edit
  /// becomes a new file. The local copy still holds the second edit, which waits: it stays, so
  /// opening the item (restored meanwhile) shows it and not the server's older bytes.
  @Test func editsKeptAsANewFileLeaveTheLocalCopyWhileNewerEditsWait() async throws {
    let f = try SyncFixture()
    let item = await f.memory.add(ItemName("draft.txt"), content: Data("base".utf8))
    _ = try await f.engine.syncChanges(of: SyncFixture.cloud)
    try await edit(f, item, "first edit")
    try await edit(f, item, "second edit")
    try await trashElsewhere(f, item)
    #expect(try f.index.pendingUploads(domain: SyncFixture.cloud, identifier: item.identifier).count == 2)
    // Between the two uploads (the first made its new file), what does the local copy hold?
    let seen = Mutex<[String?]>([])
    let store = f.store
    await f.memory.setHook { call in
      guard call == .modify || call == .create else { return }
      let local = try? store.localFile(domain: SyncFixture.cloud, identifier: item.identifier)
      seen.withLock { $0.append(local.flatMap { try? String(contentsOf: $0.url, encoding: .utf8) }) }
    }
    _ = await f.queue.drain()
    #expect(seen.withLock { $0 }.allSatisfy { $0 == "second edit" }, "\(seen.withLock { $0 })")
    #expect(seen.withLock { $0 }.count >= 2)
  }

  /// Resolving the edits of a trashed item: mine and both keep the recovered item live (never
  /// writing into the trash); theirs accepts the trash (the copy goes there too, restorable).
  @Test func resolvingTheEditsOfATrashedItem() async throws {
    for choice in ConflictChoice.allCases {
      let f = try SyncFixture()
      let item = await f.memory.add(ItemName("draft.txt"), content: Data("base".utf8))
      _ = try await f.engine.syncChanges(of: SyncFixture.cloud)
      try await edit(f, item, "my edits")
      try await trashElsewhere(f, item)
      #expect(await f.queue.drain().succeeded)
      let conflict = try #require(try f.index.conflicts().first)
      let kept = try await f.engine.resolve(conflict, choice)
      #expect(try f.index.conflicts().isEmpty)
      let live = try await f.children()
      let inTrash = Set(try await f.children(of: .trash).map(\.identifier))
      #expect(inTrash.contains(item.identifier), "\(choice): the trashed original stays in the trash")
      #expect(await f.text(of: item.identifier) == "base", "\(choice)")
      switch choice {
      case .keepMine, .keepBoth:
        #expect(live.map(\.identifier) == [conflict.copy] && kept.identifier == conflict.copy, "\(choice)")
        #expect(await f.text(of: conflict.copy) == "my edits")
      case .keepTheirs:
        #expect(live.isEmpty && inTrash.contains(conflict.copy))
      }
    }
  }

  @Test func resolvingKeepsMineTheirsOrBoth() async throws {
    for choice in ConflictChoice.allCases {
      let f = try SyncFixture()
      let item = await f.memory.add(ItemName("plan.txt"), content: Data("base".utf8))
      try await edit(f, item, "mine")
      try await f.remoteEdit(item.identifier, "theirs")
      #expect(await f.queue.drain().succeeded)
      let conflict = try #require(try f.index.conflicts().first)
      let kept = try await f.engine.resolve(conflict, choice)
      #expect(try f.index.conflicts().isEmpty)
      let live = try await f.children()
      switch choice {
      case .keepMine:
        #expect(live.map(\.identifier) == [item.identifier])
        #expect(await f.text(of: item.identifier) == "mine")
        #expect(kept.identifier == item.identifier)
      case .keepTheirs:
        #expect(live.map(\.identifier) == [item.identifier])
        #expect(await f.text(of: item.identifier) == "theirs")
      case .keepBoth:
        #expect(live.count == 2)
      }
      // Nothing is deleted forever: the version not kept is in the trash, in the copy.
      if choice != .keepBoth { #expect(try await f.children(of: .trash).map(\.identifier) == [conflict.copy]) }
      if choice == .keepMine { #expect(await f.text(of: conflict.copy) == "theirs", "theirs is restorable") }
      if choice == .keepTheirs { #expect(await f.text(of: conflict.copy) == "mine", "mine is restorable") }
    }
  }
}
