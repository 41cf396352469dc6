import Foundation
import GRDB
import ProviderAPI
import Testing

@testable import WorkingSetIndex

/// The transfer journal and sync anchors: durable state for the core.
@Suite struct WorkingSetIndexJournalTests {
  /// folio-sim's seed 100635: edits queued for an item that is deleted become, at once, a new
  /// file where it was, under its name; at upload time the row was gone ("Recovered file"), and
  /// on path-keyed storage a new item at the same path took the edits as its own content.
  @Test func editsQueuedForADeletedItemBecomeANewFileWhereItWas() throws {
    let index = try WorkingSetIndex.inMemory()
    let folder = Fixture.folder("d", "/d", parent: ItemIdentifier.root.rawValue)
    let file = Fixture.file("f", "/d/notes.txt", parent: "d")
    try index.upsert([folder, file], domain: Fixture.server, insertNew: true)
    let base = try ItemVersion(content: Data([1]), metadata: Data())
    let edit = try index.enqueueTransfer(
      .upload, domain: Fixture.server, identifier: file.identifier, stagedPath: ItemPath("/staged/up-1"),
      baseVersion: base, bytesTotal: 3, at: Fixture.date(1))
    let download = try index.enqueueTransfer(.download, domain: Fixture.server, identifier: file.identifier, at: Fixture.date(1))
    try index.recordDeleted(identifiers: [folder.identifier], domain: Fixture.server)
    let kept = try #require(try index.transfer(id: edit))
    #expect(kept.isCreate && kept.baseVersion == nil)
    #expect(kept.name == ItemName("notes.txt") && kept.parentIdentifier == folder.identifier)
    #expect(kept.identifier == file.identifier && kept.stagedPath == ItemPath("/staged/up-1"))
    #expect(try index.transfer(id: download)?.isCreate == false)
  }

  @Test func theTransferJournalSurvivesAReopen() throws {
    try Fixture.withTemporaryDirectory { dir in
      let url = dir.appendingPathComponent("index.sqlite")
      let index = try WorkingSetIndex.open(at: url)
      let staged = ItemPath(bytes: Array("/cache/content/local/k1".utf8) + [0xFF])
      let base = try ItemVersion(content: Data([1, 2, 3]), metadata: Data())
      let upload = try index.enqueueTransfer(
        .upload, domain: Fixture.server, identifier: ItemIdentifier("f1"), stagedPath: staged, baseVersion: base,
        bytesTotal: 1000, at: Fixture.date(1))
      let download = try index.enqueueTransfer(
        .download, domain: Fixture.local, identifier: ItemIdentifier("f2"), at: Fixture.date(2))
      let finished = try index.enqueueTransfer(
        .download, domain: Fixture.local, identifier: ItemIdentifier("f3"), at: Fixture.date(3))
      #expect(upload < download && download < finished)

      let updated = try index.updateTransfer(upload, at: Fixture.date(5)) { transfer in
        transfer.state = .throttled
        transfer.attempt = 2
        transfer.nextAttemptAt = Fixture.date(60)
        transfer.throttledByCode = ProviderError.Code.serverUnreachable.rawValue
        transfer.lastError = "server unreachable"
        transfer.bytesDone = 400
      }
      try index.updateTransfer(finished) { $0.state = .done }
      try index.close()

      let reopened = try WorkingSetIndex.open(at: url)
      let pending = try reopened.pendingTransfers()
      #expect(pending.map(\.id) == [upload, download])
      #expect(pending.first == updated)
      let first = try #require(pending.first)
      #expect(first.stagedPath == staged)
      #expect(first.baseVersion == base)
      #expect(first.created == Fixture.date(1))
      #expect(first.updated == Fixture.date(5))
      #expect(first.state == .throttled)
      #expect(try reopened.pendingTransfers(domain: Fixture.local).map(\.id) == [download])
      #expect(try reopened.transfer(id: finished)?.state == .done)

      #expect(try reopened.removeTransfer(upload))
      #expect(try !reopened.removeTransfer(upload))
      #expect(try reopened.pendingTransfers().map(\.id) == [download])
      // Ids are never reused.
      #expect(try reopened.enqueueTransfer(.upload, domain: Fixture.local, identifier: ItemIdentifier("f4")) > finished)
      try reopened.close()
    }
  }

  @Test func updatingAnUnknownTransferIsNoSuchItem() throws {
    let index = try WorkingSetIndex.inMemory()
    let error = #expect(throws: ProviderError.self) { try index.updateTransfer(99) { $0.attempt += 1 } }
    #expect(error?.code == .noSuchItem)
  }

  @Test func anchorsAreKeptPerDomainAndContainer() throws {
    let index = try WorkingSetIndex.inMemory()
    #expect(try index.anchor(domain: Fixture.local) == nil)
    let big = try SyncAnchor(Data(repeating: 0xAB, count: SyncAnchor.maxSize))
    let small = try SyncAnchor(Data([0, 1, 0xFF]))
    try index.setAnchor(big, domain: Fixture.local)
    try index.setAnchor(small, domain: Fixture.local, container: ItemIdentifier("folder"))
    try index.setAnchor(small, domain: Fixture.server)
    #expect(try index.anchor(domain: Fixture.local) == big)
    #expect(try index.anchor(domain: Fixture.local, container: ItemIdentifier("folder")) == small)

    try index.setAnchor(small, domain: Fixture.local)
    #expect(try index.anchor(domain: Fixture.local) == small)
    try index.setAnchor(nil, domain: Fixture.local)
    #expect(try index.anchor(domain: Fixture.local) == nil)
    #expect(try index.anchor(domain: Fixture.server) == small)
  }

  @Test func databaseErrorsBecomeOneLineProviderErrors() throws {
    let index = try WorkingSetIndex.inMemory()
    // An anchor over 500 bytes cannot be built, so break the CHECK from below.
    let error = #expect(throws: ProviderError.self) {
      try index.write("saving a bad anchor") { db in
        try db.execute(
          sql: "INSERT INTO syncAnchor VALUES ('local', 'x', zeroblob(501), 0)")
      }
    }
    #expect(error?.code == .ioError)
    #expect(error?.message.hasPrefix("index: saving a bad anchor failed: ") == true)
    #expect(error?.message.contains("\n") == false)
    #expect(error?.underlying != nil)
  }
}
