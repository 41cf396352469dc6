import GRDB

/// The schema, as a list of named migrations.
///
/// A migration that has landed is never edited: a change is a new migration appended at the end of
/// `landedMigrations`. They are written in SQL rather than with GRDB's schema builder so that the
/// schema they create cannot drift when GRDB changes how it spells a definition.
///
/// An existing index is migrated by GRDB's `DatabaseMigrator`, one transaction per migration. A
/// new, empty database gets every migration in one transaction (`migrateNewDatabase`): the
/// migrator cannot run inside an outer transaction, and one commit per step cost about a dozen
/// `fdatasync`s (~18 ms) on every first launch.
extension WorkingSetIndex {
  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    for (identifier, migrate) in landedMigrations { migrator.registerMigration(identifier, migrate: migrate) }
    return migrator
  }

  /// The migrations in order: (identifier, body). Append only.
  static var landedMigrations: [(String, @Sendable (Database) throws -> Void)] {
    var migrations: [(String, @Sendable (Database) throws -> Void)] = []

    // Items the index knows, with the per-user fields it owns.
    //
    // `id` is an explicit INTEGER PRIMARY KEY (an alias of the rowid) so that VACUUM cannot renumber
    // rows under the external-content FTS table; (domain, identifier) is the item's key.
    // Dates are REAL seconds since 1970. Names and paths are BLOBs: the exact bytes, compared with
    // memcmp; nameText is their lossy UTF-8 decoding, for search and display only.
    // inWorkingSet is generated, so SQLite maintains it on every write: recently used, tagged,
    // favorite, shared, materialized, pinned or trashed, and not inside a trashed folder.
    migrations.append(("v1-items", { db in
      try db.execute(
        sql: """
          CREATE TABLE item (
            id INTEGER PRIMARY KEY,
            domain TEXT NOT NULL,
            identifier TEXT NOT NULL,
            parentIdentifier TEXT NOT NULL,
            name BLOB NOT NULL,
            nameText TEXT NOT NULL,
            path BLOB NOT NULL,
            contentType TEXT NOT NULL,
            kind TEXT NOT NULL,
            size INTEGER,
            childItemCount INTEGER,
            created REAL,
            modified REAL,
            lastUsed REAL,
            favoriteRank INTEGER,
            isTrashed INTEGER NOT NULL DEFAULT 0,
            insideTrash INTEGER NOT NULL DEFAULT 0,
            originalPath BLOB,
            trashedDate REAL,
            isShared INTEGER NOT NULL DEFAULT 0,
            isSharedByCurrentUser INTEGER NOT NULL DEFAULT 0,
            ownerName TEXT,
            mostRecentEditorName TEXT,
            isDownloaded INTEGER NOT NULL DEFAULT 1,
            isMaterialized INTEGER NOT NULL DEFAULT 0,
            isPinned INTEGER NOT NULL DEFAULT 0,
            versionContent BLOB NOT NULL DEFAULT x'',
            versionMetadata BLOB NOT NULL DEFAULT x'',
            capabilities INTEGER NOT NULL DEFAULT 0,
            contentPolicy INTEGER NOT NULL DEFAULT 0,
            symlinkTarget BLOB,
            posixPermissions INTEGER,
            userInfo TEXT,
            decorations TEXT,
            tagsText TEXT NOT NULL DEFAULT '',
            inWorkingSet INTEGER NOT NULL GENERATED ALWAYS AS (
              NOT insideTrash AND (
                lastUsed IS NOT NULL OR tagsText <> '' OR favoriteRank IS NOT NULL OR isShared
                OR isMaterialized OR isPinned OR isTrashed)
            ) STORED
          );
          CREATE UNIQUE INDEX item_key ON item(domain, identifier);
          CREATE INDEX item_path ON item(domain, path);
          CREATE INDEX item_recents ON item(lastUsed DESC, id DESC) WHERE inWorkingSet = 1;
          CREATE INDEX item_favorites ON item(favoriteRank) WHERE favoriteRank IS NOT NULL;
          CREATE INDEX item_trashed ON item(trashedDate DESC) WHERE isTrashed = 1;
          """)
    }))

    // Tags, one row each, in the item's order. The Tags sidebar counts them by name.
    migrations.append(("v1-tags", { db in
      try db.execute(
        sql: """
          CREATE TABLE tag (
            domain TEXT NOT NULL,
            identifier TEXT NOT NULL,
            name TEXT NOT NULL,
            position INTEGER NOT NULL,
            PRIMARY KEY (domain, identifier, name),
            FOREIGN KEY (domain, identifier) REFERENCES item(domain, identifier)
              ON DELETE CASCADE ON UPDATE CASCADE
          ) WITHOUT ROWID;
          CREATE INDEX tag_name ON tag(name);
          """)
    }))

    // Full-text search over names and tags, an external-content FTS5 table kept in step with `item`
    // by triggers. The update trigger fires only when a searched column is written, so recording a
    // use does not touch the full-text index.
    migrations.append(("v1-fts", { db in
      try db.execute(
        sql: """
          CREATE VIRTUAL TABLE itemSearch USING fts5(
            nameText, tagsText, content='item', content_rowid='id',
            tokenize='unicode61 remove_diacritics 2');
          CREATE TRIGGER item_search_insert AFTER INSERT ON item BEGIN
            INSERT INTO itemSearch(rowid, nameText, tagsText) VALUES (new.id, new.nameText, new.tagsText);
          END;
          CREATE TRIGGER item_search_delete AFTER DELETE ON item BEGIN
            INSERT INTO itemSearch(itemSearch, rowid, nameText, tagsText)
              VALUES ('delete', old.id, old.nameText, old.tagsText);
          END;
          CREATE TRIGGER item_search_update AFTER UPDATE OF nameText, tagsText ON item BEGIN
            INSERT INTO itemSearch(itemSearch, rowid, nameText, tagsText)
              VALUES ('delete', old.id, old.nameText, old.tagsText);
            INSERT INTO itemSearch(rowid, nameText, tagsText) VALUES (new.id, new.nameText, new.tagsText);
          END;
          INSERT INTO itemSearch(itemSearch) VALUES ('rebuild');
          """)
    }))

    // Where each container's change history was last read (opaque, at most 500 bytes).
    migrations.append(("v1-anchors", { db in
      try db.execute(
        sql: """
          CREATE TABLE syncAnchor (
            domain TEXT NOT NULL,
            container TEXT NOT NULL,
            anchor BLOB NOT NULL CHECK (length(anchor) <= 500),
            updated REAL NOT NULL,
            PRIMARY KEY (domain, container)
          ) WITHOUT ROWID;
          """)
    }))

    // The durable journal of uploads and downloads. AUTOINCREMENT: an id is never reused, so a
    // stale reference to a removed transfer cannot reach a newer one.
    migrations.append(("v1-transfers", { db in
      try db.execute(
        sql: """
          CREATE TABLE transfer (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            domain TEXT NOT NULL,
            identifier TEXT NOT NULL,
            direction TEXT NOT NULL CHECK (direction IN ('upload', 'download')),
            stagedPath BLOB,
            baseVersionContent BLOB,
            baseVersionMetadata BLOB,
            state TEXT NOT NULL DEFAULT 'queued'
              CHECK (state IN ('queued', 'running', 'throttled', 'failed', 'done')),
            attempt INTEGER NOT NULL DEFAULT 0,
            nextAttemptAt REAL,
            throttledByCode INTEGER,
            lastError TEXT,
            bytesTotal INTEGER,
            bytesDone INTEGER NOT NULL DEFAULT 0,
            created REAL NOT NULL,
            updated REAL NOT NULL
          );
          CREATE INDEX transfer_item ON transfer(domain, identifier);
          """)
    }))

    // Whose tags the index holds: the provider's (a mirror, for the Tags sidebar and search) or its
    // own (the provider cannot store tags, e.g. a filesystem without user xattrs). Only the latter
    // may be merged back into a provider's items: a mirror can be stale.
    migrations.append(("v2-tag-ownership", { db in
      try db.execute(sql: "ALTER TABLE item ADD COLUMN tagsInIndexOnly INTEGER NOT NULL DEFAULT 0")
    }))

    // The sync engine's own state. `content`: one row per item whose bytes are in the content
    // store ($XDG_CACHE_HOME/folio/content), with the version they are, their size and SHA-256,
    // the file's stat stamp when last checked (an edit nobody noticed changes it), the last access
    // (LRU eviction) and whether they are clean, stale (the remote changed) or dirty (local edits
    // not uploaded yet: never evicted). `contentOpen`: content an opener has open, by process (never
    // evicted while that process lives). `syncConflict`: an original and the copy that kept the
    // losing side of a conflict, until the person resolves it. The transfer journal learns what a
    // create needs (parent, name), the staged bytes' hash, the created item (crash-safe completion)
    // and which process runs a transfer.
    migrations.append(("v3-sync-content", { db in
      try db.execute(
        sql: """
          CREATE TABLE content (
            domain TEXT NOT NULL,
            identifier TEXT NOT NULL,
            versionContent BLOB NOT NULL,
            versionMetadata BLOB NOT NULL,
            size INTEGER NOT NULL,
            sha256 TEXT NOT NULL,
            fileStamp TEXT NOT NULL,
            lastAccess REAL NOT NULL,
            state TEXT NOT NULL DEFAULT 'clean' CHECK (state IN ('clean', 'stale', 'dirty')),
            PRIMARY KEY (domain, identifier)
          ) WITHOUT ROWID;
          CREATE INDEX content_lru ON content(lastAccess);
          CREATE TABLE contentOpen (
            domain TEXT NOT NULL,
            identifier TEXT NOT NULL,
            pid INTEGER NOT NULL,
            started REAL NOT NULL,
            PRIMARY KEY (domain, identifier, pid)
          ) WITHOUT ROWID;
          CREATE TABLE syncConflict (
            domain TEXT NOT NULL,
            copy TEXT NOT NULL,
            original TEXT NOT NULL,
            reason TEXT NOT NULL,
            detected REAL NOT NULL,
            PRIMARY KEY (domain, copy)
          ) WITHOUT ROWID;
          CREATE INDEX syncConflict_original ON syncConflict(domain, original);
          ALTER TABLE transfer ADD COLUMN parentIdentifier TEXT;
          ALTER TABLE transfer ADD COLUMN name BLOB;
          ALTER TABLE transfer ADD COLUMN sha256 TEXT;
          ALTER TABLE transfer ADD COLUMN resultIdentifier TEXT;
          ALTER TABLE transfer ADD COLUMN ownerPID INTEGER;
          """)
    }))

    // A folder's known children by their parent, for the listing poller's diff (`children(of:)`)
    // and `workingSetFolders`: without it every poll of a folder scanned the whole item table.
    migrations.append(("v4-item-parent", { db in
      try db.execute(sql: "CREATE INDEX item_parent ON item(domain, parentIdentifier)")
    }))

    // The listing poller's absences (storage without a change feed): an item a complete listing
    // of its folder lacked once, and when. A second complete listing that lacks it deletes it; one
    // that lists it, or any listing that is not complete, clears the row. Kept here rather than in
    // memory so that two `folio sync` runs (one listing each, in two processes) confirm a deletion.
    migrations.append(("v5-listing-absences", { db in
      try db.execute(
        sql: """
          CREATE TABLE listingAbsence (
            domain TEXT NOT NULL,
            identifier TEXT NOT NULL,
            folder TEXT NOT NULL,
            firstMissed REAL NOT NULL,
            PRIMARY KEY (domain, identifier)
          ) WITHOUT ROWID;
          CREATE INDEX listingAbsence_folder ON listingAbsence(domain, folder);
          """)
    }))

    return migrations
  }

  /// Creates the whole schema of a database that has nothing in it, in one transaction, and
  /// records every migration as applied exactly as `DatabaseMigrator` does (its `grdb_migrations`
  /// table), so the migrator finds nothing left to do — now and in later versions. The schema is
  /// ``finalSchema`` (the migrations' result as one script) while it covers every landed migration,
  /// else the migrations' bodies in order; an index that already has anything in it is left to
  /// the migrator.
  ///
  /// - Returns: true when the database was new and is now migrated.
  static func migrateNewDatabase(_ writer: any DatabaseWriter) throws -> Bool {
    try writer.write { db in
      guard try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") == 0 else { return false }
      let migrations = landedMigrations
      if migrations.map(\.0) == finalSchemaMigrations {
        // The final definitions, parsed once (WorkingSetIndex+Schema.swift says why).
        // And FTS5's records as v1-fts's rebuild leaves them, so the file is the same one.
        try db.execute(sql: finalSchema + "\nINSERT INTO itemSearch(itemSearch) VALUES ('rebuild');")
      } else {
        try db.execute(sql: "CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)")
        for (_, migrate) in migrations { try migrate(db) }
      }
      for (identifier, _) in migrations {
        try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES (?)", arguments: [identifier])
      }
      return true
    }
  }
}
