import Foundation
import GRDB
import GRDBSQLite
import ProviderAPI

/// The local SQLite index: the working set, tags, favorites, Recently Deleted, search, sync anchors
/// and the transfer journal.
///
/// It makes Recents, the Tags sidebar and search answer instantly and offline, without waking any
/// provider. Writes are named for their intent (`recordUse`, `recordTrashed`, …) and each is one
/// transaction; reads are plain queries or GRDB observations. Every error is a `ProviderError`
/// with code `ioError` and a one-line message.
///
/// The index owns the per-user fields (last used date, favorite rank, tags) for providers that
/// cannot store them: refreshing an item from its provider never clears them.
public struct WorkingSetIndex: Sendable {
  let writer: any DatabaseWriter
  /// The journal mode SQLite reported after opening: "wal", "delete" or "memory".
  public let journalMode: String
  /// True when the database is on a network or FUSE filesystem and therefore not in WAL mode.
  public let isOnNetworkFilesystem: Bool
  /// What `statfs` said about the database's folder (`.local` for an in-memory index).
  public let storage: StorageLocation
  private let marker: OpenMarker?

  private init(writer: any DatabaseWriter, storage: StorageLocation, marker: OpenMarker?) throws {
    self.writer = writer
    self.storage = storage
    self.isOnNetworkFilesystem = storage.isNetwork
    self.marker = marker
    self.journalMode = try writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "" }
  }

  /// Opens (creating it and its folder if needed) the index stored at `url`, and migrates it.
  ///
  /// On a local filesystem the database is a `DatabasePool` in WAL mode with `synchronous=FULL`, so
  /// a committed transaction survives power loss. On a network or FUSE filesystem it is a
  /// `DatabaseQueue` with `journal_mode=DELETE`: WAL needs shared memory that such filesystems do not
  /// provide. If a previous process died with the index open, `PRAGMA quick_check` runs first.
  ///
  /// - Parameters:
  ///   - url: The database file, e.g. `$XDG_DATA_HOME/folio/index.sqlite`.
  ///   - storage: Overrides the filesystem detection (tests; users who know their mount).
  /// - Throws: `ProviderError(.ioError)` when the folder cannot be created, the file is not a
  ///   usable database, it fails its integrity check, or a newer Folio migrated it.
  public static func open(at url: URL, storage: StorageLocation? = nil) throws(ProviderError) -> WorkingSetIndex {
    let folder = url.deletingLastPathComponent()
    let shown = TerminalText.escape(url.path)
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw ProviderError(.ioError, "cannot create the index folder \(TerminalText.escape(folder.path)): \(error)")
    }
    let storage = storage ?? StorageLocation.detect(folder)
    let stale = OpenMarker.stale(for: url)
    return try wrap("opening the index \(shown)") {
      try refusingDamage(shown: shown) { try connect(url, storage: storage, staleMarkers: stale, shown: shown) }
    }
  }

  private static func connect(
    _ url: URL, storage: StorageLocation, staleMarkers: [URL], shown: String
  ) throws -> WorkingSetIndex {
    let writer: any DatabaseWriter
    if storage.isNetwork {
      writer = try DatabaseQueue(path: url.path, configuration: configuration(journal: "DELETE"))
    } else {
      let pool = try DatabasePool(path: url.path, configuration: configuration(journal: nil))
      // GRDB sets synchronous=NORMAL on the pool's writer when it enables WAL, after
      // prepareDatabase. NORMAL may lose the last commits on power loss: set FULL again on the one
      // connection that writes.
      try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
      writer = pool
    }
    if !staleMarkers.isEmpty {
      try checkIntegrity(writer, shown: shown)
      for marker in staleMarkers { try? FileManager.default.removeItem(at: marker) }
    }
    try migrate(writer, shown: shown)
    return try WorkingSetIndex(writer: writer, storage: storage, marker: try OpenMarker.create(for: url))
  }

  /// The index as it is on disk, for commands that only read it (`ls`, `info`, `recents`,
  /// `search`, `conflicts`): nothing is created, migrated, marked or checkpointed, so such a
  /// command writes nothing to disk (issue 13: `folio ls` used to cost 4 `fdatasync`s).
  ///
  /// One read-only connection, no pool: a command reads a few rows once. When no `-wal` file is
  /// there, no Folio has the index open (an open WAL database always has one) and everything
  /// committed is in the database file: it is read as `immutable`, because SQLite's read-only
  /// connection would otherwise create the `-wal` and `-shm` files and write its read mark into
  /// the latter. When another Folio has it open, it is read through that process's `-wal` and
  /// shared memory, as any reader must (docs/DECISIONS.md, "Reading commands write nothing").
  ///
  /// - Returns: An empty index in memory when there is no index yet, or when it was written by
  ///   an older Folio and still needs a migration (the next command that writes migrates it):
  ///   the reader then sees what a new user sees, nothing remembered.
  /// - Throws: `ProviderError(.ioError)` when the file is not a usable database, or a newer Folio
  ///   migrated it.
  public static func openForReading(at url: URL) throws(ProviderError) -> WorkingSetIndex {
    let shown = TerminalText.escape(url.path)
    guard FileManager.default.fileExists(atPath: url.path) else { return try inMemory() }
    return try wrap("opening the index \(shown)") {
      try refusingDamage(shown: shown) {
        var config = Configuration()
        config.label = "WorkingSetIndex (read-only)"
        config.readonly = true
        config.busyMode = .timeout(10)
        let queue = try DatabaseQueue(path: readingPath(url), configuration: config)
        let migrator = Self.migrator
        let (complete, superseded) = try queue.read { db in
          (try migrator.hasCompletedMigrations(db), try migrator.hasBeenSuperseded(db))
        }
        if superseded {
          throw ProviderError(.ioError, "the index \(shown) was written by a newer Folio; upgrade Folio or move it aside")
        }
        guard complete else {
          try queue.close()
          return try inMemory()
        }
        return try WorkingSetIndex(writer: queue, storage: .local, marker: nil)
      }
    }
  }

  /// The name a reading connection opens: an `immutable` URI when no `-wal` file exists (no
  /// process has the index open) and this SQLite reads URI names (Debian's is built so), else
  /// the plain path.
  private static func readingPath(_ url: URL) -> String {
    guard !FileManager.default.fileExists(atPath: url.path + "-wal"), sqlite3_compileoption_used("USE_URI") == 1 else {
      return url.path
    }
    // RFC 3986 path characters stay; '?', '#', '%' and everything else are escaped (SQLite's URI
    // rules: the path ends at '?' or '#').
    let kept = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/".utf8)
    var encoded = ""
    for byte in url.path.utf8 {
      if kept.contains(byte) { encoded.append(Character(UnicodeScalar(byte))) } else { encoded += String(format: "%%%02X", byte) }
    }
    return "file:" + encoded + "?immutable=1"
  }

  /// A fresh index in memory, for tests and for `--no-index` runs.
  public static func inMemory() throws(ProviderError) -> WorkingSetIndex {
    try wrap("creating an in-memory index") {
      let writer = try DatabaseQueue(configuration: configuration(journal: nil))
      try migrate(writer, shown: "in memory")
      return try WorkingSetIndex(writer: writer, storage: .local, marker: nil)
    }
  }

  /// Closes the database and removes this process's open marker.
  ///
  /// Optional: the marker also goes when the last copy of the index is released. Calling it before
  /// `exit` tells the next open that this process closed cleanly. The index is unusable afterwards.
  public func close() throws(ProviderError) {
    try Self.wrap("closing the index") {
      // GRDB closes the pool's writer before its readers, so SQLite's last-close checkpoint does
      // not happen: fold the WAL into the database now, leaving a self-contained file.
      if writer is DatabasePool { _ = try writer.writeWithoutTransaction { db in try db.checkpoint(.truncate) } }
      try writer.close()
    }
    marker?.remove()
  }

  /// The path of the database file, or "" in memory.
  public var path: String { writer.path }

  private static func configuration(journal: String?) -> Configuration {
    var config = Configuration()
    config.label = "WorkingSetIndex"
    // Several processes share the index (the browser and `folio sync`): wait rather than fail.
    config.busyMode = .timeout(10)
    config.prepareDatabase { db in
      if let journal { try db.execute(sql: "PRAGMA journal_mode = \(journal)") }
      try db.execute(sql: "PRAGMA synchronous = FULL")
    }
    return config
  }

  /// SQLite's "malformed" and "not a database" at open become the same advice as a failed
  /// quick_check.
  private static func refusingDamage<T>(shown: String, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as DatabaseError
      where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode)
    {
      throw ProviderError(
        .ioError,
        "the index \(shown) is damaged (\(error.message ?? "\(error.resultCode)")); move it aside and Folio rebuilds it",
        underlying: error.extendedResultCode.rawValue)
    }
  }

  /// SQLite's full `PRAGMA integrity_check` (test-plan.md I11): "ok", or what is damaged.
  /// Slower than the quick_check an open after a crash runs; `folio-sim` asks it after every
  /// restart and at the end of each run.
  public func integrityCheck() throws(ProviderError) -> [String] {
    do {
      return try writer.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    } catch {
      throw ProviderError(.ioError, "the index could not be checked: \(error)")
    }
  }

  private static func checkIntegrity(_ writer: any DatabaseWriter, shown: String) throws {
    let report = try writer.read { db in try String.fetchAll(db, sql: "PRAGMA quick_check") }
    guard report == ["ok"] else {
      let first = report.first.map { $0.replacingOccurrences(of: "\n", with: " ") } ?? "no answer"
      throw ProviderError(
        .ioError,
        "the index \(shown) is damaged (quick_check: \(first)); move it aside and Folio rebuilds it")
    }
  }

  private static func migrate(_ writer: any DatabaseWriter, shown: String) throws {
    let migrator = Self.migrator
    if try migrateNewDatabase(writer) { return }
    if try writer.read({ db in try migrator.hasBeenSuperseded(db) }) {
      throw ProviderError(.ioError, "the index \(shown) was written by a newer Folio; upgrade Folio or move it aside")
    }
    try migrator.migrate(writer)
  }
}
