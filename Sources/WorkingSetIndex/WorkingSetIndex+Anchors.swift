import Foundation
import GRDB
import ProviderAPI

/// Sync anchors: per domain and container, the point in the change history the index reflects.
extension WorkingSetIndex {
  /// Stores the anchor the index is now up to date with, or forgets it (nil: the next sync
  /// re-enumerates from scratch).
  public func setAnchor(
    _ anchor: SyncAnchor?, domain: DomainIdentifier, container: ItemIdentifier = .workingSet, at date: Date = Date()
  ) throws(ProviderError) {
    try write("saving the sync anchor of \(domain)") { db in
      if let anchor {
        try db.execute(
          sql: """
            INSERT INTO syncAnchor (domain, container, anchor, updated) VALUES (?, ?, ?, ?)
            ON CONFLICT (domain, container) DO UPDATE SET anchor = excluded.anchor, updated = excluded.updated
            """,
          arguments: [domain.rawValue, container.rawValue, anchor.data, date.timeIntervalSince1970])
      } else {
        try SyncAnchorRecord.deleteOne(db, key: ["domain": domain.rawValue, "container": container.rawValue])
      }
    }
  }

  /// The stored anchor, or nil when the container was never synced (or its anchor was dropped).
  public func anchor(
    domain: DomainIdentifier, container: ItemIdentifier = .workingSet
  ) throws(ProviderError) -> SyncAnchor? {
    try read("reading the sync anchor of \(domain)") { db in
      let record = try SyncAnchorRecord.fetchOne(db, key: ["domain": domain.rawValue, "container": container.rawValue])
      return try record.map { try SyncAnchor($0.anchor) }
    }
  }
}
