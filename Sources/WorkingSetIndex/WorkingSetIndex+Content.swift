import Foundation
import GRDB
import ProviderAPI

/// The content store's bookkeeping: what is materialized, in which version and state, what the
/// LRU may evict, what is pinned (also through a pinned folder) and what an opener has open.
extension WorkingSetIndex {
  /// The materialized content of an item, or nil when it is dataless.
  public func content(domain: DomainIdentifier, identifier: ItemIdentifier) throws(ProviderError) -> MaterializedContent? {
    try read("reading the content record of \(identifier)") { db in
      try ContentRecord.fetch(db, domain: domain, identifier: identifier)?.content
    }
  }

  /// Every content record, least recently accessed first.
  public func allContent(domain: DomainIdentifier? = nil) throws(ProviderError) -> [MaterializedContent] {
    try read("reading the content records") { db in
      try ContentRecord.fetchAll(
        db, sql: "SELECT * FROM content WHERE (?1 IS NULL OR domain = ?1) ORDER BY lastAccess, identifier",
        arguments: [domain?.rawValue]
      ).map(\.content)
    }
  }

  /// Records that the content store now holds `content` for `item`, and that the item is
  /// materialized (so it is in the working set, which is how its remote changes reach the index).
  /// One transaction: the row and the item agree after a crash.
  public func recordMaterialized(_ content: MaterializedContent, item: Item) throws(ProviderError) {
    try write("recording the content of \(item.filename)") { db in
      try ContentRecord(content).save(db)
      try Self.apply(item, domain: content.domain, in: db, insertNew: true) { $0.isMaterialized = true }
    }
  }

  /// Changes a content record in one transaction.
  ///
  /// - Returns: The record as saved, or nil when there is none.
  @discardableResult
  public func updateContent(
    domain: DomainIdentifier, identifier: ItemIdentifier, _ change: (inout MaterializedContent) -> Void
  ) throws(ProviderError) -> MaterializedContent? {
    try write("updating the content record of \(identifier)") { db in
      guard let old = try ContentRecord.fetch(db, domain: domain, identifier: identifier) else { return nil }
      var content = old.content
      change(&content)
      let record = ContentRecord(content)
      try record.update(db)
      return record.content
    }
  }

  /// Marks clean content stale when the server's content version differs from it. Dirty content
  /// and content with an upload pending are left alone: their upload decides (a conflict on the
  /// server keeps both versions).
  ///
  /// - Returns: True when the record became stale.
  @discardableResult
  public func markContentStale(
    domain: DomainIdentifier, identifier: ItemIdentifier, remoteVersion: ItemVersion
  ) throws(ProviderError) -> Bool {
    try write("marking the content of \(identifier) stale") { db in
      try db.execute(
        sql: """
          UPDATE content SET state = 'stale'
          WHERE domain = ?1 AND identifier = ?2 AND state = 'clean' AND versionContent <> ?3
            AND NOT EXISTS (SELECT 1 FROM transfer
              WHERE transfer.domain = ?1 AND transfer.identifier = ?2 AND direction = 'upload' AND state <> 'done')
          """,
        arguments: [domain.rawValue, identifier.rawValue, remoteVersion.content])
      return db.changesCount > 0
    }
  }

  /// Forgets an item's content (evicted, or the item is gone): the row goes and the item is no
  /// longer materialized.
  public func removeContent(domain: DomainIdentifier, identifier: ItemIdentifier) throws(ProviderError) {
    try write("forgetting the content of \(identifier)") { db in
      try ContentRecord.deleteOne(db, key: ["domain": domain.rawValue, "identifier": identifier.rawValue])
      try db.execute(
        sql: "UPDATE item SET isMaterialized = 0 WHERE domain = ? AND identifier = ?",
        arguments: [domain.rawValue, identifier.rawValue])
    }
  }

  /// How many bytes the content store holds, by the index.
  public func contentBytes(domain: DomainIdentifier? = nil) throws(ProviderError) -> Int64 {
    try read("summing the content store") { db in
      try Int64.fetchOne(
        db, sql: "SELECT coalesce(sum(size), 0) FROM content WHERE (?1 IS NULL OR domain = ?1)",
        arguments: [domain?.rawValue]) ?? 0
    }
  }

  /// Content the LRU may evict, least recently accessed first: clean or stale, no upload pending,
  /// not pinned (itself or through a pinned folder above it) and not open in a live process.
  /// The caller still checks each file's stamp (an edit nobody noticed yet) before removing it.
  public func evictionCandidates(domain: DomainIdentifier? = nil) throws(ProviderError) -> [MaterializedContent] {
    try read("choosing content to evict") { db in
      let rows = try Row.fetchAll(
        db,
        sql: """
          SELECT content.*, item.path AS itemPath, coalesce(item.isPinned, 0) AS pinned FROM content
          LEFT JOIN item ON item.domain = content.domain AND item.identifier = content.identifier
          WHERE (?1 IS NULL OR content.domain = ?1) AND content.state IN ('clean', 'stale')
            AND NOT EXISTS (SELECT 1 FROM transfer WHERE transfer.domain = content.domain
              AND transfer.identifier = content.identifier AND direction = 'upload' AND transfer.state <> 'done')
          ORDER BY content.lastAccess, content.identifier
          """,
        arguments: [domain?.rawValue])
      var pinnedFolders: [String: [ItemPath]] = [:]
      var open: Set<String> = []
      for row in try Row.fetchAll(db, sql: "SELECT domain, identifier, pid FROM contentOpen")
      where ProcessLiveness.isAlive(row["pid"]) {
        open.insert((row["domain"] as String) + "\u{0}" + (row["identifier"] as String))
      }
      var out: [MaterializedContent] = []
      for row in rows {
        let record = try ContentRecord(row: row)
        if (row["pinned"] as Bool) || open.contains(record.domain + "\u{0}" + record.identifier) { continue }
        if let path = (row["itemPath"] as Data?).map({ ItemPath(bytes: Array($0)) }) {
          if pinnedFolders[record.domain] == nil {
            pinnedFolders[record.domain] = try Self.pinnedPaths(db, domain: record.domain)
          }
          if pinnedFolders[record.domain]!.contains(where: { Self.isUnder(path, $0) }) { continue }
        }
        out.append(record.content)
      }
      return out
    }
  }

  /// True when the item is pinned ("Keep Downloaded") itself or inherits it from a pinned folder.
  public func isPinned(domain: DomainIdentifier, identifier: ItemIdentifier) throws(ProviderError) -> Bool {
    try read("reading whether \(identifier) is pinned") { db in
      guard let record = try IndexedItemRecord.fetch(db, domain: domain, identifier: identifier) else { return false }
      if record.isPinned { return true }
      let path = ItemPath(bytes: Array(record.path))
      return try Self.pinnedPaths(db, domain: domain.rawValue).contains { Self.isUnder(path, $0) }
    }
  }

  /// Items pinned themselves (files and folders).
  public func pinnedItems(domain: DomainIdentifier) throws(ProviderError) -> [IndexedItem] {
    try read("reading the pinned items of \(domain)") { db in
      let records = try IndexedItemRecord.fetchAll(
        db, sql: "SELECT * FROM item WHERE domain = ? AND isPinned = 1 ORDER BY path", arguments: [domain.rawValue])
      return try Self.indexedItems(db, records)
    }
  }

  private static func pinnedPaths(_ db: Database, domain: String) throws -> [ItemPath] {
    try Data.fetchAll(db, sql: "SELECT path FROM item WHERE domain = ? AND isPinned = 1", arguments: [domain])
      .map { ItemPath(bytes: Array($0)) }
  }

  /// True when `path` is strictly below `folder`, comparing bytes.
  static func isUnder(_ path: ItemPath, _ folder: ItemPath) -> Bool {
    let prefix = DescendantPaths.prefix(of: folder)
    return path.bytes.count > prefix.count && path.bytes.starts(with: prefix)
  }

  // MARK: - Open content

  /// Records that process `pid` handed the item's content to an opener: it is not evicted while
  /// that process lives.
  public func beginOpen(
    domain: DomainIdentifier, identifier: ItemIdentifier, pid: Int32, at date: Date = Date()
  ) throws(ProviderError) {
    try write("recording that \(identifier) is open") { db in
      try db.execute(
        sql: "INSERT OR REPLACE INTO contentOpen (domain, identifier, pid, started) VALUES (?, ?, ?, ?)",
        arguments: [domain.rawValue, identifier.rawValue, pid, date.timeIntervalSince1970])
    }
  }

  /// The opener returned.
  public func endOpen(domain: DomainIdentifier, identifier: ItemIdentifier, pid: Int32) throws(ProviderError) {
    try write("recording that \(identifier) was closed") { db in
      try db.execute(
        sql: "DELETE FROM contentOpen WHERE domain = ? AND identifier = ? AND pid = ?",
        arguments: [domain.rawValue, identifier.rawValue, pid])
    }
  }

  /// True when a live process has the item's content open.
  public func isOpen(domain: DomainIdentifier, identifier: ItemIdentifier) throws(ProviderError) -> Bool {
    try read("reading whether \(identifier) is open") { db in
      try Int32.fetchAll(
        db, sql: "SELECT pid FROM contentOpen WHERE domain = ? AND identifier = ?",
        arguments: [domain.rawValue, identifier.rawValue]
      ).contains(where: ProcessLiveness.isAlive)
    }
  }

  /// Takes away the open markers of processes that died with content open, and returns those
  /// items: their edits (if any) were never noticed, so the caller checks them now.
  public func takeAbandonedOpens() throws(ProviderError) -> [(domain: DomainIdentifier, identifier: ItemIdentifier)] {
    try write("collecting content left open by processes that ended") { db in
      var out: [(DomainIdentifier, ItemIdentifier)] = []
      for row in try Row.fetchAll(db, sql: "SELECT domain, identifier, pid FROM contentOpen")
      where !ProcessLiveness.isAlive(row["pid"]) {
        try db.execute(
          sql: "DELETE FROM contentOpen WHERE domain = ? AND identifier = ? AND pid = ?",
          arguments: [row["domain"] as String, row["identifier"] as String, row["pid"] as Int32])
        out.append((DomainIdentifier(unchecked: row["domain"]), ItemIdentifier(row["identifier"] as String)))
      }
      return out
    }
  }
}
