import GRDB

/// The schema, as a list of named migrations.
///
/// A migration that has landed is never edited: a change is a new migration appended at the end.
/// They are written in SQL rather than with GRDB's schema builder so that the schema they create
/// cannot drift when GRDB changes how it spells a definition.
extension WorkingSetIndex {
  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()

    // Items the index knows, with the per-user fields it owns.
    //
    // `id` is an explicit INTEGER PRIMARY KEY (an alias of the rowid) so that VACUUM cannot renumber
    // rows under the external-content FTS table; (domain, identifier) is the item's key.
    // Dates are REAL seconds since 1970. Names and paths are BLOBs: the exact bytes, compared with
    // memcmp; nameText is their lossy UTF-8 decoding, for search and display only.
    // inWorkingSet is generated, so SQLite maintains it on every write: recently used, tagged,
    // favorite, shared, materialized, pinned or trashed, and not inside a trashed folder.
    migrator.registerMigration("v1-items") { db in
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
    }

    // Tags, one row each, in the item's order. The Tags sidebar counts them by name.
    migrator.registerMigration("v1-tags") { db in
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
    }

    // Full-text search over names and tags, an external-content FTS5 table kept in step with `item`
    // by triggers. The update trigger fires only when a searched column is written, so recording a
    // use does not touch the full-text index.
    migrator.registerMigration("v1-fts") { db in
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
    }

    // Where each container's change history was last read (opaque, at most 500 bytes).
    migrator.registerMigration("v1-anchors") { db in
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
    }

    // The durable journal of uploads and downloads. AUTOINCREMENT: an id is never reused, so a
    // stale reference to a removed transfer cannot reach a newer one.
    migrator.registerMigration("v1-transfers") { db in
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
    }

    // Whose tags the index holds: the provider's (a mirror, for the Tags sidebar and search) or its
    // own (the provider cannot store tags, e.g. a filesystem without user xattrs). Only the latter
    // may be merged back into a provider's items: a mirror can be stale.
    migrator.registerMigration("v2-tag-ownership") { db in
      try db.execute(sql: "ALTER TABLE item ADD COLUMN tagsInIndexOnly INTEGER NOT NULL DEFAULT 0")
    }

    return migrator
  }
}
