import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// A content file handed to an opener never shares its inode with a staged upload's snapshot.
extension ContentStoreTests {
  /// The state a crash leaves between adopting a created file's snapshot and removing its
  /// journal row: two names, one inode. An editor saving in place must not change the snapshot
  /// the resumed upload sends (folio-sim, seeds 112720 and 116964).
  @Test func anOpenedFileNeverSharesItsBytesWithAStagedSnapshot() async throws {
    let f = try SyncFixture()
    let item = await f.memory.add(ItemName("notes.txt"), content: Data("first".utf8))
    let staged = try await f.store.stage(try f.source("notes.txt", "first"), domain: SyncFixture.cloud)
    // The create's journal row, still there: the crash came before its bookkeeping ended.
    _ = try f.index.enqueueTransfer(
      .upload, domain: SyncFixture.cloud, identifier: Transfer.newPlaceholder(), stagedPath: ItemPath(staged.url.path),
      bytesTotal: staged.size, parent: .root, name: ItemName("notes.txt"), sha256: staged.sha256)
    try f.store.adopt(staged, as: item, domain: SyncFixture.cloud)
    let materialized = f.store.fileURL(domain: SyncFixture.cloud, identifier: item.identifier)
    #expect(DurableFile.linkCount(of: materialized) == 2)

    let opened = try await f.engine.materialize(item, in: f.domain, forOpen: true)
    #expect(opened == materialized)
    #expect(DurableFile.linkCount(of: opened) == 1)
    #expect(DurableFile.linkCount(of: staged.url) == 1)
    // The copy is not an edit: nothing to upload until the opener writes.
    #expect(try await f.engine.noticeEdits(item, in: f.domain) == nil)

    _ = try await f.engine.materialize(item, in: f.domain, forOpen: true)
    let handle = try FileHandle(forWritingTo: opened)
    try handle.write(contentsOf: Data("second".utf8))
    try handle.close()
    #expect(try Data(contentsOf: staged.url) == Data("first".utf8))
    #expect(try DurableFile.digest(of: staged.url).sha256 == staged.sha256)
    #expect(try await f.engine.noticeEdits(item, in: f.domain) != nil)
  }

  /// An opener's own second name of the stored file (`OpenedCopy`'s link, kept for a detached
  /// editor) is no snapshot: the file is not copied away from under it.
  @Test func anOpenersLinkIsNotCopiedAway() async throws {
    let f = try SyncFixture()
    let item = await f.memory.add(ItemName("notes.txt"), content: Data("first".utf8))
    _ = try await f.engine.materialize(item, in: f.domain, forOpen: true)
    _ = try await f.engine.noticeEdits(item, in: f.domain)
    let stored = f.store.fileURL(domain: SyncFixture.cloud, identifier: item.identifier)
    let openerName = f.root.appendingPathComponent("notes.txt")
    #expect(link(stored.path, openerName.path) == 0)
    let opened = try await f.engine.materialize(item, in: f.domain, forOpen: true)
    #expect(DurableFile.linkCount(of: opened) == 2)
    #expect(DurableFile.fileID(of: opened) == DurableFile.fileID(of: openerName))
  }
}
