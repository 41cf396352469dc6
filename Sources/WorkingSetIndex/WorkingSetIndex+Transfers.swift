import Foundation
import GRDB
import ProviderAPI

/// The transfer journal: every upload and download, durable from the moment it is queued.
extension WorkingSetIndex {
  /// Journals a new transfer in state `queued`. When this returns, the transfer survives a crash.
  ///
  /// - Parameters:
  ///   - parent, name: For an upload that creates a new file: where it goes.
  ///   - sha256: The staged bytes' hash (uploads).
  ///   - markContentDirty: For an upload of edited materialized content: the content row becomes
  ///     `dirty` in the same transaction, so it is never evicted nor read as stale in between.
  /// - Returns: Its id (never reused).
  @discardableResult
  public func enqueueTransfer(
    _ direction: Transfer.Direction, domain: DomainIdentifier, identifier: ItemIdentifier,
    stagedPath: ItemPath? = nil, baseVersion: ItemVersion? = nil, bytesTotal: Int64? = nil, at date: Date = Date(),
    parent: ItemIdentifier? = nil, name: ItemName? = nil, sha256: String? = nil, markContentDirty: Bool = false
  ) throws(ProviderError) -> Int64 {
    try write("queueing a \(direction.rawValue) of \(identifier)") { db in
      var record = TransferRecord(
        Transfer(
          id: 0, domain: domain, identifier: identifier, direction: direction, stagedPath: stagedPath,
          baseVersion: baseVersion, bytesTotal: bytesTotal, created: date, updated: date, parentIdentifier: parent,
          name: name, sha256: sha256))
      try record.insert(db)
      if markContentDirty {
        try db.execute(
          sql: "UPDATE content SET state = 'dirty' WHERE domain = ? AND identifier = ?",
          arguments: [domain.rawValue, identifier.rawValue])
      }
      return record.id!
    }
  }

  /// Changes a transfer in one transaction (read, `change`, write) and stamps `updated`.
  ///
  /// - Returns: The transfer as saved.
  /// - Throws: `noSuchItem` when there is no transfer with this id.
  @discardableResult
  public func updateTransfer(
    _ id: Int64, at date: Date = Date(), _ change: (inout Transfer) -> Void
  ) throws(ProviderError) -> Transfer {
    try write("updating transfer \(id)") { db in
      guard let old = try TransferRecord.fetch(db, id: id) else { throw ProviderError.noSuchItem("transfer \(id)") }
      var transfer = old.transfer
      change(&transfer)
      transfer.updated = date
      var record = TransferRecord(transfer)
      record.id = id
      try record.updateChanges(db, from: old)
      return record.transfer
    }
  }

  /// Transfers not yet done, oldest first: what the queue resumes at start.
  ///
  /// - Parameters:
  ///   - domain: One domain, or nil for all of them.
  public func pendingTransfers(domain: DomainIdentifier? = nil) throws(ProviderError) -> [Transfer] {
    try read("reading the transfer journal") { db in
      try SQLRequest<TransferRecord>(
        sql: "SELECT * FROM transfer WHERE state <> 'done' AND (?1 IS NULL OR domain = ?1) ORDER BY id",
        arguments: [domain?.rawValue], cached: true
      ).fetchAll(db).map(\.transfer)
    }
  }

  /// The transfer with this id, or nil.
  public func transfer(id: Int64) throws(ProviderError) -> Transfer? {
    try read("reading transfer \(id)") { db in try TransferRecord.fetch(db, id: id)?.transfer }
  }

  /// Removes a transfer from the journal.
  ///
  /// - Returns: False when there was none with this id.
  @discardableResult
  public func removeTransfer(_ id: Int64) throws(ProviderError) -> Bool {
    try write("removing transfer \(id)") { db in try TransferRecord.deleteOne(db, key: id) }
  }
}
