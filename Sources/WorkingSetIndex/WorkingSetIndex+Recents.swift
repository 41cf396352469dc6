import Foundation
import GRDB
import ProviderAPI

/// Recents and the other lists the browser shows from the index alone.
extension WorkingSetIndex {
  /// The working set, most recently used first; items never used (tagged, shared, …) come after
  /// the used ones. Recently deleted items stay in it (the Files app's Recents shows them, marked),
  /// as the working set does; `IndexedItem.isTrashed` tells them apart.
  ///
  /// A page is one scan of the partial index `item_recents`, so it costs the same over a few items
  /// or millions.
  ///
  /// - Parameters:
  ///   - tag: Only items carrying this tag.
  public func recents(limit: Int, offset: Int = 0, tag: String? = nil) throws(ProviderError) -> [IndexedItem] {
    try read("reading Recents") { db in try Self.recents(db, limit: limit, offset: offset, tag: tag) }
  }

  /// Recents as a stream: the first page now, then again after every change that affects it.
  ///
  /// No provider is called; the stream works with every remote offline. Consecutive equal pages
  /// are not repeated.
  public func recentsObservation(limit: Int, tag: String? = nil) -> AsyncValueObservation<[IndexedItem]> {
    ValueObservation
      .tracking { db in try Self.recents(db, limit: limit, offset: 0, tag: tag) }
      .removeDuplicates()
      .values(in: writer)
  }

  /// `recentsObservation` as a plain stream, for callers that don't import GRDB.
  public func recentsStream(limit: Int, tag: String? = nil) -> AsyncThrowingStream<[IndexedItem], any Error> {
    Self.stream(recentsObservation(limit: limit, tag: tag))
  }

  /// An observation as a plain stream; ending the stream cancels the observation.
  static func stream<T: Sendable>(_ observation: AsyncValueObservation<T>) -> AsyncThrowingStream<T, any Error> {
    AsyncThrowingStream { continuation in
      let task = Task {
        do {
          for try await value in observation { continuation.yield(value) }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// Top-level trashed items (Recently Deleted), most recently trashed first.
  ///
  /// - Parameters:
  ///   - domain: One domain, or nil for all of them.
  public func trashed(domain: DomainIdentifier? = nil) throws(ProviderError) -> [IndexedItem] {
    try read("reading Recently Deleted") { db in
      let records = try IndexedItemRecord.fetchAll(
        db,
        sql: """
          SELECT * FROM item WHERE isTrashed = 1 AND (?1 IS NULL OR domain = ?1)
          ORDER BY trashedDate DESC, id DESC
          """,
        arguments: [domain?.rawValue])
      return try Self.indexedItems(db, records)
    }
  }

  /// The indexed item with this identifier, or nil.
  public func item(domain: DomainIdentifier, identifier: ItemIdentifier) throws(ProviderError) -> IndexedItem? {
    try read("reading an item") { db in
      try IndexedItemRecord.fetch(db, domain: domain, identifier: identifier).map { try Self.indexedItems(db, [$0])[0] }
    }
  }

  /// The indexed item at this exact path (bytes), or nil.
  public func item(domain: DomainIdentifier, path: ItemPath) throws(ProviderError) -> IndexedItem? {
    try read("reading an item") { db in
      try IndexedItemRecord.fetch(db, domain: domain, path: path).map { try Self.indexedItems(db, [$0])[0] }
    }
  }

  /// How a Recents page is read.
  enum RecentsPlan {
    /// The working set in order: one scan of `item_recents`, stopping at the page's end.
    case all
    /// A common tag: the same scan, keeping items that carry the tag.
    case scanForTag
    /// A rare tag: its items through `tag_name`, then sorted. Scanning a 100,000-item working set
    /// (1,000,000 items) for a tag few items carry took 86 ms in a debug build; this took 0.3 ms.
    case lookUpTag
  }

  /// Above this many items with the tag, scanning the working set in order finds a page sooner
  /// than sorting every tagged item.
  static let rareTagLimit = 1000

  /// The SQL of a Recents page; kept in one place so tests can check its query plan.
  static func recentsSQL(_ plan: RecentsPlan) -> String {
    switch plan {
    case .all:
      return """
        SELECT * FROM item
        WHERE inWorkingSet = 1
        ORDER BY lastUsed DESC, id DESC
        LIMIT :limit OFFSET :offset
        """
    case .scanForTag:
      return """
        SELECT * FROM item
        WHERE inWorkingSet = 1
          AND EXISTS (SELECT 1 FROM tag
            WHERE tag.domain = item.domain AND tag.identifier = item.identifier AND tag.name = :tag)
        ORDER BY lastUsed DESC, id DESC
        LIMIT :limit OFFSET :offset
        """
    case .lookUpTag:
      return """
        SELECT item.* FROM tag CROSS JOIN item USING (domain, identifier)
        WHERE tag.name = :tag AND item.inWorkingSet = 1
        ORDER BY item.lastUsed DESC, item.id DESC
        LIMIT :limit OFFSET :offset
        """
    }
  }

  static func recents(_ db: Database, limit: Int, offset: Int, tag: String?) throws -> [IndexedItem] {
    var arguments: StatementArguments = ["limit": limit, "offset": offset]
    var plan = RecentsPlan.all
    if var tag {
      tag = try spelling(of: tag, db)
      arguments += ["tag": tag]
      let tagged = try Int.fetchOne(
        db, sql: "SELECT count(*) FROM (SELECT 1 FROM tag WHERE name = ? LIMIT ?)", arguments: [tag, rareTagLimit + 1])
      plan = (tagged ?? 0) > rareTagLimit ? .scanForTag : .lookUpTag
    }
    let records = try IndexedItemRecord.fetchAll(db, sql: recentsSQL(plan), arguments: arguments)
    return try indexedItems(db, records)
  }
}

extension WorkingSetIndex {
  /// The live items the index knows in one folder (its working-set and downloaded children): what
  /// a folder of a server shows while the server cannot be reached. At most `limit`.
  public func children(
    domain: DomainIdentifier, of parent: ItemIdentifier, limit: Int = 10_000
  ) throws(ProviderError) -> [IndexedItem] {
    try read("reading the known items of a folder") { db in
      let records = try IndexedItemRecord.fetchAll(
        db,
        sql: """
          SELECT * FROM item WHERE domain = ? AND parentIdentifier = ? AND identifier != parentIdentifier
            AND isTrashed = 0 AND insideTrash = 0
          LIMIT ?
          """,
        arguments: [domain.rawValue, parent.rawValue, limit])
      return try Self.indexedItems(db, records)
    }
  }
}
