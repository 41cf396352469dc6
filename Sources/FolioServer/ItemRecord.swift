import FolioProtocol
import Foundation
import GRDB

/// A row of `item`: the shared metadata of one file or folder (per-user fields live in
/// `user_item`). Kept apart from `WireItem`, which adds the signed-in user's view.
struct ItemRecord: FetchableRecord, Sendable, Equatable {
  static let rootName = "FolioServer"
  static let trashName = "Trash"
  /// The columns in the order `init(row:)` reads them; every item query selects these.
  static let columns =
    "id, parent, name, is_folder, size, sha256, content_version, metadata_version, created, modified, owner, editor, trashed, original_parent, original_path, conflict_of, locked_by, deleted, rank"

  var id: String
  var parent: String?
  var name: String
  var isFolder: Bool
  var size: Int64
  var sha256: String?
  var contentVersion: Int64
  var metadataVersion: Int64
  var created: Double
  var modified: Double
  var owner: String
  var editor: String?
  var trashed: Double?
  var originalParent: String?
  var originalPath: String?
  var conflictOf: String?
  var lockedBy: String?
  var deleted: Bool
  var rank: Int64

  var isContainer: Bool { id == "root" || id == "trash" }

  /// Fetches a row by id, tombstones included.
  static func fetch(_ db: Database, id: String) throws -> ItemRecord? {
    try ItemRecord.fetchOne(db, sql: "SELECT \(columns) FROM item WHERE id = ?", arguments: [id])
  }

  /// Fetches a row that is not a tombstone, or throws noSuchItem.
  static func live(_ db: Database, id: String) throws -> ItemRecord {
    guard let r = try fetch(db, id: id), !r.deleted else { throw ServerError.noSuchItem(id) }
    return r
  }

  /// The live child of `parent` named `name`, if any (trashed top-level items never hold a name).
  static func child(_ db: Database, parent: String, name: String) throws -> ItemRecord? {
    try ItemRecord.fetchOne(
      db, sql: "SELECT \(columns) FROM item WHERE parent = ? AND name = ? AND deleted = 0 AND parent <> 'trash'",
      arguments: [parent, name])
  }

  /// Writes every mutable column back (the caller sets the new rank and versions).
  func update(_ db: Database) throws {
    try db.execute(
      sql: """
        UPDATE item SET parent = ?, name = ?, size = ?, sha256 = ?, content_version = ?, metadata_version = ?,
          modified = ?, editor = ?, trashed = ?, original_parent = ?, original_path = ?, conflict_of = ?,
          locked_by = ?, deleted = ?, rank = ? WHERE id = ?
        """,
      arguments: [
        parent, name, size, sha256, contentVersion, metadataVersion, modified, editor, trashed, originalParent,
        originalPath, conflictOf, lockedBy, deleted, rank, id,
      ])
  }

  func insert(_ db: Database) throws {
    try db.execute(
      sql: "INSERT INTO item(\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      arguments: [
        id, parent, name, isFolder, size, sha256, contentVersion, metadataVersion, created, modified, owner, editor,
        trashed, originalParent, originalPath, conflictOf, lockedBy, deleted, rank,
      ])
  }

  /// A new row for a file or folder, not yet inserted.
  static func new(
    id: String, parent: String, name: String, isFolder: Bool, owner: String, now: Double, rank: Int64
  ) -> ItemRecord {
    ItemRecord(
      id: id, parent: parent, name: name, isFolder: isFolder, size: 0, sha256: nil,
      contentVersion: isFolder ? 0 : 1, metadataVersion: 1, created: now, modified: now, owner: owner,
      editor: owner, trashed: nil, originalParent: nil, originalPath: nil, conflictOf: nil, lockedBy: nil,
      deleted: false, rank: rank)
  }
}

extension ItemRecord {
  /// Reads the columns in the order of `columns`.
  init(row: Row) {
    id = row[0]
    parent = row[1]
    name = row[2]
    isFolder = row[3]
    size = row[4]
    sha256 = row[5]
    contentVersion = row[6]
    metadataVersion = row[7]
    created = row[8]
    modified = row[9]
    owner = row[10]
    editor = row[11]
    trashed = row[12]
    originalParent = row[13]
    originalPath = row[14]
    conflictOf = row[15]
    lockedBy = row[16]
    deleted = row[17]
    rank = row[18]
  }

}
