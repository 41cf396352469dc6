import Crypto
import FolioProtocol
import Foundation
import GRDB
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Fills a new folder with many small items in one transaction: `folio serve admin seed`, for
/// benchmarks and tests that need a folder of 100,000 entries on a real server.
///
/// Through the protocol each item is one write transaction with `synchronous=FULL` (one fsync
/// each: minutes for 100k); here the rows go in together, each with its own rank in the change log
/// and real content (0 or 1 byte, with its SHA-256), so every item can be listed, downloaded,
/// renamed and synced like any other. The content files are written before the transaction
/// commits: a crash in between leaves unreferenced files, which the server removes at its next
/// start. Run it while the server is stopped: a running server learns the new end of the change
/// log only at its next mutation, so its long-polls would not wake for the seeded items.
public struct ServerSeeder: Sendable {
  public struct Result: Sendable, Equatable {
    /// The new folder's identifier.
    public var folder: String
    /// Entries created in it (files and folders).
    public var entries: Int
  }

  /// Word stems and extensions of the names, as in folio-bench's local folders.
  static let words = [
    "report", "invoice", "photo", "notes", "draft", "Budget", "summary", "IMG", "scan", "letter", "data", "backup",
  ]
  static let extensions = ["txt", "pdf", "jpg", "md", "csv", "png", "swift", "json"]

  let database: ServerDatabase
  let content: ContentStore

  public init(root: URL) throws(ProviderError) {
    do {
      database = try ServerDatabase(root: root)
      content = try ContentStore(root: root)
    } catch {
      throw ServerRuntime.providerError(error, doing: "opening the server root \(root.path)")
    }
  }

  /// Creates `/name` owned by `owner` with `entries` children: every hundredth a folder, the rest
  /// files of 0 bytes (every seventh: 1 byte), modification dates spread over the last year.
  ///
  /// - Throws: `invalidArgument` for an unknown owner, a bad name or a count below 0;
  ///   `filenameCollision` when the root already holds `name`; `ioError` when a content file
  ///   cannot be written.
  public func seedFolder(named name: String, entries: Int, owner: String) throws(ProviderError) -> Result {
    do {
      return try seed(name: try NameRules.validate(name), entries: entries, owner: owner)
    } catch let error as ServerError where error.code == .filenameCollision {
      throw ProviderError(.filenameCollision, error.message)
    } catch {
      throw ServerRuntime.providerError(error, doing: "seeding /\(name)")
    }
  }

  private func seed(name: String, entries: Int, owner: String) throws -> Result {
    guard entries >= 0 else { throw ServerError.invalid("the number of entries cannot be negative") }
    let empty = SHA256.hash(data: [UInt8]()).map { String(format: "%02x", $0) }.joined()
    let oneByte = SHA256.hash(data: [UInt8(ascii: "x")]).map { String(format: "%02x", $0) }.joined()
    let content = content
    return try database.pool.write { db -> Result in
      guard try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM user WHERE name = ?)", arguments: [owner]) ?? false
      else { throw ServerError.invalid("there is no user \(owner)") }
      try ItemStore.checkFree(db, parent: "root", name: name)
      let now = Date().timeIntervalSince1970
      let folder = ItemRecord.new(
        id: try Meta.nextItemID(db), parent: "root", name: name, isFolder: true, owner: owner, now: now,
        rank: try Meta.nextRank(db))
      try folder.insert(db)
      // Numbers and ranks taken as one block, then each row gets its own.
      let firstNumber = try Meta.int(db, "nextId")
      let firstRank = try Meta.int(db, "rank") + 1
      try Meta.set(db, "nextId", firstNumber + Int64(entries))
      try Meta.set(db, "rank", firstRank + Int64(entries) - 1)
      var written: [(String, Int64)] = []
      do {
        for i in 0..<entries {
          let word = Self.words[i % Self.words.count]
          let isFolder = i % 100 == 0
          let entryName = isFolder ? "\(word) folder \(i)" : "\(word)-\(i).\(Self.extensions[i % Self.extensions.count])"
          // Spread over a year, in an order unrelated to the names (a multiplicative hash).
          let age = Double((UInt64(i) &* 2_654_435_761) % 31_536_000)
          var record = ItemRecord.new(
            id: "i\(firstNumber + Int64(i))", parent: folder.id, name: entryName, isFolder: isFolder, owner: owner,
            now: now - age, rank: firstRank + Int64(i))
          if !isFolder {
            let bytes: [UInt8] = i % 7 == 0 ? [UInt8(ascii: "x")] : []
            record.size = Int64(bytes.count)
            record.sha256 = bytes.isEmpty ? empty : oneByte
            try Self.create(bytes, at: content.url(id: record.id, revision: record.contentVersion))
            written.append((record.id, record.contentVersion))
          }
          try record.insert(db)
        }
      } catch {
        content.remove(written)
        throw error
      }
      Self.syncFilesystems()
      return Result(folder: folder.id, entries: entries)
    }
  }

  /// Creates a small content file (not fsynced one by one: `syncFilesystems` flushes them all).
  private static func create(_ bytes: [UInt8], at url: URL) throws {
    let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw ServerError(.serverError, "cannot create \(url.lastPathComponent) (errno \(errno))") }
    defer { close(fd) }
    if !bytes.isEmpty {
      guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
        throw ServerError(.serverError, "cannot write \(url.lastPathComponent) (errno \(errno))")
      }
    }
  }

  /// One `sync` for every file just written, before the transaction that references them
  /// commits: 100,000 fsyncs would take minutes, and a power cut must not leave rows whose content
  /// files are empty. (`syncfs`, which would flush only this filesystem, is not in Swift's Glibc
  /// module; on Linux `sync` returns once the data is written.)
  private static func syncFilesystems() {
    sync()
  }
}
