import Foundation
import GRDB
import ProviderAPI

/// Finding and rewriting the paths of a folder's indexed descendants, as bytes.
///
/// Paths are BLOBs compared with memcmp, so the descendants of `/a/b` are exactly the rows with
/// `"/a/b/" <= path < "/a/b0"` ('0' is the byte after '/'): one range scan of `item_path`, with
/// no LIKE (which would treat `%` and `_` in names as wildcards) and no text conversion (SQLite's
/// `||` turns BLOBs into TEXT). The new paths are computed in Swift, byte for byte.
enum DescendantPaths {
  /// `folder` followed by exactly one '/': what every descendant's path starts with.
  static func prefix(of folder: ItemPath) -> [UInt8] {
    folder.bytes.last == 0x2F ? folder.bytes : folder.bytes + [0x2F]
  }

  /// The half-open BLOB range holding every path under `folder`.
  static func range(under folder: ItemPath) -> (lower: Data, upper: Data) {
    let lower = prefix(of: folder)
    var upper = lower
    upper[upper.count - 1] = 0x30  // '/' + 1
    return (Data(lower), Data(upper))
  }

  /// The rows that belong below a folder: reached from it through their folders (`parentIdentifier`,
  /// whatever their paths say), or — for rows deeper than its children whose folder the index
  /// does not have — by path under `path`, and then everything reached from those. (A child by
  /// path names its folder: if that is not this one, it is not this folder's.)
  ///
  /// A path alone is not enough: with stable identifiers an indexed path can be stale. A folder
  /// renamed or trashed elsewhere keeps its old path here until the change arrives, and another
  /// folder may have taken that name meanwhile; its rows are not this folder's. Moving, trashing
  /// or deleting the stale folder by path took them along: a file used in the new folder left
  /// Recents (folio-sim, seed 104933).
  ///
  /// - Parameters:
  ///   - folders: The folder's identifiers (its old and new one, when it is being re-keyed).
  ///   - underPathOnly: Keep only rows whose path is under `path` (to rewrite their paths).
  /// - Returns: Each row's id and path.
  static func members(
    of folders: [String], at path: ItemPath, domain: String, underPathOnly: Bool, in db: Database
  ) throws -> [(id: Int64, path: Data)] {
    let hasPath = !path.bytes.isEmpty && path != .root
    let (lower, upper) = hasPath ? range(under: path) : (Data(), Data())
    let marks = Array(repeating: "?", count: max(folders.count, 1)).joined(separator: ",")
    var arguments: [any DatabaseValueConvertible] = [domain]
    arguments += folders.isEmpty ? [""] : folders
    arguments += [hasPath, lower, upper, lower.count + 1, domain, domain]
    var sql = """
      WITH RECURSIVE below(id, identifier) AS (
        SELECT c.id, c.identifier FROM item AS c WHERE c.domain = ? AND (
          c.parentIdentifier IN (\(marks))
          OR (? AND c.path >= ? AND c.path < ?
            AND NOT EXISTS (SELECT 1 FROM item AS f WHERE f.domain = c.domain AND f.identifier = c.parentIdentifier)
            AND instr(substr(c.path, ?), X'2F') > 0))
        UNION SELECT item.id, item.identifier FROM item JOIN below ON item.parentIdentifier = below.identifier
          WHERE item.domain = ?)
      SELECT item.id, item.path FROM item WHERE item.domain = ? AND item.id IN (SELECT id FROM below)
      """
    if underPathOnly {
      guard hasPath else { return [] }
      sql += " AND item.path >= ? AND item.path < ?"
      arguments += [lower, upper]
    }
    return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { ($0["id"], $0["path"]) }
  }

  /// Moves every indexed descendant of the folder (``members``) from `old` to `new`, and marks
  /// them inside (or out of) the trash to match their new ancestor.
  ///
  /// - Returns: The number of rows rewritten.
  @discardableResult
  static func rewrite(
    _ db: Database, domain: DomainIdentifier, folder folders: [ItemIdentifier], from old: ItemPath, to new: ItemPath,
    insideTrash: Bool
  ) throws -> Int {
    // Never the whole domain: moving "/" is not a thing, and an empty path has no descendants.
    guard !old.bytes.isEmpty, old != .root, old != new else { return 0 }
    let rows = try members(of: folders.map(\.rawValue), at: old, domain: domain.rawValue, underPathOnly: true, in: db)
    let oldPrefixCount = prefix(of: old).count
    let newPrefix = prefix(of: new)
    let update = try db.cachedStatement(sql: "UPDATE item SET path = ?, insideTrash = ? WHERE id = ?")
    for row in rows {
      let moved = Data(newPrefix + row.path.dropFirst(oldPrefixCount))
      try update.execute(arguments: [moved, insideTrash, row.id])
    }
    return rows.count
  }

  /// Marks every indexed descendant of a folder (``members``) inside (or out of) the trash.
  static func markInsideTrash(
    _ inside: Bool, under identifier: String, at path: ItemPath, domain: String, in db: Database
  ) throws {
    let ids = try members(of: [identifier], at: path, domain: domain, underPathOnly: false, in: db).map(\.id)
    let update = try db.cachedStatement(sql: "UPDATE item SET insideTrash = ? WHERE id = ? AND NOT isTrashed")
    for id in ids { try update.execute(arguments: [inside, id]) }
  }

  /// Deletes every indexed descendant of a folder (``members``); their tags go with them.
  @discardableResult
  static func delete(_ db: Database, domain: DomainIdentifier, folder: ItemIdentifier, at path: ItemPath) throws -> Int {
    let ids = try members(of: [folder.rawValue], at: path, domain: domain.rawValue, underPathOnly: false, in: db).map(\.id)
    let delete = try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?")
    for id in ids { try delete.execute(arguments: [id]) }
    return ids.count
  }
}
