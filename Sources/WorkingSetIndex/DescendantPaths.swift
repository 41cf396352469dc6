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

  /// One indexed row below a folder, as ``members`` finds it.
  struct Member {
    var id: Int64
    var identifier: String
    var parentIdentifier: String
    var name: Data
    var path: Data
  }

  /// The rows that belong below a folder: reached from it through their folders (`parentIdentifier`,
  /// whatever their paths say), or — for rows deeper than its children whose folder the index
  /// does not have — by path under `path`, with every other row of that same folder whatever its
  /// path, and then everything reached from those. (A child by path names its folder: if that is
  /// not this one, it is not this folder's.)
  ///
  /// A path alone is not enough: with stable identifiers an indexed path can be stale. A folder
  /// renamed or trashed elsewhere keeps its old path here until the change arrives, and another
  /// folder may have taken that name meanwhile; its rows are not this folder's. Moving, trashing
  /// or deleting the stale folder by path took them along: a file used in the new folder left
  /// Recents (folio-sim, seed 104933).
  ///
  /// And rows of one folder the index does not keep can hold different paths: one refreshed alone
  /// (a file pinned after its folder's folder was renamed elsewhere) has the new path while its
  /// siblings have the old. They are one folder's files, so they go together: matched by path
  /// alone, the refreshed one stayed behind, shown live at a path the server no longer had
  /// (folio-sim, seed 193257).
  ///
  /// - Parameters:
  ///   - folders: The folder's identifiers (its old and new one, when it is being re-keyed).
  static func members(of folders: [String], at path: ItemPath, domain: String, in db: Database) throws -> [Member] {
    let hasPath = !path.bytes.isEmpty && path != .root
    let (lower, upper) = hasPath ? range(under: path) : (Data(), Data())
    let marks = Array(repeating: "?", count: max(folders.count, 1)).joined(separator: ",")
    var arguments: [any DatabaseValueConvertible] = [domain, hasPath, lower, upper, lower.count + 1, domain]
    arguments += folders.isEmpty ? [""] : folders
    arguments += [domain, domain]
    let sql = """
      WITH RECURSIVE stray(parent) AS (
        SELECT DISTINCT c.parentIdentifier FROM item AS c WHERE c.domain = ? AND ? AND c.path >= ? AND c.path < ?
          AND NOT EXISTS (SELECT 1 FROM item AS f WHERE f.domain = c.domain AND f.identifier = c.parentIdentifier)
          AND instr(substr(c.path, ?), X'2F') > 0),
      below(id, identifier) AS (
        SELECT c.id, c.identifier FROM item AS c WHERE c.domain = ?
          AND (c.parentIdentifier IN (\(marks)) OR c.parentIdentifier IN (SELECT parent FROM stray))
        UNION SELECT item.id, item.identifier FROM item JOIN below ON item.parentIdentifier = below.identifier
          WHERE item.domain = ?)
      SELECT id, identifier, parentIdentifier, name, path FROM item
        WHERE domain = ? AND id IN (SELECT id FROM below)
      """
    return try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map {
      Member(id: $0["id"], identifier: $0["identifier"], parentIdentifier: $0["parentIdentifier"], name: $0["name"], path: $0["path"])
    }
  }

  /// Moves every indexed descendant of the folder (``members``) from `old` to `new`, and marks
  /// them inside (or out of) the trash to match their new ancestor.
  ///
  /// A row under `old` keeps what follows `old` in its path. A row elsewhere (its path refreshed
  /// alone, or never stale) is placed by its folder: the folder's new path and its own name, its
  /// folder's new path found the same way, or — for a folder the index does not keep — from a
  /// sibling under `old`. A row that cannot be placed so keeps its path.
  ///
  /// - Returns: The number of rows rewritten.
  @discardableResult
  static func rewrite(
    _ db: Database, domain: DomainIdentifier, folder folders: [ItemIdentifier], from old: ItemPath, to new: ItemPath,
    insideTrash: Bool
  ) throws -> Int {
    // Never the whole domain: moving "/" is not a thing, and an empty path has no descendants.
    guard !old.bytes.isEmpty, old != .root, old != new else { return 0 }
    let rows = try members(of: folders.map(\.rawValue), at: old, domain: domain.rawValue, in: db)
    let oldPrefix = prefix(of: old)
    let newPrefix = prefix(of: new)
    let folderIdentifiers = Set(folders.map(\.rawValue))
    let byIdentifier = Dictionary(rows.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
    func isUnderOld(_ path: Data) -> Bool { path.count > oldPrefix.count && path.starts(with: oldPrefix) }
    func swapped(_ path: Data) -> [UInt8] { newPrefix + path.dropFirst(oldPrefix.count) }
    // Where the rows of each folder the index does not keep now are, from one of them under `old`.
    var strayFolders: [String: [UInt8]] = [:]
    for row in rows where byIdentifier[row.parentIdentifier] == nil && !folderIdentifiers.contains(row.parentIdentifier)
      && isUnderOld(row.path)
    {
      strayFolders[row.parentIdentifier] = ItemPath(bytes: swapped(row.path)).parent.bytes
    }
    var placed: [String: [UInt8]] = [:]
    func newPath(of row: Member, depth: Int = 0) -> [UInt8]? {
      if let known = placed[row.identifier] { return known }
      var result: [UInt8]?
      if isUnderOld(row.path) {
        result = swapped(row.path)
      } else if depth < 256 {
        let folder: [UInt8]? =
          folderIdentifiers.contains(row.parentIdentifier)
          ? new.bytes
          : byIdentifier[row.parentIdentifier].flatMap { newPath(of: $0, depth: depth + 1) }
            ?? strayFolders[row.parentIdentifier]
        result = folder.map { prefix(of: ItemPath(bytes: $0)) + row.name }
      }
      placed[row.identifier] = result
      return result
    }
    let update = try db.cachedStatement(sql: "UPDATE item SET path = ?, insideTrash = ? WHERE id = ?")
    var count = 0
    for row in rows {
      guard let moved = newPath(of: row), isUnderOld(row.path) || Data(moved) != row.path else { continue }
      try update.execute(arguments: [Data(moved), insideTrash, row.id])
      count += 1
    }
    return count
  }

  /// Marks every indexed descendant of a folder (``members``) inside (or out of) the trash.
  static func markInsideTrash(
    _ inside: Bool, under identifier: String, at path: ItemPath, domain: String, in db: Database
  ) throws {
    let ids = try members(of: [identifier], at: path, domain: domain, in: db).map(\.id)
    let update = try db.cachedStatement(sql: "UPDATE item SET insideTrash = ? WHERE id = ? AND NOT isTrashed")
    for id in ids { try update.execute(arguments: [inside, id]) }
  }

  /// Deletes every indexed descendant of a folder (``members``); their tags go with them.
  @discardableResult
  static func delete(_ db: Database, domain: DomainIdentifier, folder: ItemIdentifier, at path: ItemPath) throws -> Int {
    let ids = try members(of: [folder.rawValue], at: path, domain: domain.rawValue, in: db).map(\.id)
    let delete = try db.cachedStatement(sql: "DELETE FROM item WHERE id = ?")
    for id in ids { try delete.execute(arguments: [id]) }
    return ids.count
  }
}
