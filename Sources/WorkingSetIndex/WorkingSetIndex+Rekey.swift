import Foundation
import GRDB
import ProviderAPI

/// One identifier the index replaced when a path-keyed item moved.
public struct RekeyedIdentifier: Sendable, Equatable {
  public var old: ItemIdentifier
  public var new: ItemIdentifier
  public init(old: ItemIdentifier, new: ItemIdentifier) {
    self.old = old
    self.new = new
  }
}

/// Re-keying for storage whose identifiers are paths (`ProviderTraits.Identity.pathKeyed`: SFTP,
/// S3, WebDAV without file ids). A rename there gives the item — and everything below a folder —
/// new identifiers; what the index keeps under the old ones (tags, favorite, last use, cached
/// content, queued transfers, conflicts, anchors) must follow, or a rename would lose a tag or
/// strand a queued edit.
extension WorkingSetIndex {
  /// Moves everything the index keeps about the item at `oldPath` and its indexed descendants to
  /// their identifiers under `newPath`, in one transaction: item rows (path, name, identifier,
  /// parent), their tags (the foreign key cascades), content rows, open markers, transfers (the
  /// item, the folder a create goes into, the item a create made), conflicts and anchors.
  ///
  /// - Parameters:
  ///   - identifier: The provider's identifier for a path (`PathKeyedProvider.identifier(for:)`),
  ///     the root of the domain included.
  ///   - path: Its inverse (`PathKeyedProvider.path(for:)`); nil for an identifier that is no
  ///     path (a placeholder of a create not sent yet).
  /// - Returns: Every identifier replaced, for the content store to rename its files.
  @discardableResult
  public func rekey(
    domain: DomainIdentifier, from oldPath: ItemPath, to newPath: ItemPath,
    identifier: @Sendable (ItemPath) -> ItemIdentifier, path: @Sendable (ItemIdentifier) -> ItemPath?
  ) throws(ProviderError) -> [RekeyedIdentifier] {
    guard oldPath != newPath, oldPath != .root, !oldPath.bytes.isEmpty else { return [] }
    return try write("re-keying \(oldPath.displayString) as \(newPath.displayString)") { db in
      var moves: [(old: ItemPath, new: ItemPath)] = [(oldPath, newPath)]
      let (lower, upper) = DescendantPaths.range(under: oldPath)
      let below = try Data.fetchAll(
        db, sql: "SELECT path FROM item WHERE domain = ? AND path >= ? AND path < ? ORDER BY path",
        arguments: [domain.rawValue, lower, upper])
      let oldPrefixCount = lower.count
      let newPrefix = DescendantPaths.prefix(of: newPath)
      for path in below {
        moves.append((ItemPath(bytes: Array(path)), ItemPath(bytes: newPrefix + Array(path.dropFirst(oldPrefixCount)))))
      }
      var replaced: [RekeyedIdentifier] = []
      for (old, new) in moves {
        let was = identifier(old)
        let now = identifier(new)
        if was != now { replaced.append(RekeyedIdentifier(old: was, new: now)) }
      }
      // Edits queued for a stale row whose identifier the moved item takes (that item was renamed
      // or deleted elsewhere; its path is the moved item's now) are not edits of the moved item:
      // sent as its content, or re-based onto its next version, they overwrote it or were
      // overwritten by it (folio-sim, seed 105171). They become a new file where that item was,
      // as edits of a deleted item do, under its name, numbered by the create when taken ("a 2.txt").
      for (old, new) in moves {
        let now = identifier(new)
        guard identifier(old) != now, let name = new.lastComponent else { continue }
        let kept = try QueuedEdits.keepAsNewFile(
          db, domain: domain.rawValue, of: now.rawValue, as: Transfer.newPlaceholder().rawValue,
          in: identifier(new.parent).rawValue, named: Data(name.bytes))
        // Its cached copy is not the moved item's either, once its edits are in those staged
        // copies. (Edits not staged yet — the editor saved, the watcher has not seen it — stay
        // as they were, in a record the moved item's replaces if it has one.)
        if kept > 0 {
          try db.execute(
            sql: "DELETE FROM content WHERE domain = ? AND identifier = ?", arguments: [domain.rawValue, now.rawValue])
        }
      }
      // The other tables name identifiers whose items the index may not hold (a create queued
      // into a folder never listed): each is mapped back to its path.
      for (table, column) in Self.identifierColumns {
        let values = try String.fetchAll(
          db, sql: "SELECT DISTINCT \(column) FROM \(table) WHERE domain = ? AND \(column) IS NOT NULL",
          arguments: [domain.rawValue])
        for value in values {
          guard let p = path(ItemIdentifier(value)), let moved = p.relocated(from: oldPath, to: newPath) else { continue }
          let now = identifier(moved)
          guard now.rawValue != value else { continue }
          // A row already under the new identifier (a stale one) is replaced: OR REPLACE.
          try db.execute(
            sql: "UPDATE OR REPLACE \(table) SET \(column) = ? WHERE domain = ? AND \(column) = ?",
            arguments: [now.rawValue, domain.rawValue, value])
        }
      }
      // The item rows themselves: path, name and parent from the new path. A stale row that
      // already holds a new identifier (listed before the rename reached the index) gives way.
      let update = try db.cachedStatement(
        sql: """
          UPDATE item SET identifier = ?, parentIdentifier = ?, path = ?, name = ?, nameText = ?
          WHERE domain = ? AND path = ?
          """)
      for (old, new) in moves {
        let now = identifier(new).rawValue
        try db.execute(
          sql: "DELETE FROM item WHERE domain = ? AND identifier = ? AND path <> ?",
          arguments: [domain.rawValue, now, Data(old.bytes)])
        let name = new.lastComponent ?? ItemName(bytes: [])
        try update.execute(arguments: [
          now, identifier(new.parent).rawValue, Data(new.bytes), Data(name.bytes), name.lossyString,
          domain.rawValue, Data(old.bytes),
        ])
      }
      return replaced
    }
  }

  /// Every column but `item`'s that names an identifier (tags follow `item` by their foreign key).
  static let identifierColumns: [(table: String, column: String)] = [
    ("content", "identifier"), ("contentOpen", "identifier"), ("transfer", "identifier"),
    ("transfer", "parentIdentifier"), ("transfer", "resultIdentifier"), ("syncConflict", "copy"),
    ("syncConflict", "original"), ("syncAnchor", "container"),
  ]
}
