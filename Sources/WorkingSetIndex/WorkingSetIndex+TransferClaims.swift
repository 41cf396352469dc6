import Foundation
import GRDB
import ProviderAPI

/// What the transfer queue asks of the journal beyond plain rows: claiming a transfer so two
/// processes (the browser and `folio sync`) never run the same one, releasing throttled transfers,
/// rebasing queued uploads, and the counts `folio domain list` shows.
extension WorkingSetIndex {
  /// Takes a transfer for this process: `queued`, `throttled` (a resolve signal released it), or
  /// `running` for a process that is gone (a crash, `kill -9`) becomes `running` with `pid`.
  ///
  /// - Returns: The claimed transfer, or nil when it is done, failed, gone, or running in another
  ///   live process.
  public func claimTransfer(_ id: Int64, pid: Int32, at date: Date = Date()) throws(ProviderError) -> Transfer? {
    try write("claiming transfer \(id)") { db in
      guard let old = try TransferRecord.fetch(db, id: id) else { return nil }
      var transfer = old.transfer
      switch transfer.state {
      case .done, .failed: return nil
      case .running:
        if let owner = transfer.ownerPID, owner != pid, ProcessLiveness.isAlive(owner) { return nil }
      case .queued, .throttled: break
      }
      transfer.state = .running
      transfer.ownerPID = pid
      transfer.throttledByCode = nil
      transfer.updated = date
      var record = TransferRecord(transfer)
      record.id = id
      try record.updateChanges(db, from: old)
      return record.transfer
    }
  }

  /// Puts every transfer of `domain` throttled by `code` (any code when nil) back in the queue:
  /// the condition was resolved (a sign-in, the network back, freed quota, a person's retry).
  ///
  /// - Returns: How many were released.
  @discardableResult
  public func releaseThrottledTransfers(
    domain: DomainIdentifier, code: Int? = nil, at date: Date = Date()
  ) throws(ProviderError) -> Int {
    try write("releasing the throttled transfers of \(domain)") { db in
      try db.execute(
        sql: """
          UPDATE transfer SET state = 'queued', throttledByCode = NULL, nextAttemptAt = NULL, updated = ?
          WHERE domain = ? AND state = 'throttled' AND (? IS NULL OR throttledByCode = ?)
          """,
        arguments: [date.timeIntervalSince1970, domain.rawValue, code, code])
      return db.changesCount
    }
  }

  /// Gives the queued uploads of an item that were based on `old` the base `new`: the upload
  /// before them (the same person's earlier edit) was accepted and is now the server's version,
  /// so the later edits build on it rather than conflicting with it.
  @discardableResult
  public func rebaseUploads(
    domain: DomainIdentifier, identifier: ItemIdentifier, from old: ItemVersion, to new: ItemVersion
  ) throws(ProviderError) -> Int {
    try write("rebasing the uploads of \(identifier)") { db in
      try db.execute(
        sql: """
          UPDATE transfer SET baseVersionContent = ?, baseVersionMetadata = ?
          WHERE domain = ? AND identifier = ? AND direction = 'upload' AND state <> 'done'
            AND baseVersionContent = ? AND state <> 'running'
          """,
        arguments: [new.content, new.metadata, domain.rawValue, identifier.rawValue, old.content])
      return db.changesCount
    }
  }

  /// Pending uploads of one item (oldest first): content that is not on the server yet.
  public func pendingUploads(domain: DomainIdentifier, identifier: ItemIdentifier) throws(ProviderError) -> [Transfer] {
    try read("reading the uploads of \(identifier)") { db in
      try TransferRecord.fetchAll(
        db,
        sql: """
          SELECT * FROM transfer WHERE domain = ? AND identifier = ? AND direction = 'upload' AND state <> 'done'
          ORDER BY id
          """,
        arguments: [domain.rawValue, identifier.rawValue]
      ).map(\.transfer)
    }
  }

  /// How many transfers of a domain are in each state, for `folio domain list` ("syncing 3") and
  /// the status line.
  public func transferCounts(domain: DomainIdentifier) throws(ProviderError) -> TransferCounts {
    try read("counting the transfers of \(domain)") { db in
      var counts = TransferCounts()
      let rows = try Row.fetchAll(
        db, sql: "SELECT state, direction, count(*) AS n FROM transfer WHERE domain = ? GROUP BY state, direction",
        arguments: [domain.rawValue])
      for row in rows {
        let n: Int = row["n"]
        let upload = (row["direction"] as String) == "upload"
        switch Transfer.State(rawValue: row["state"]) {
        case .queued: counts.queued += n
        case .running: counts.running += n
        case .throttled: counts.throttled += n
        case .failed: counts.failed += n
        case .done, nil: continue
        }
        if upload { counts.uploads += n } else { counts.downloads += n }
      }
      return counts
    }
  }
}

/// The transfers of one domain by state (done ones are not counted).
public struct TransferCounts: Sendable, Equatable {
  public var queued = 0
  public var running = 0
  public var throttled = 0
  public var failed = 0
  public var uploads = 0
  public var downloads = 0
  public init() {}

  /// What "syncing N" counts: everything that will still move without a person's help, plus what
  /// waits for a resolvable condition.
  public var syncing: Int { queued + running + throttled }
}

extension WorkingSetIndex {
  /// Completes an accepted content upload in one transaction: the transfer goes, the item's
  /// other queued uploads based on `base` move to `newVersion` (they hold later edits of the same
  /// person), the item's row is refreshed, and its content record (if any) is changed by
  /// `updateContent`. A crash leaves all of it or none.
  public func finishUpload(
    _ id: Int64, item: Item, domain: DomainIdentifier, base: ItemVersion?,
    updateContent: (inout MaterializedContent) -> Void = { _ in }
  ) throws(ProviderError) {
    try write("completing the upload of \(item.filename)") { db in
      try TransferRecord.deleteOne(db, key: id)
      if let base {
        try db.execute(
          sql: """
            UPDATE transfer SET baseVersionContent = ?, baseVersionMetadata = ?
            WHERE domain = ? AND identifier = ? AND direction = 'upload' AND state NOT IN ('done', 'running')
              AND baseVersionContent = ?
            """,
          arguments: [item.version.content, item.version.metadata, domain.rawValue, item.identifier.rawValue, base.content])
      }
      try Self.apply(item, domain: domain, in: db, insertNew: false)
      if let old = try ContentRecord.fetch(db, domain: domain, identifier: item.identifier) {
        var content = old.content
        updateContent(&content)
        try ContentRecord(content).update(db)
      }
    }
  }
}
