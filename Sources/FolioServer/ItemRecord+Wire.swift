import FolioProtocol
import Foundation
import GRDB

/// How an item row becomes the `WireItem` one user sees: their tags, favorite rank and last use,
/// its path, sharing, lock and conflict state as userInfo and decorations.
extension ItemRecord {
  /// The wire form of this row for `user`.
  ///
  /// - Parameter parentPath: the path of the row's parent when the caller already knows it (a
  ///   listing), so a page of a thousand children does not walk to the root a thousand times.
  func wire(_ db: Database, for user: String, parentPath: String? = nil) throws -> WireItem {
    let personal = try Row.fetchOne(
      db, sql: "SELECT tags, favorite_rank, last_used FROM user_item WHERE user = ? AND item = ?",
      arguments: [user, id])
    var tags: [String] = []
    if let json: String = personal?[0], let data = json.data(using: .utf8) {
      tags = (try? JSONDecoder().decode([String].self, from: data)) ?? []
    }
    let favorite: Int64? = personal?[1]
    let lastUsed: Double? = personal?[2]

    var userInfo: [String: WireValue] = [:]
    var decorations: [String] = []
    if let lockedBy {
      userInfo["locked"] = .bool(true)
      userInfo["lockedBy"] = .string(lockedBy)
      // Whether this user may release it (the locker, or the file's owner): the Unlock action is
      // offered only then, never as a menu entry that can only fail.
      userInfo["mayUnlock"] = .bool(lockedBy == user || owner == user)
      decorations.append("locked")
    }
    let shared = !owner.isEmpty && owner != user
    if shared {
      userInfo["owner"] = .string(owner)
      decorations.append("sharedBy")
    }
    if let conflictOf {
      userInfo["conflictOf"] = .string(conflictOf)
      decorations.append("conflict")
    } else if !isFolder, try hasUnresolvedConflicts(db) {
      userInfo["hasConflicts"] = .bool(true)
      decorations.append("conflict")
    }

    let path: String
    if let parentPath {
      path = parentPath == "/" ? "/" + name : parentPath + "/" + name
    } else {
      path = try Self.path(db, of: self)
    }
    var childCount: Int? = nil
    if isFolder {
      childCount = try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM item WHERE parent = ? AND deleted = 0", arguments: [id]) ?? 0
    }
    return WireItem(
      id: id, parent: parent ?? id, name: name, kind: isFolder ? "folder" : "file", path: path,
      size: isFolder ? nil : size, childCount: childCount, created: created, modified: modified,
      version: WireVersion(content: contentVersion, metadata: metadataVersion), sha256: isFolder ? nil : sha256,
      tags: tags, favoriteRank: favorite.map { UInt64($0) }, lastUsed: lastUsed, owner: owner,
      mostRecentEditor: editor, shared: shared, trashed: trashed, originalParent: originalParent,
      originalPath: originalPath, userInfo: userInfo, decorations: decorations)
  }

  /// True while a conflict copy of this item is neither resolved nor deleted.
  func hasUnresolvedConflicts(_ db: Database) throws -> Bool {
    try Bool.fetchOne(
      db, sql: "SELECT EXISTS(SELECT 1 FROM item WHERE conflict_of = ? AND deleted = 0 AND parent <> 'trash')",
      arguments: [id]) ?? false
  }

  /// The path of `record` from the root, or from the trash for trashed items ("/a.txt").
  static func path(_ db: Database, of record: ItemRecord) throws -> String {
    if record.isContainer { return "/" }
    var names: [String] = [record.name]
    var next = record.parent
    var hops = 0
    while let p = next, p != "root", p != "trash" {
      guard let row = try Row.fetchOne(db, sql: "SELECT parent, name FROM item WHERE id = ?", arguments: [p]) else {
        break
      }
      names.append(row[1])
      next = row[0]
      hops += 1
      if hops > 10_000 { throw ServerError(.serverError, "the folder chain of \(record.id) loops") }
    }
    return "/" + names.reversed().joined(separator: "/")
  }

  /// True when the item is the trash, in it, or under a trashed folder.
  static func isInTrash(_ db: Database, _ record: ItemRecord) throws -> Bool {
    if record.id == "trash" { return true }
    var next = record.parent
    var hops = 0
    while let p = next {
      if p == "trash" { return true }
      if p == "root" { return false }
      next = try String?.fetchOne(db, sql: "SELECT parent FROM item WHERE id = ?", arguments: [p]) ?? nil
      hops += 1
      if hops > 10_000 { return false }
    }
    return false
  }

  /// True when `ancestor` is `record` or one of its parents.
  static func isDescendant(_ db: Database, _ id: String, of ancestor: String) throws -> Bool {
    var next: String? = id
    var hops = 0
    while let p = next {
      if p == ancestor { return true }
      next = try String?.fetchOne(db, sql: "SELECT parent FROM item WHERE id = ?", arguments: [p]) ?? nil
      hops += 1
      if hops > 10_000 { return true }
    }
    return false
  }
}
