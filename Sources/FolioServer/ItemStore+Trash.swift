import FolioProtocol
import Foundation
import GRDB

/// Restore, delete forever, empty the trash.
extension ItemStore {
  /// Puts a trashed item back in `parent`, or where it was; when that folder is gone (deleted
  /// forever, or itself in the trash) the folders of its original path are recreated.
  func restore(id: String, to parent: String?, name: String? = nil, user: String) async throws -> WireItem {
    let newName = try name.map { try NameRules.validate($0) }
    return try await mutate { db in
      var item = try ItemRecord.live(db, id: id)
      guard item.parent == "trash" else { throw ServerError.invalid("\(id) is not in the trash") }
      let target: String
      if let parent {
        target = try Self.destination(db, parent).id
      } else if let original = item.originalParent, let folder = try ItemRecord.fetch(db, id: original),
        !folder.deleted, folder.isFolder, try !ItemRecord.isInTrash(db, folder)
      {
        target = original
      } else {
        target = try Self.recreateFolders(db, originalPath: item.originalPath ?? "/\(item.name)", user: user)
      }
      // Keep Both: under the name the client chose, checked as any name.
      if let newName { item.name = newName }
      try Self.checkFree(db, parent: target, name: item.name)
      item.parent = target
      item.trashed = nil
      item.originalParent = nil
      item.originalPath = nil
      try Self.touch(db, &item)
      try item.update(db)
      return try item.wire(db, for: user)
    }
  }

  /// Walks the folders of `originalPath` (without its last component) from the root, creating
  /// those missing. - Returns: the innermost folder's id.
  private static func recreateFolders(_ db: Database, originalPath: String, user: String) throws -> String {
    var components = originalPath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    if !components.isEmpty { components.removeLast() }
    var current = "root"
    for name in components {
      let name = try NameRules.validate(name)
      if let existing = try ItemRecord.child(db, parent: current, name: name) {
        guard existing.isFolder else { throw ServerError.collision(name, existing: existing.id) }
        current = existing.id
        continue
      }
      let folder = ItemRecord.new(
        id: try Meta.nextItemID(db), parent: current, name: name, isFolder: true, owner: user,
        now: Date().timeIntervalSince1970, rank: try Meta.nextRank(db))
      try folder.insert(db)
      current = folder.id
    }
    return current
  }

  /// Deletes `id` and everything under it forever; an unknown id is not an error.
  func deleteForever(id: String) async throws {
    if id == "root" || id == "trash" { throw ServerError.invalid("\(id) cannot be deleted") }
    let stale = try await mutate { db in try Self.deleteForever(db, id) }
    content.remove(stale)
  }

  func emptyTrash() async throws {
    let stale = try await mutate { db in
      let ids = try String.fetchAll(db, sql: "SELECT id FROM item WHERE parent = 'trash' AND deleted = 0")
      var stale: [(id: String, revision: Int64)] = []
      for id in ids { stale += try Self.deleteForever(db, id) }
      return stale
    }
    content.remove(stale)
  }

  /// Turns `id` and its descendants into tombstones, each with a new rank. Conflict copies of a
  /// deleted original become ordinary items.
  ///
  /// - Returns: the content files to remove once the transaction has committed.
  static func deleteForever(_ db: Database, _ id: String) throws -> [(id: String, revision: Int64)] {
    let rows = try ItemRecord.fetchAll(
      db,
      sql: """
        WITH RECURSIVE sub(id) AS (SELECT ? UNION ALL SELECT item.id FROM item JOIN sub ON item.parent = sub.id
          WHERE item.deleted = 0)
        SELECT \(ItemRecord.columns) FROM item WHERE id IN sub AND deleted = 0
        """, arguments: [id])
    var stale: [(id: String, revision: Int64)] = []
    let now = Date().timeIntervalSince1970
    for var row in rows {
      if !row.isFolder { stale.append((row.id, row.contentVersion)) }
      row.deleted = true
      row.parent = nil
      row.modified = now
      row.lockedBy = nil
      row.conflictOf = nil
      try touch(db, &row)
      try row.update(db)
      try db.execute(sql: "DELETE FROM user_item WHERE item = ?", arguments: [row.id])
      let copies = try ItemRecord.fetchAll(
        db, sql: "SELECT \(ItemRecord.columns) FROM item WHERE conflict_of = ? AND deleted = 0", arguments: [row.id])
      for var copy in copies {
        copy.conflictOf = nil
        try touch(db, &copy)
        try copy.update(db)
      }
    }
    return stale
  }
}
