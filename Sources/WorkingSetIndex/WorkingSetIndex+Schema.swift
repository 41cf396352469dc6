import GRDB

/// The schema every landed migration makes, as one script: what a new index is created with.
///
/// Running the migrations' bodies on an empty database cost more than anything else `folio ls`
/// did on a computer without an index (a read-only command then works on an empty index in
/// memory): each `CREATE` and `ALTER TABLE` makes SQLite parse the whole schema again, and the
/// five `ALTER TABLE`s of v3 alone were about 8 M of the run's 36 M instructions. One script of
/// the final definitions is parsed once.
///
/// The text is what `sqlite_master` holds after the migrations, statement for statement (an
/// `ALTER TABLE … ADD COLUMN` appends to its table's `CREATE`), so an index made from it is the
/// same file the migrations make, and later migrations find what they expect. A test compares
/// the two (`aNewDatabaseIsMigratedInOneTransactionToTheMigratorsSchema`) and prints the script to
/// paste when a migration is appended. Until it is updated, a new database runs the migrations'
/// bodies as before (``finalSchemaMigrations`` no longer matches): slower, never wrong.
extension WorkingSetIndex {
  /// The migrations ``finalSchema`` stands for, in order.
  static let finalSchemaMigrations = [
    "v1-items", "v1-tags", "v1-fts", "v1-anchors", "v1-transfers", "v2-tag-ownership", "v3-sync-content",
    "v4-item-parent", "v5-listing-absences",
  ]

  /// `sqlite_master`'s statements after every migration in ``finalSchemaMigrations``, in the order
  /// SQLite recorded them (FTS5's own tables and `sqlite_sequence` are made by their statements).
  static let finalSchema = """
      CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
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
      , tagsInIndexOnly INTEGER NOT NULL DEFAULT 0);
      CREATE UNIQUE INDEX item_key ON item(domain, identifier);
      CREATE INDEX item_path ON item(domain, path);
      CREATE INDEX item_recents ON item(lastUsed DESC, id DESC) WHERE inWorkingSet = 1;
      CREATE INDEX item_favorites ON item(favoriteRank) WHERE favoriteRank IS NOT NULL;
      CREATE INDEX item_trashed ON item(trashedDate DESC) WHERE isTrashed = 1;
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
      CREATE TABLE syncAnchor (
        domain TEXT NOT NULL,
        container TEXT NOT NULL,
        anchor BLOB NOT NULL CHECK (length(anchor) <= 500),
        updated REAL NOT NULL,
        PRIMARY KEY (domain, container)
      ) WITHOUT ROWID;
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
      , parentIdentifier TEXT, name BLOB, sha256 TEXT, resultIdentifier TEXT, ownerPID INTEGER);
      CREATE INDEX transfer_item ON transfer(domain, identifier);
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
      CREATE INDEX item_parent ON item(domain, parentIdentifier);
      CREATE TABLE listingAbsence (
        domain TEXT NOT NULL,
        identifier TEXT NOT NULL,
        folder TEXT NOT NULL,
        firstMissed REAL NOT NULL,
        PRIMARY KEY (domain, identifier)
      ) WITHOUT ROWID;
      CREATE INDEX listingAbsence_folder ON listingAbsence(domain, folder);
      """
}
