import FolioProtocol
import Foundation
import GRDB

/// The change log: every item row carries the rank of its last mutation, tombstones included.
///
/// "Changes since A" is the rows ranked above A, oldest first — the model of Apple's sample server
/// (fileprovider-semantics.md §9). A row appears once with its latest state however often it
/// changed, so a batch never replays history, only the present.
extension ItemStore {
  func anchor() async throws -> String {
    let epoch = epoch
    return try await pool.read { db in SyncAnchor(epoch: epoch, rank: try Meta.int(db, "rank")).encoded }
  }

  /// Parses `since` and checks it is still answerable: this epoch, not past the end of the log,
  /// not older than the oldest tombstone kept.
  func validAnchor(_ since: String) throws -> SyncAnchor {
    let anchor = try SyncAnchor(decoding: since, epoch: epoch)
    let (rank, floor) = try pool.read { db in (try Meta.int(db, "rank"), try Meta.int(db, "tombstoneFloor")) }
    guard anchor.rank <= rank, anchor.rank >= floor else {
      throw ServerError(.syncAnchorExpired, "the sync anchor is no longer known to this server")
    }
    return anchor
  }

  /// One batch of changes after `since` for `user`. An empty `since` is the start of the log: a
  /// client with no anchor reads the whole tree this way (its working set, once), and the start
  /// never expires (tombstones below the floor are simply gone, and nothing needs them).
  func changes(since: String, limit: Int, for user: String) async throws -> ChangesResponse {
    let start = since.isEmpty ? SyncAnchor(epoch: epoch, rank: 0) : try validAnchor(since)
    let epoch = epoch
    let limit = max(1, min(limit, WireRoutes.maxPageSize))
    return try await pool.read { db in
      let end = try Meta.int(db, "rank")
      let rows = try ItemRecord.fetchAll(
        db, sql: "SELECT \(ItemRecord.columns) FROM item WHERE rank > ? ORDER BY rank LIMIT ?",
        arguments: [start.rank, limit + 1])
      let batch = rows.prefix(limit)
      var updated: [WireItem] = []
      var deleted: [String] = []
      for row in batch {
        if row.deleted {
          deleted.append(row.id)
        } else {
          updated.append(try row.wire(db, for: user))
        }
      }
      let more = rows.count > limit
      let next = more ? (batch.last?.rank ?? start.rank) : end
      return ChangesResponse(
        updated: updated, deleted: deleted, anchor: SyncAnchor(epoch: epoch, rank: next).encoded, more: more)
    }
  }

  /// Forgets tombstones older than `age` seconds, raising the floor below which anchors expire.
  ///
  /// Run at start: a client that has not synced for longer than `age` re-enumerates instead of
  /// missing a delete.
  func pruneTombstones(olderThan age: TimeInterval) async throws {
    let cutoff = Date().timeIntervalSince1970 - age
    try await pool.write { db in
      guard
        let maxRank = try Int64.fetchOne(
          db, sql: "SELECT MAX(rank) FROM item WHERE deleted = 1 AND modified < ?", arguments: [cutoff])
      else { return }
      try db.execute(sql: "DELETE FROM item WHERE deleted = 1 AND rank <= ?", arguments: [maxRank])
      if maxRank > (try Meta.int(db, "tombstoneFloor")) { try Meta.set(db, "tombstoneFloor", maxRank) }
    }
  }
}
