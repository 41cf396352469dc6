import Foundation
import GRDB
import ProviderAPI

/// Favorites, ordered by rank. As in the File Provider, a new favorite's rank is the current time
/// in milliseconds since 1970, so favorites list in the order they were added and a rank can be
/// synced without renumbering the others.
extension WorkingSetIndex {
  /// Makes the item a favorite (keeping its rank if it already is one) or removes it.
  ///
  /// - Returns: The item's rank, or nil when it is no longer a favorite.
  @discardableResult
  public func setFavorite(
    _ on: Bool, item: Item, domain: DomainIdentifier, at date: Date = Date()
  ) throws(ProviderError) -> UInt64? {
    try write("changing the favorite \(item.filename)") { db in
      let rank: Int64? =
        if on {
          try IndexedItemRecord.fetch(db, domain: domain, identifier: item.identifier)?.favoriteRank
            ?? Self.nextFavoriteRank(db, at: date)
        } else {
          nil
        }
      var provided = item
      provided.favoriteRank = nil
      try Self.apply(provided, domain: domain, in: db, insertNew: true) { $0.favoriteRank = rank }
      return rank.map { UInt64(clamping: $0) }
    }
  }

  /// Sets an explicit rank (after the user reorders favorites), or nil to remove the favorite.
  public func setFavoriteRank(_ rank: UInt64?, item: Item, domain: DomainIdentifier) throws(ProviderError) {
    try write("ranking the favorite \(item.filename)") { db in
      var provided = item
      provided.favoriteRank = nil
      try Self.apply(provided, domain: domain, in: db, insertNew: true) {
        $0.favoriteRank = rank.map { Int64(clamping: $0) }
      }
    }
  }

  /// Favorites across domains, by rank; trashed ones are left out.
  public func favorites() throws(ProviderError) -> [IndexedItem] {
    try read("listing favorites") { db in try Self.favorites(db) }
  }

  static func favorites(_ db: Database) throws -> [IndexedItem] {
    let records = try IndexedItemRecord.fetchAll(
      db,
      sql: """
        SELECT * FROM item
        WHERE favoriteRank IS NOT NULL AND NOT isTrashed AND NOT insideTrash
        ORDER BY favoriteRank, id
        """)
    return try indexedItems(db, records)
  }

  /// The ranks of those identifiers that are favorites.
  public func favoriteRanks(
    of identifiers: [ItemIdentifier], domain: DomainIdentifier
  ) throws(ProviderError) -> [ItemIdentifier: UInt64] {
    try read("reading favorite ranks") { db in
      var ranks: [ItemIdentifier: UInt64] = [:]
      let statement = try db.cachedStatement(
        sql: "SELECT favoriteRank FROM item WHERE domain = ? AND identifier = ? AND favoriteRank IS NOT NULL")
      for identifier in identifiers {
        if let rank = try Int64.fetchOne(statement, arguments: [domain.rawValue, identifier.rawValue]) {
          ranks[identifier] = UInt64(clamping: rank)
        }
      }
      return ranks
    }
  }

  /// Now in epoch milliseconds, or one past the highest rank if that is later (clock skew, or two
  /// favorites in the same millisecond): a new favorite always goes last.
  static func nextFavoriteRank(_ db: Database, at date: Date) throws -> Int64 {
    let now = Int64(date.timeIntervalSince1970 * 1000)
    let highest = try Int64.fetchOne(db, sql: "SELECT max(favoriteRank) FROM item") ?? Int64.min
    return highest == Int64.max ? highest : max(now, highest + 1)
  }
}
