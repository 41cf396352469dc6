import FolioProtocol
import Foundation
import GRDB

/// PATCH: rename, move, trash, and the signed-in user's own fields (tags, favorite, last used).
extension ItemStore {
  func modify(id: String, _ change: ModifyRequest, user: String) async throws -> WireItem {
    let newName = try change.name.map { n throws(ServerError) in try NameRules.validate(n) }
    if let tags = change.tags {
      for tag in tags where tag.isEmpty || tag.utf8.count > 255 || tag.utf8.contains(0) {
        throw ServerError.invalid("a tag is 1-255 bytes without NUL")
      }
    }
    return try await mutate { db in
      var item = try ItemRecord.live(db, id: id)
      var changed = false
      if newName != nil || change.parent != nil {
        if item.isContainer { throw ServerError.invalid("\(id) cannot be renamed or moved") }
        // A lock keeps the file where it is for everybody but its locker: a lock that stops
        // others' edits but lets them rename, move or delete the file locks nothing.
        if let locker = item.lockedBy, locker != user {
          throw ServerError(.locked, "\(item.name) is locked by \(locker)")
        }
        try Self.applyPlace(db, &item, name: newName, parent: change.parent)
        changed = true
      }
      if change.tags != nil || change.favoriteRank != nil || change.lastUsed != nil {
        try Self.applyPersonal(db, item: item.id, user: user, change)
        changed = true
      }
      if changed {
        try Self.touch(db, &item)
        try item.update(db)
      }
      return try item.wire(db, for: user)
    }
  }

  /// Moves and renames, to the trash and out of it.
  private static func applyPlace(_ db: Database, _ item: inout ItemRecord, name: String?, parent: String?) throws {
    let name = name ?? item.name
    let target = parent ?? item.parent ?? "root"
    let now = Date().timeIntervalSince1970
    if target == "trash" {
      if item.parent != "trash" {
        item.originalParent = item.parent
        item.originalPath = try ItemRecord.path(db, of: item)
        item.trashed = now
        item.parent = "trash"
      }
      item.name = name
      return
    }
    _ = try destination(db, target)
    if item.isFolder, try ItemRecord.isDescendant(db, target, of: item.id) {
      throw ServerError.invalid("a folder cannot be moved into itself")
    }
    try checkFree(db, parent: target, name: name, except: item.id)
    if item.parent == "trash" {
      item.trashed = nil
      item.originalParent = nil
      item.originalPath = nil
    }
    item.parent = target
    item.name = name
  }

  private static func applyPersonal(_ db: Database, item: String, user: String, _ change: ModifyRequest) throws {
    try db.execute(
      sql: "INSERT INTO user_item(user, item) VALUES (?, ?) ON CONFLICT(user, item) DO NOTHING",
      arguments: [user, item])
    if let tags = change.tags {
      var unique: [String] = []
      for t in tags where !unique.contains(t) { unique.append(t) }
      let json = String(decoding: try JSONEncoder().encode(unique), as: UTF8.self)
      try db.execute(sql: "UPDATE user_item SET tags = ? WHERE user = ? AND item = ?", arguments: [json, user, item])
    }
    if let rank = change.favoriteRank {
      let value: Int64? = rank == 0 ? nil : Int64(clamping: rank)
      try db.execute(
        sql: "UPDATE user_item SET favorite_rank = ? WHERE user = ? AND item = ?", arguments: [value, user, item])
    }
    if let used = change.lastUsed {
      try db.execute(sql: "UPDATE user_item SET last_used = ? WHERE user = ? AND item = ?", arguments: [used, user, item])
    }
  }
}
