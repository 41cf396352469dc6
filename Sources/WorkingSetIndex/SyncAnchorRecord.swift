import Foundation
import GRDB

/// One row of `syncAnchor`: where a container's change history was last read.
struct SyncAnchorRecord: Codable, Equatable, FetchableRecord, TableRecord {
  static let databaseTableName = "syncAnchor"

  var domain: String
  var container: String
  /// Opaque, at most 500 bytes (a CHECK constraint holds the line too).
  var anchor: Data
  var updated: Double
}
