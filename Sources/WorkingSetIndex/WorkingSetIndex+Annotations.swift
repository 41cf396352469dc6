import Foundation
import GRDB
import ProviderAPI

/// What the index owns about one item a provider listed: merged into the provider's items before
/// they are shown (a folder's page, an item just renamed).
public struct ItemAnnotation: Sendable, Equatable {
  public var lastUsed: Date?
  public var favoriteRank: UInt64?
  /// Tags only the index holds (the provider could not store them); empty when the index merely
  /// mirrors the provider's tags, which the provider's own answer supersedes.
  public var indexOnlyTags: [String]
  /// The creation date the index saw: an item the provider lists with another one is a new item
  /// that was given a deleted item's identifier (a reused inode), and gets none of this.
  public var created: Date?

  public init(lastUsed: Date? = nil, favoriteRank: UInt64? = nil, indexOnlyTags: [String] = [], created: Date? = nil) {
    self.lastUsed = lastUsed
    self.favoriteRank = favoriteRank
    self.indexOnlyTags = indexOnlyTags
    self.created = created
  }
}

extension WorkingSetIndex {
  /// The per-user fields of a page of items, in one read: one `identifier IN (…)` query for the
  /// rows and one for the tags of the rows whose tags live only here — not a query per item, which
  /// put a page of 200 rows ~15–40 ms behind its provider.
  ///
  /// - Returns: An annotation for each identifier the index knows something about (a last use, a
  ///   favorite rank or index-only tags); identifiers it knows nothing about are absent.
  public func annotations(
    of identifiers: [ItemIdentifier], domain: DomainIdentifier
  ) throws(ProviderError) -> [ItemIdentifier: ItemAnnotation] {
    guard !identifiers.isEmpty else { return [:] }
    return try read("reading what the index keeps about \(identifiers.count) item(s)") { db in
      var result: [ItemIdentifier: ItemAnnotation] = [:]
      var tagged: [String] = []
      for chunk in Self.chunks(identifiers.map(\.rawValue)) {
        let rows = try Row.fetchAll(
          db,
          sql: """
            SELECT identifier, lastUsed, favoriteRank, tagsInIndexOnly, created FROM item
            WHERE domain = ? AND identifier IN (\(Self.placeholders(chunk.count)))
              AND (lastUsed IS NOT NULL OR favoriteRank IS NOT NULL OR tagsInIndexOnly)
            """,
          arguments: StatementArguments([domain.rawValue] + chunk))
        for row in rows {
          let identifier: String = row["identifier"]
          let used: Double? = row["lastUsed"]
          let rank: Int64? = row["favoriteRank"]
          let indexOnly: Bool = row["tagsInIndexOnly"]
          let created: Double? = row["created"]
          result[ItemIdentifier(identifier)] = ItemAnnotation(
            lastUsed: used.map { Date(timeIntervalSince1970: $0) }, favoriteRank: rank.map { UInt64(clamping: $0) },
            created: created.map { Date(timeIntervalSince1970: $0) })
          if indexOnly { tagged.append(identifier) }
        }
      }
      for chunk in Self.chunks(tagged) {
        let rows = try Row.fetchAll(
          db,
          sql: """
            SELECT identifier, name FROM tag
            WHERE domain = ? AND identifier IN (\(Self.placeholders(chunk.count)))
            ORDER BY identifier, position
            """,
          arguments: StatementArguments([domain.rawValue] + chunk))
        for row in rows {
          let identifier = ItemIdentifier(row["identifier"] as String)
          result[identifier, default: ItemAnnotation()].indexOnlyTags.append(row["name"])
        }
      }
      return result
    }
  }

  /// At most 500 values per `IN (…)`: well under SQLite's limit on bound parameters, whatever the
  /// build (999 before SQLite 3.32).
  static func chunks(_ values: [String]) -> [[String]] {
    stride(from: 0, to: values.count, by: 500).map { Array(values[$0..<min($0 + 500, values.count)]) }
  }

  static func placeholders(_ n: Int) -> String { Array(repeating: "?", count: n).joined(separator: ", ") }
}
