import Foundation
import GRDB
import ProviderAPI

/// An item's bytes in the content store, as the index records them: which version they are, how
/// big, their SHA-256, and whether they still match the server.
///
/// The content store never trusts a file it has no row for, and never serves one whose row says
/// it is stale; a dirty row holds the only copy of someone's edits and is never evicted.
public struct MaterializedContent: Sendable, Equatable {
  public enum State: String, Sendable, Codable, CaseIterable {
    /// The bytes are the version recorded, which was the server's last we heard.
    case clean
    /// The server has a newer version: re-download on the next open (or evict).
    case stale
    /// Local edits not yet on the server (an upload is queued): never evicted, never replaced.
    case dirty
  }

  public var domain: DomainIdentifier
  public var identifier: ItemIdentifier
  /// The item version the bytes are (for dirty content: the version the edits started from).
  public var version: ItemVersion
  public var size: Int64
  /// Lowercase hex SHA-256 of the bytes as materialized (or last uploaded).
  public var sha256: String
  /// `size:mtime-ns:inode` of the file when the bytes were last checked: a different stamp means
  /// someone wrote the file since (an edit not noticed yet), so it must not be evicted as clean.
  public var fileStamp: String
  public var lastAccess: Date
  public var state: State

  public init(
    domain: DomainIdentifier, identifier: ItemIdentifier, version: ItemVersion, size: Int64, sha256: String,
    fileStamp: String, lastAccess: Date, state: State = .clean
  ) {
    self.domain = domain
    self.identifier = identifier
    self.version = version
    self.size = size
    self.sha256 = sha256
    self.fileStamp = fileStamp
    self.lastAccess = lastAccess
    self.state = state
  }
}

/// One row of `content`. The public face is ``MaterializedContent``.
struct ContentRecord: Codable, Equatable, FetchableRecord, PersistableRecord {
  static let databaseTableName = "content"

  var domain: String
  var identifier: String
  var versionContent: Data
  var versionMetadata: Data
  var size: Int64
  var sha256: String
  var fileStamp: String
  var lastAccess: Double
  var state: String

  init(_ c: MaterializedContent) {
    domain = c.domain.rawValue
    identifier = c.identifier.rawValue
    versionContent = c.version.content
    versionMetadata = c.version.metadata
    size = c.size
    sha256 = c.sha256
    fileStamp = c.fileStamp
    lastAccess = c.lastAccess.timeIntervalSince1970
    state = c.state.rawValue
  }

  /// Unknown state text (a newer Folio) reads as dirty: the safe side, never evicted.
  var content: MaterializedContent {
    MaterializedContent(
      domain: DomainIdentifier(unchecked: domain), identifier: ItemIdentifier(identifier),
      version: (try? ItemVersion(content: versionContent, metadata: versionMetadata)) ?? .empty, size: size,
      sha256: sha256, fileStamp: fileStamp, lastAccess: Date(timeIntervalSince1970: lastAccess),
      state: MaterializedContent.State(rawValue: state) ?? .dirty)
  }

  static func fetch(_ db: Database, domain: DomainIdentifier, identifier: ItemIdentifier) throws -> Self? {
    // A cached statement: compiling one each time (GRDB's authorizer sees every column) was a
    // tenth of a folio-sim run, and this is the engine's most frequent query.
    try SQLRequest<Self>(
      sql: "SELECT * FROM content WHERE domain = ? AND identifier = ?",
      arguments: [domain.rawValue, identifier.rawValue], cached: true
    ).fetchOne(db)
  }
}
