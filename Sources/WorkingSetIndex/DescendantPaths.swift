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

  /// Moves every indexed descendant of `old` under `new`, and marks them inside (or out of) the
  /// trash to match their new ancestor.
  ///
  /// - Returns: The number of rows rewritten.
  @discardableResult
  static func rewrite(
    _ db: Database, domain: DomainIdentifier, from old: ItemPath, to new: ItemPath, insideTrash: Bool
  ) throws -> Int {
    // Never the whole domain: moving "/" is not a thing, and an empty path has no descendants.
    guard !old.bytes.isEmpty, old != .root, old != new else { return 0 }
    let (lower, upper) = range(under: old)
    let rows = try Row.fetchAll(
      db, sql: "SELECT id, path FROM item WHERE domain = ? AND path >= ? AND path < ?",
      arguments: [domain.rawValue, lower, upper])
    let oldPrefixCount = lower.count
    let newPrefix = prefix(of: new)
    let update = try db.cachedStatement(sql: "UPDATE item SET path = ?, insideTrash = ? WHERE id = ?")
    for row in rows {
      let id: Int64 = row["id"]
      let path: Data = row["path"]
      let moved = Data(newPrefix + path.dropFirst(oldPrefixCount))
      try update.execute(arguments: [moved, insideTrash, id])
    }
    return rows.count
  }

  /// Marks every indexed descendant of the folder `identifier` inside (or out of) the trash,
  /// following parent identifiers (`item_parent`).
  static func markInsideTrash(
    _ inside: Bool, under identifier: String, at path: ItemPath, domain: String, in db: Database
  ) throws {
    // And by path, for rows whose folder in between the index does not have (a file used in a
    // subfolder of a folder trashed elsewhere, learned in any order: folio-sim, seed 1629).
    if !path.bytes.isEmpty, path != .root {
      let (lower, upper) = range(under: path)
      try db.execute(
        sql: "UPDATE item SET insideTrash = ? WHERE domain = ? AND NOT isTrashed AND path >= ? AND path < ?",
        arguments: [inside, domain, lower, upper])
    }
    try db.execute(
      sql: """
        WITH RECURSIVE below(identifier) AS (
          SELECT identifier FROM item WHERE domain = ? AND parentIdentifier = ?
          UNION SELECT item.identifier FROM item JOIN below ON item.parentIdentifier = below.identifier
          WHERE item.domain = ?)
        UPDATE item SET insideTrash = ? WHERE domain = ? AND NOT isTrashed AND identifier IN below
        """,
      arguments: [domain, identifier, domain, inside, domain])
  }

  /// Deletes every indexed descendant of `folder` (their tags go with them).
  @discardableResult
  static func delete(_ db: Database, domain: DomainIdentifier, under folder: ItemPath) throws -> Int {
    guard !folder.bytes.isEmpty, folder != .root else { return 0 }
    let (lower, upper) = range(under: folder)
    try db.execute(
      sql: "DELETE FROM item WHERE domain = ? AND path >= ? AND path < ?",
      arguments: [domain.rawValue, lower, upper])
    return db.changesCount
  }
}
