import FolioProtocol
import Foundation
import GRDB

/// `ROOT/server.sqlite`: users, tokens, items, per-user fields and the change log.
///
/// One `DatabasePool` in WAL mode with `synchronous=FULL`: a commit is on disk before the answer
/// that reports it, and `folio serve admin` (another process) reads and writes the same file while
/// the server runs, waiting on SQLite's busy timeout instead of failing.
struct ServerDatabase: Sendable {
  let pool: DatabasePool

  /// Opens (creating if needed) and migrates the database under `root`.
  init(root: URL) throws {
    let url = root.appendingPathComponent("server.sqlite")
    var config = Configuration()
    config.label = "FolioServer"
    config.busyMode = .timeout(10)
    config.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = FULL")
      // Names sort as on every other location (NameCollation.swift): needed by the name indexes.
      db.add(collation: NameCollation.collation)
    }
    pool = try DatabasePool(path: url.path, configuration: config)
    // GRDB sets synchronous=NORMAL on the writer when it switches to WAL, after prepareDatabase.
    try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
    try Self.migrator.migrate(pool)
  }

  /// Named migrations, never edited once shipped: a new need is a new migration.
  static var migrator: DatabaseMigrator {
    var m = DatabaseMigrator()
    m.registerMigration("v1-schema") { db in
      try db.execute(
        sql: """
          CREATE TABLE meta(key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
          CREATE TABLE user(
            name TEXT PRIMARY KEY NOT NULL,
            salt BLOB NOT NULL,
            hash BLOB NOT NULL,
            quota INTEGER,
            created REAL NOT NULL);
          CREATE TABLE token(
            hash BLOB PRIMARY KEY NOT NULL,
            user TEXT NOT NULL REFERENCES user(name) ON DELETE CASCADE,
            created REAL NOT NULL,
            expires REAL NOT NULL);
          CREATE INDEX token_user ON token(user);
          CREATE TABLE item(
            id TEXT PRIMARY KEY NOT NULL,
            parent TEXT,
            name TEXT NOT NULL,
            is_folder INTEGER NOT NULL,
            size INTEGER NOT NULL DEFAULT 0,
            sha256 TEXT,
            content_version INTEGER NOT NULL DEFAULT 0,
            metadata_version INTEGER NOT NULL DEFAULT 1,
            created REAL NOT NULL,
            modified REAL NOT NULL,
            owner TEXT NOT NULL,
            editor TEXT,
            trashed REAL,
            original_parent TEXT,
            original_path TEXT,
            conflict_of TEXT,
            locked_by TEXT,
            deleted INTEGER NOT NULL DEFAULT 0,
            rank INTEGER NOT NULL);
          CREATE UNIQUE INDEX item_unique_name ON item(parent, name) WHERE deleted = 0 AND parent <> 'trash';
          CREATE INDEX item_by_name ON item(parent, name, id);
          CREATE INDEX item_by_kind_name ON item(parent, is_folder, name, id);
          CREATE INDEX item_by_date ON item(parent, modified, id);
          CREATE INDEX item_by_size ON item(parent, size, id);
          CREATE INDEX item_by_trashed ON item(parent, trashed, id);
          CREATE INDEX item_by_rank ON item(rank);
          CREATE INDEX item_by_owner ON item(owner) WHERE deleted = 0;
          CREATE INDEX item_conflicts ON item(conflict_of) WHERE conflict_of IS NOT NULL;
          CREATE TABLE user_item(
            user TEXT NOT NULL,
            item TEXT NOT NULL,
            tags TEXT NOT NULL DEFAULT '[]',
            favorite_rank INTEGER,
            last_used REAL,
            PRIMARY KEY(user, item)) WITHOUT ROWID;
          CREATE INDEX user_item_item ON user_item(item);
          """)
      var epoch = [UInt8](repeating: 0, count: 8)
      for i in epoch.indices { epoch[i] = UInt8.random(in: 0...255) }
      let now = Date().timeIntervalSince1970
      try db.execute(
        sql: """
          INSERT INTO meta(key, value) VALUES ('epoch', ?), ('rank', '2'), ('nextId', '1'), ('tombstoneFloor', '0');
          INSERT INTO item(id, parent, name, is_folder, created, modified, owner, rank)
            VALUES ('root', NULL, ?, 1, ?, ?, '', 1), ('trash', NULL, ?, 1, ?, ?, '', 2);
          """,
        arguments: [
          epoch.map { String(format: "%02x", $0) }.joined(), ItemRecord.rootName, now, now, ItemRecord.trashName,
          now, now,
        ])
    }
    // Folders-first listings by date or size read one kind at a time (ItemStore+Listing): an
    // index per kind and key, so neither kind is found by filtering the whole folder.
    m.registerMigration("v2-kind-indexes") { db in
      try db.execute(
        sql: """
          CREATE INDEX item_by_kind_date ON item(parent, is_folder, modified, id);
          CREATE INDEX item_by_kind_size ON item(parent, is_folder, size, id);
          """)
    }
    // Listings by name sort naturally and case-insensitively (NameCollation.swift): the name
    // indexes are rebuilt in that order, so a page still comes from an index, not a sort.
    m.registerMigration("v3-natural-name-order") { db in
      try db.execute(
        sql: """
          DROP INDEX item_by_name;
          DROP INDEX item_by_kind_name;
          CREATE INDEX item_by_name ON item(parent, name COLLATE \(NameCollation.name), id);
          CREATE INDEX item_by_kind_name ON item(parent, is_folder, name COLLATE \(NameCollation.name), id);
          """)
    }
    return m
  }
}

/// The counters in `meta`: the change log's rank, the next item number, the database's epoch.
enum Meta {
  static func string(_ db: Database, _ key: String) throws -> String {
    guard let v = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]) else {
      throw ServerError(.serverError, "meta \(key) is missing")
    }
    return v
  }

  static func int(_ db: Database, _ key: String) throws -> Int64 {
    guard let n = Int64(try string(db, key)) else { throw ServerError(.serverError, "meta \(key) is not a number") }
    return n
  }

  static func set(_ db: Database, _ key: String, _ value: Int64) throws {
    try db.execute(sql: "UPDATE meta SET value = ? WHERE key = ?", arguments: [String(value), key])
  }

  /// The next rank of the change log: every mutation of an item takes one.
  static func nextRank(_ db: Database) throws -> Int64 {
    let r = try int(db, "rank") + 1
    try set(db, "rank", r)
    return r
  }

  /// A fresh item identifier, never reused (tombstones keep theirs).
  static func nextItemID(_ db: Database) throws -> String {
    let n = try int(db, "nextId")
    try set(db, "nextId", n + 1)
    return "i\(n)"
  }
}
