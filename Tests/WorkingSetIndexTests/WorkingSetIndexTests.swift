import Foundation
import GRDB
import ProviderAPI
import Testing

@testable import WorkingSetIndex

/// Opening: migrations, journal modes, filesystem detection, crash detection.
@Suite struct WorkingSetIndexTests {
  static let migrations = ["v1-items", "v1-tags", "v1-fts", "v1-anchors", "v1-transfers", "v2-tag-ownership", "v3-sync-content", "v4-item-parent", "v5-listing-absences"]

  @Test func migrationsApplyOnAFreshFileAndReopenCleanly() throws {
    try Fixture.withTemporaryDirectory { dir in
      let url = dir.appendingPathComponent("nested/folder/index.sqlite")
      let index = try WorkingSetIndex.open(at: url)
      let applied = try index.writer.read { db in try WorkingSetIndex.migrator.appliedMigrations(db) }
      #expect(applied == Self.migrations)
      let tables = try index.writer.read { db in
        try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
      }
      #expect(tables.isSuperset(of: ["item", "tag", "itemSearch", "syncAnchor", "transfer"]))
      try index.recordUse(of: Fixture.file("a", "/home/u/a.txt"), domain: Fixture.local, at: Fixture.date(1))
      try index.close()

      let reopened = try WorkingSetIndex.open(at: url)
      #expect(try reopened.writer.read { db in try WorkingSetIndex.migrator.hasCompletedMigrations(db) })
      #expect(try Fixture.ids(reopened.recents(limit: 10)) == ["a"])
      try reopened.close()
    }
  }

  /// A new database is migrated in one transaction; the result is the schema GRDB's migrator
  /// makes step by step, and the migrator finds every migration applied.
  @Test func aNewDatabaseIsMigratedInOneTransactionToTheMigratorsSchema() throws {
    func schema(_ writer: any DatabaseWriter) throws -> [String] {
      try writer.read { db in
        try String.fetchAll(
          db, sql: "SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_master ORDER BY type, name")
      }
    }
    let stepwise = try DatabaseQueue()
    try WorkingSetIndex.migrator.migrate(stepwise)
    let atOnce = try DatabaseQueue()
    var commits = 0
    atOnce.add(transactionObserver: CommitCounter { commits += 1 }, extent: .databaseLifetime)
    #expect(try WorkingSetIndex.migrateNewDatabase(atOnce))
    #expect(commits == 1)
    #expect(try schema(atOnce) == schema(stepwise))
    // The final-schema script stands for every landed migration, and makes their schema: when a
    // migration is appended, paste what this prints into WorkingSetIndex+Schema.swift.
    #expect(WorkingSetIndex.finalSchemaMigrations == Self.migrations)
    let script = try stepwise.read { db in
      try String.fetchAll(
        db,
        sql: """
          SELECT sql || ';' FROM sqlite_master WHERE sql IS NOT NULL
            AND name NOT IN ('sqlite_sequence', 'itemSearch_data', 'itemSearch_idx', 'itemSearch_docsize', 'itemSearch_config')
          ORDER BY rowid
          """
      ).joined(separator: "\n")
    }
    #expect(WorkingSetIndex.finalSchema == script, "WorkingSetIndex.finalSchema should be:\n\(script)")
    // FTS5's own tables hold the same rows (its configuration, its empty structure).
    for table in ["itemSearch_data", "itemSearch_idx", "itemSearch_docsize", "itemSearch_config"] {
      func rows(_ writer: any DatabaseWriter) throws -> [String] {
        try writer.read { db in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY 1").map(\.description) }
      }
      #expect(try rows(atOnce) == rows(stepwise), "\(table)")
    }
    #expect(try atOnce.read { db in try WorkingSetIndex.migrator.appliedMigrations(db) } == Self.migrations)
    #expect(try atOnce.read { db in try WorkingSetIndex.migrator.hasCompletedMigrations(db) })
    // Anything already in the database: the migrator's business, not the one-transaction path.
    #expect(try !WorkingSetIndex.migrateNewDatabase(atOnce))
    let partial = try DatabaseQueue()
    try WorkingSetIndex.migrator.migrate(partial, upTo: "v1-fts")
    #expect(try !WorkingSetIndex.migrateNewDatabase(partial))
    try WorkingSetIndex.migrator.migrate(partial)
    #expect(try schema(partial) == schema(stepwise))
  }

  @Test func aLocalFolderGetsWALWithFullSync() throws {
    try Fixture.withTemporaryDirectory { dir in
      let index = try WorkingSetIndex.open(at: dir.appendingPathComponent("index.sqlite"))
      #expect(index.journalMode == "wal")
      #expect(!index.isOnNetworkFilesystem)
      #expect(index.writer is DatabasePool)
      let synchronous = try index.writer.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
      #expect(synchronous == 2)  // FULL
      try index.close()
    }
  }

  @Test func aNetworkFolderGetsARollbackJournalEvenForAWALFile() throws {
    try Fixture.withTemporaryDirectory { dir in
      let url = dir.appendingPathComponent("index.sqlite")
      let first = try WorkingSetIndex.open(at: url)
      try first.recordUse(of: Fixture.file("a", "/a"), domain: Fixture.local)
      #expect(first.journalMode == "wal")
      try first.close()

      let index = try WorkingSetIndex.open(at: url, storage: .network)
      #expect(index.journalMode == "delete")
      #expect(index.isOnNetworkFilesystem)
      #expect(index.writer is DatabaseQueue)
      try index.recordUse(of: Fixture.file("b", "/b"), domain: Fixture.local)
      #expect(try Fixture.ids(index.recents(limit: 10)).sorted() == ["a", "b"])
      try index.close()
    }
  }

  @Test func statfsReportsTheFilesystemType() throws {
    // /proc is procfs (PROC_SUPER_MAGIC) on every Linux system.
    #expect(StorageLocation.detect(URL(fileURLWithPath: "/proc")).filesystemType == 0x9FA0)
    let temporary = StorageLocation.detect(FileManager.default.temporaryDirectory)
    #expect(temporary.filesystemType != nil)
    #expect(StorageLocation.detect(URL(fileURLWithPath: "/no/such/folder")) == .local)
  }

  @Test func theNetworkFilesystemTableHoldsTheKnownMagicNumbers() {
    let expected: Set<UInt32> = [
      0x6969, 0x517B, 0xFF53_4D42, 0xFE53_4D42, 0x6573_5546, 0x0102_1997, 0x5346_414F, 0x00C3_6400, 0x0BD0_0BD0,
      0x4750_4653,
    ]
    #expect(Set(StorageLocation.networkFilesystemTypes.keys) == expected)
  }

  @Test func anInMemoryIndexIsMigrated() throws {
    let index = try WorkingSetIndex.inMemory()
    #expect(index.journalMode == "memory")
    #expect(try index.writer.read { db in try WorkingSetIndex.migrator.hasCompletedMigrations(db) })
  }

  @Test func aCleanCloseLeavesNoMarkerAndAStaleMarkerIsCleared() throws {
    try Fixture.withTemporaryDirectory { dir in
      let url = dir.appendingPathComponent("index.sqlite")
      let index = try WorkingSetIndex.open(at: url)
      #expect(try markers(in: dir).count == 1)
      try index.close()
      #expect(try markers(in: dir).isEmpty)

      let stale = dir.appendingPathComponent("index.sqlite.open.\(try deadPID()).1")
      #expect(FileManager.default.createFile(atPath: stale.path, contents: Data()))
      let reopened = try WorkingSetIndex.open(at: url)  // healthy: quick_check passes
      #expect(try !markers(in: dir).contains(stale.lastPathComponent))
      try reopened.close()
    }
  }

  @Test func aDamagedIndexLeftByACrashIsRefusedWithAClearError() throws {
    try Fixture.withTemporaryDirectory { dir in
      let url = dir.appendingPathComponent("index.sqlite")
      let index = try WorkingSetIndex.open(at: url)
      let items = (0..<2000).map { Fixture.file("id\($0)", "/some/folder/a rather long file name \($0).txt") }
      try index.upsert(items, domain: Fixture.local, insertNew: true)
      try index.close()
      #expect(!FileManager.default.fileExists(atPath: url.path + "-wal") || size(url.path + "-wal") == 0)

      // Garbage over the second half of the file (b-tree pages), the header and schema intact.
      let handle = try FileHandle(forUpdating: url)
      let size = try handle.seekToEnd()
      try handle.seek(toOffset: size / 2)
      try handle.write(contentsOf: Data((0..<Int(size / 2)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 13) }))
      try handle.close()
      let stale = dir.appendingPathComponent("index.sqlite.open.\(try deadPID()).1")
      #expect(FileManager.default.createFile(atPath: stale.path, contents: Data()))

      let error = #expect(throws: ProviderError.self) { try WorkingSetIndex.open(at: url) }
      #expect(error?.code == .ioError)
      #expect(error?.message.contains("is damaged") == true, "\(String(describing: error))")
      #expect(error?.message.contains("\n") == false)
    }
  }

  private func size(_ path: String) -> Int {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
  }

  private func markers(in dir: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("index.sqlite.open.") }
  }

  /// The pid of a process that has exited.
  private func deadPID() throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/true")
    try process.run()
    process.waitUntilExit()
    return process.processIdentifier
  }
}

/// Counts commits (a migration in one transaction commits once).
final class CommitCounter: TransactionObserver, @unchecked Sendable {
  let onCommit: () -> Void
  init(_ onCommit: @escaping () -> Void) { self.onCommit = onCommit }
  func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { true }
  func databaseDidChange(with event: DatabaseEvent) {}
  func databaseDidCommit(_ db: Database) { onCommit() }
  func databaseDidRollback(_ db: Database) {}
}
