import FolioProtocol
import Foundation
import GRDB

/// The tree of items and its change log, over `ServerDatabase`.
///
/// Reads run on the pool's readers; every mutation is one write transaction that checks (names,
/// quotas, versions) and changes together, so two requests can never both take a name or both
/// spend the last byte of a quota. After each commit the `ChangeNotifier` learns the new end of the
/// log and wakes the long-polls.
struct ItemStore: Sendable {
  let database: ServerDatabase
  let content: ContentStore
  let notifier: ChangeNotifier
  /// Chosen when the database was created; part of every anchor and page token.
  let epoch: String

  init(database: ServerDatabase, content: ContentStore, notifier: ChangeNotifier) throws {
    self.database = database
    self.content = content
    self.notifier = notifier
    epoch = try database.pool.read { db in try Meta.string(db, "epoch") }
  }

  var pool: DatabasePool { database.pool }

  /// The end of the change log now.
  func currentRank() throws -> Int64 {
    try pool.read { db in try Meta.int(db, "rank") }
  }

  /// Runs one write transaction, then tells the notifier where the log ends.
  func mutate<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
    let (value, rank) = try await pool.write { db -> (T, Int64) in
      let v = try body(db)
      return (v, try Meta.int(db, "rank"))
    }
    await notifier.advance(to: rank)
    return value
  }

  /// The wire form of one item for `user`.
  func item(_ id: String, for user: String) async throws -> WireItem {
    try await pool.read { db in try ItemRecord.live(db, id: id).wire(db, for: user) }
  }

  /// The live item at `path` ("/a/b"), walking names from the root.
  func lookup(path: String, for user: String) async throws -> WireItem {
    try await pool.read { db in
      var current = try ItemRecord.live(db, id: "root")
      for component in path.split(separator: "/", omittingEmptySubsequences: true) {
        guard let next = try ItemRecord.child(db, parent: current.id, name: String(component)) else {
          throw ServerError(.noSuchItem, "nothing at \(path)")
        }
        current = next
      }
      return try current.wire(db, for: user)
    }
  }

  /// Bytes of live files `user` owns: trashed files and conflict copies count until deleted forever.
  static func usedBytes(_ db: Database, user: String) throws -> Int64 {
    try Int64.fetchOne(
      db, sql: "SELECT COALESCE(SUM(size), 0) FROM item WHERE owner = ? AND deleted = 0 AND is_folder = 0",
      arguments: [user]) ?? 0
  }

  static func quota(_ db: Database, user: String) throws -> Int64? {
    try Int64?.fetchOne(db, sql: "SELECT quota FROM user WHERE name = ?", arguments: [user]) ?? nil
  }

  /// Throws insufficientQuota when `extra` more bytes would take `user` over their quota.
  static func checkQuota(_ db: Database, user: String, extra: Int64) throws {
    guard extra > 0, let quota = try quota(db, user: user) else { return }
    let used = try usedBytes(db, user: user)
    if used + extra > quota {
      throw ServerError(
        .insufficientQuota, "\(user) would use \(used + extra) of \(quota) bytes")
    }
  }

  func account(_ user: String) async throws -> AccountResponse {
    try await pool.read { db in
      AccountResponse(user: user, usedBytes: try Self.usedBytes(db, user: user), quotaBytes: try Self.quota(db, user: user))
    }
  }
}
