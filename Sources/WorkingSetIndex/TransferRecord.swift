import Foundation
import GRDB
import ProviderAPI

/// One row of `transfer`. The public face is ``Transfer``.
struct TransferRecord: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
  static let databaseTableName = "transfer"

  /// The row with this id, through a cached statement (the queue reads one on every step).
  static func fetch(_ db: Database, id: Int64) throws -> Self? {
    try SQLRequest<Self>(sql: "SELECT * FROM transfer WHERE id = ?", arguments: [id], cached: true).fetchOne(db)
  }

  var id: Int64?
  var domain: String
  var identifier: String
  var direction: String
  var stagedPath: Data?
  var baseVersionContent: Data?
  var baseVersionMetadata: Data?
  var state: String
  var attempt: Int
  var nextAttemptAt: Double?
  var throttledByCode: Int?
  var lastError: String?
  var bytesTotal: Int64?
  var bytesDone: Int64
  var created: Double
  var updated: Double
  var parentIdentifier: String?
  var name: Data?
  var sha256: String?
  var resultIdentifier: String?
  var ownerPID: Int32?

  init(_ transfer: Transfer) {
    id = transfer.id > 0 ? transfer.id : nil
    domain = transfer.domain.rawValue
    identifier = transfer.identifier.rawValue
    direction = transfer.direction.rawValue
    stagedPath = transfer.stagedPath.map { Data($0.bytes) }
    baseVersionContent = transfer.baseVersion?.content
    baseVersionMetadata = transfer.baseVersion?.metadata
    state = transfer.state.rawValue
    attempt = transfer.attempt
    nextAttemptAt = transfer.nextAttemptAt?.timeIntervalSince1970
    throttledByCode = transfer.throttledByCode
    lastError = transfer.lastError
    bytesTotal = transfer.bytesTotal
    bytesDone = transfer.bytesDone
    created = transfer.created.timeIntervalSince1970
    updated = transfer.updated.timeIntervalSince1970
    parentIdentifier = transfer.parentIdentifier?.rawValue
    name = transfer.name.map { Data($0.bytes) }
    sha256 = transfer.sha256
    resultIdentifier = transfer.resultIdentifier?.rawValue
    ownerPID = transfer.ownerPID
  }

  mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

  /// The public view. Unknown direction or state text (written by a newer Folio) reads as a failed
  /// download rather than crashing the queue.
  var transfer: Transfer {
    var version: ItemVersion?
    if let content = baseVersionContent, let metadata = baseVersionMetadata {
      version = try? ItemVersion(content: content, metadata: metadata)
    }
    return Transfer(
      id: id ?? 0, domain: DomainIdentifier(unchecked: domain), identifier: ItemIdentifier(identifier),
      direction: Transfer.Direction(rawValue: direction) ?? .download,
      stagedPath: stagedPath.map { ItemPath(bytes: Array($0)) }, baseVersion: version,
      state: Transfer.State(rawValue: state) ?? .failed, attempt: attempt,
      nextAttemptAt: nextAttemptAt.map(Date.init(timeIntervalSince1970:)), throttledByCode: throttledByCode,
      lastError: lastError, bytesTotal: bytesTotal, bytesDone: bytesDone,
      created: Date(timeIntervalSince1970: created), updated: Date(timeIntervalSince1970: updated),
      parentIdentifier: parentIdentifier.map(ItemIdentifier.init), name: name.map { ItemName(bytes: Array($0)) },
      sha256: sha256, resultIdentifier: resultIdentifier.map(ItemIdentifier.init), ownerPID: ownerPID)
  }
}
