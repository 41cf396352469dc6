import FolioProtocol
import Foundation
import GRDB

/// Creating folders and files, replacing content, copying.
extension ItemStore {
  /// A folder that can receive items: live, a folder, and not in the trash.
  static func destination(_ db: Database, _ id: String) throws -> ItemRecord {
    if id == "trash" { throw ServerError.invalid("use PATCH parent=trash to move an item to the trash") }
    let folder = try ItemRecord.live(db, id: id)
    guard folder.isFolder else { throw ServerError.invalid("\(id) is not a folder") }
    if try ItemRecord.isInTrash(db, folder) { throw ServerError.invalid("\(id) is in the trash") }
    return folder
  }

  /// Throws filenameCollision when `name` is taken in `parent` by another item than `except`.
  static func checkFree(_ db: Database, parent: String, name: String, except: String? = nil) throws {
    if let holder = try ItemRecord.child(db, parent: parent, name: name), holder.id != except {
      throw ServerError.collision(name, existing: holder.id)
    }
  }

  /// Marks `record` as changed: the next rank of the log and a new metadata revision.
  static func touch(_ db: Database, _ record: inout ItemRecord) throws {
    record.rank = try Meta.nextRank(db)
    record.metadataVersion += 1
  }

  func createFolder(parent: String, name: String, user: String) async throws -> WireItem {
    let name = try NameRules.validate(name)
    return try await mutate { db in
      _ = try Self.destination(db, parent)
      try Self.checkFree(db, parent: parent, name: name)
      let record = ItemRecord.new(
        id: try Meta.nextItemID(db), parent: parent, name: name, isFolder: true, owner: user,
        now: Date().timeIntervalSince1970, rank: try Meta.nextRank(db))
      try record.insert(db)
      return try record.wire(db, for: user)
    }
  }

  /// Checks what can be checked before an upload's body is read: the folder, the name, the quota
  /// against the stated length. The same checks run again at commit.
  func precheckNewFile(parent: String, name: String, size: Int64, user: String) async throws {
    try await pool.read { db in
      _ = try Self.destination(db, parent)
      try Self.checkFree(db, parent: parent, name: name)
      try Self.checkQuota(db, user: user, extra: size)
    }
  }

  /// Commits a verified upload as a new file.
  func createFile(parent: String, name: String, staged: StagedUpload, user: String) async throws -> WireItem {
    let content = content
    return try await mutate { db in
      _ = try Self.destination(db, parent)
      try Self.checkFree(db, parent: parent, name: name)
      try Self.checkQuota(db, user: user, extra: staged.size)
      var record = ItemRecord.new(
        id: try Meta.nextItemID(db), parent: parent, name: name, isFolder: false, owner: user,
        now: Date().timeIntervalSince1970, rank: try Meta.nextRank(db))
      record.size = staged.size
      record.sha256 = staged.sha256
      try content.publish(staged, id: record.id, revision: record.contentVersion)
      do {
        try record.insert(db)
        return try record.wire(db, for: user)
      } catch {
        content.remove([(record.id, record.contentVersion)])
        throw error
      }
    }
  }

  /// Checks a content replacement before its body is read: the item is a file, not locked by
  /// somebody else, and the bytes fit the quota of whoever will own them.
  func precheckReplace(id: String, base: Int64, size: Int64, user: String) async throws {
    try await pool.read { db in
      let item = try ItemRecord.live(db, id: id)
      guard !item.isFolder else { throw ServerError.invalid("\(id) is a folder") }
      if let locker = item.lockedBy, locker != user {
        throw ServerError(.locked, "\(item.name) is locked by \(locker)")
      }
      if base == item.contentVersion {
        try Self.checkQuota(db, user: item.owner, extra: size - item.size)
      } else {
        try Self.checkQuota(db, user: user, extra: size)
      }
    }
  }

  /// Commits new content for `id` uploaded against content revision `base`.
  ///
  /// When `base` is stale the bytes become a conflict copy beside the item, owned by the uploader,
  /// and the item stays as it was: nothing is overwritten silently (docs/PROTOCOL.md, "Writing").
  func replaceContent(id: String, base: Int64, staged: StagedUpload, user: String) async throws -> UploadResponse {
    let content = content
    let (response, oldFile) = try await mutate { db -> (UploadResponse, (String, Int64)?) in
      var item = try ItemRecord.live(db, id: id)
      guard !item.isFolder else { throw ServerError.invalid("\(id) is a folder") }
      if let locker = item.lockedBy, locker != user {
        throw ServerError(.locked, "\(item.name) is locked by \(locker)")
      }
      let now = Date().timeIntervalSince1970
      if base == item.contentVersion {
        try Self.checkQuota(db, user: item.owner, extra: staged.size - item.size)
        let old = (item.id, item.contentVersion)
        item.contentVersion += 1
        item.size = staged.size
        item.sha256 = staged.sha256
        item.modified = now
        item.editor = user
        try Self.touch(db, &item)
        try content.publish(staged, id: item.id, revision: item.contentVersion)
        do {
          try item.update(db)
          return (UploadResponse(item: try item.wire(db, for: user), contentAccepted: true, conflictCopy: nil), old)
        } catch {
          content.remove([(item.id, item.contentVersion)])
          throw error
        }
      }
      try Self.checkQuota(db, user: user, extra: staged.size)
      let parent = item.parent ?? "root"
      let name = try Self.conflictName(db, original: item.name, parent: parent, user: user, date: now)
      var copy = ItemRecord.new(
        id: try Meta.nextItemID(db), parent: parent, name: name, isFolder: false, owner: user, now: now,
        rank: try Meta.nextRank(db))
      copy.size = staged.size
      copy.sha256 = staged.sha256
      copy.conflictOf = item.id
      if parent == "trash" {
        copy.trashed = now
        copy.originalParent = item.originalParent
      }
      try content.publish(staged, id: copy.id, revision: copy.contentVersion)
      do {
        try copy.insert(db)
        // The original now shows the conflict decoration: clients must hear about it.
        try Self.touch(db, &item)
        try item.update(db)
        return (
          UploadResponse(
            item: try item.wire(db, for: user), contentAccepted: false, conflictCopy: try copy.wire(db, for: user)),
          nil
        )
      } catch {
        content.remove([(copy.id, copy.contentVersion)])
        throw error
      }
    }
    if let oldFile { content.remove([oldFile]) }
    return response
  }

  /// Copies `id` (a folder with everything in it) into `parent`, owned by `user`.
  func copy(id: String, parent: String, name: String?, user: String) async throws -> WireItem {
    let newName = try name.map { n throws(ServerError) in try NameRules.validate(n) }
    let content = content
    return try await mutate { db in
      let source = try ItemRecord.live(db, id: id)
      if source.isContainer { throw ServerError.invalid("\(id) cannot be copied") }
      _ = try Self.destination(db, parent)
      if source.isFolder, try ItemRecord.isDescendant(db, parent, of: source.id) {
        throw ServerError.invalid("a folder cannot be copied into itself")
      }
      let name = newName ?? source.name
      try Self.checkFree(db, parent: parent, name: name)
      let bytes =
        try Int64.fetchOne(
          db,
          sql: """
            WITH RECURSIVE sub(id) AS (SELECT ? UNION ALL SELECT item.id FROM item JOIN sub ON item.parent = sub.id
              WHERE item.deleted = 0)
            SELECT COALESCE(SUM(size), 0) FROM item WHERE id IN sub AND is_folder = 0
            """, arguments: [source.id]) ?? 0
      try Self.checkQuota(db, user: user, extra: bytes)
      var linked: [(id: String, revision: Int64)] = []
      do {
        let top = try Self.copyTree(db, source, into: parent, name: name, user: user, content: content, linked: &linked)
        return try top.wire(db, for: user)
      } catch {
        content.remove(linked)
        throw error
      }
    }
  }

  private static func copyTree(
    _ db: Database, _ source: ItemRecord, into parent: String, name: String, user: String, content: ContentStore,
    linked: inout [(id: String, revision: Int64)]
  ) throws -> ItemRecord {
    let now = Date().timeIntervalSince1970
    var copy = ItemRecord.new(
      id: try Meta.nextItemID(db), parent: parent, name: name, isFolder: source.isFolder, owner: user, now: now,
      rank: try Meta.nextRank(db))
    copy.created = now
    copy.modified = source.modified
    if !source.isFolder {
      copy.size = source.size
      copy.sha256 = source.sha256
      try content.link(from: (source.id, source.contentVersion), to: (copy.id, copy.contentVersion))
      linked.append((copy.id, copy.contentVersion))
    }
    try copy.insert(db)
    if source.isFolder {
      let children = try ItemRecord.fetchAll(
        db, sql: "SELECT \(ItemRecord.columns) FROM item WHERE parent = ? AND deleted = 0", arguments: [source.id])
      for child in children {
        _ = try copyTree(db, child, into: copy.id, name: child.name, user: user, content: content, linked: &linked)
      }
    }
    return copy
  }
}
