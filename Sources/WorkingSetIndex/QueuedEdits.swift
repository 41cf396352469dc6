import Foundation
import GRDB

/// Edits queued for an item that will not take them: it was deleted, or its identifier now names
/// another item (path-keyed storage). Sent as content they would go into the wrong item or
/// nowhere; they are kept as a new file instead, where the item was (test plan §1.5 I3: edits
/// win over a delete).
enum QueuedEdits {
  /// Turns the queued (not running) content uploads of `identifier` into creates of a new file
  /// named `name` in `parent`, carrying `newIdentifier` (the original's, so the conflict is
  /// recorded against it; or a fresh placeholder when the original's identifier is taken).
  ///
  /// - Returns: How many uploads were turned.
  @discardableResult
  static func keepAsNewFile(
    _ db: Database, domain: String, of identifier: String, as newIdentifier: String, in parent: String, named name: Data
  ) throws -> Int {
    try db.execute(
      sql: """
        UPDATE transfer SET identifier = ?, parentIdentifier = ?, name = ?, baseVersionContent = NULL,
          baseVersionMetadata = NULL, resultIdentifier = NULL
        WHERE domain = ? AND identifier = ? AND direction = 'upload' AND baseVersionContent IS NOT NULL
          AND state NOT IN ('done', 'running')
        """,
      arguments: [newIdentifier, parent, name, domain, identifier])
    return db.changesCount
  }
}
