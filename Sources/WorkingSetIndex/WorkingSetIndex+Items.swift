import Foundation
import GRDB
import ProviderAPI

/// Writes that follow what happened to items: refreshed, used, trashed, restored, deleted, moved.
extension WorkingSetIndex {
  /// Refreshes the metadata of items the index knows, in one transaction.
  ///
  /// Per-user fields the index owns are kept when the provider's item lacks them: a nil
  /// `lastUsedDate` or `favoriteRank` and empty `tags` leave the stored ones alone (a provider that
  /// has them wins, except that a last use is never moved back). A changed path also moves the
  /// item's indexed descendants.
  ///
  /// - Parameters:
  ///   - insertNew: Also index items the index does not know yet.
  /// - Returns: The number of rows inserted or updated.
  @discardableResult
  public func upsert(_ items: [Item], domain: DomainIdentifier, insertNew: Bool = false) throws(ProviderError) -> Int {
    try write("refreshing \(items.count) item(s) of \(domain)") { db in
      var count = 0
      for item in items {
        if try Self.apply(item, domain: domain, in: db, insertNew: insertNew) != nil { count += 1 }
      }
      return count
    }
  }

  /// Records a clear intent to use the item (opened, previewed, edited): it joins the working set
  /// and goes to the top of Recents.
  public func recordUse(of item: Item, domain: DomainIdentifier, at date: Date = Date()) throws(ProviderError) {
    try write("recording the use of \(item.filename)") { db in
      try Self.apply(item, domain: domain, in: db, insertNew: true) { $0.lastUsed = date.timeIntervalSince1970 }
    }
  }

  /// Records that the item went to the trash. It stays in the working set (Recently Deleted); its
  /// indexed descendants follow it into the trash and leave the working set.
  ///
  /// - Parameters:
  ///   - item: The item as it is now, in the trash.
  ///   - originalPath: Where it was, for Put Back, and to find its indexed descendants.
  public func recordTrashed(
    _ item: Item, originalPath: ItemPath, at date: Date = Date(), domain: DomainIdentifier
  ) throws(ProviderError) {
    try write("recording that \(item.filename) was trashed") { db in
      try Self.apply(item, domain: domain, in: db, insertNew: true, previousPath: originalPath) { record in
        record.isTrashed = true
        record.insideTrash = false
        record.originalPath = Data(originalPath.bytes)
        record.trashedDate = date.timeIntervalSince1970
      }
    }
  }

  /// Records that a trashed item was put back (possibly under a new identifier); its indexed
  /// descendants come back with it.
  public func recordRestored(
    identifier: ItemIdentifier, newItem: Item, domain: DomainIdentifier
  ) throws(ProviderError) {
    try write("recording that \(newItem.filename) was restored") { db in
      try Self.apply(newItem, domain: domain, in: db, replacing: identifier, insertNew: false) { record in
        record.isTrashed = false
        record.insideTrash = false
        record.originalPath = nil
        record.trashedDate = nil
      }
    }
  }

  /// Records that items were deleted forever: their rows, their tags and the rows of everything
  /// indexed under them go.
  ///
  /// - Returns: The number of rows removed, descendants included.
  @discardableResult
  public func recordDeleted(identifiers: [ItemIdentifier], domain: DomainIdentifier) throws(ProviderError) -> Int {
    try write("recording the deletion of \(identifiers.count) item(s)") { db in
      var count = 0
      for identifier in identifiers {
        guard let record = try IndexedItemRecord.fetch(db, domain: domain, identifier: identifier) else { continue }
        // Edits queued for what goes become new files where it was, under its name, now, while
        // the row still says where and what: at upload time, the name was lost ("Recovered
        // file"), and on path-keyed storage a new item made at the same path took the deleted
        // one's identifier, so the edits went into it (folio-sim, seed 100635).
        let below = try DescendantPaths.members(
          of: [identifier.rawValue], at: ItemPath(bytes: Array(record.path)), domain: domain.rawValue, in: db)
        for row in try [record] + IndexedItemRecord.fetchAll(db, keys: below.map(\.id)) {
          try QueuedEdits.keepAsNewFile(
            db, domain: domain.rawValue, of: row.identifier, as: row.identifier, in: row.parentIdentifier, named: row.name)
        }
        count += try DescendantPaths.delete(
          db, domain: domain, folder: identifier, at: ItemPath(bytes: Array(record.path)))
        if try record.delete(db) { count += 1 }
      }
      try Self.forgetAbsences(db, domain: domain, identifiers: identifiers.map(\.rawValue))
      return count
    }
  }

  /// Forgets one item that can no longer be found (a stale Recents, Tags or favorite entry whose
  /// person asked to remove it): its row and its tags go; rows below its path stay, since what was
  /// inside a vanished folder may have been moved out before and is resolved on its own.
  ///
  /// - Returns: Whether there was a row.
  @discardableResult
  public func forget(identifier: ItemIdentifier, domain: DomainIdentifier) throws(ProviderError) -> Bool {
    try write("forgetting \(identifier.rawValue)") { db in
      try Self.forgetAbsences(db, domain: domain, identifiers: [identifier.rawValue])
      return try IndexedItemRecord.fetch(db, domain: domain, identifier: identifier)?.delete(db) ?? false
    }
  }

  /// Records a move or rename (possibly under a new identifier). The indexed descendants of a
  /// folder get their paths rewritten, so a renamed folder's children stay findable.
  ///
  /// - Parameters:
  ///   - previousPath: Where the item was, for an item the index does not know but whose
  ///     descendants it may (a folder never used itself, holding a recent file).
  public func recordMoved(
    identifier: ItemIdentifier, to newItem: Item, domain: DomainIdentifier, from previousPath: ItemPath? = nil
  ) throws(ProviderError) {
    try write("recording the move of \(newItem.filename)") { db in
      try Self.apply(
        newItem, domain: domain, in: db, replacing: identifier, insertNew: false, previousPath: previousPath)
    }
  }

  /// Records whether the content store holds a copy of the item (materialized items are in the
  /// working set: it is how their changes reach the index).
  public func setMaterialized(_ on: Bool, item: Item, domain: DomainIdentifier) throws(ProviderError) {
    try write("recording the materialization of \(item.filename)") { db in
      try Self.apply(item, domain: domain, in: db, insertNew: true) { $0.isMaterialized = on }
    }
  }

  /// Pins ("Keep Downloaded") or unpins the item.
  public func setPinned(_ on: Bool, item: Item, domain: DomainIdentifier) throws(ProviderError) {
    try write("pinning \(item.filename)") { db in
      try Self.apply(item, domain: domain, in: db, insertNew: true) { $0.isPinned = on }
    }
  }

  /// Forgets everything about a domain that was removed: items, tags, anchors and transfers.
  public func removeDomain(_ domain: DomainIdentifier) throws(ProviderError) {
    try write("removing the domain \(domain)") { db in
      for table in ["item", "syncAnchor", "transfer", "listingAbsence"] {
        try db.execute(sql: "DELETE FROM \(table) WHERE domain = ?", arguments: [domain.rawValue])
      }
    }
  }

  /// Whether the indexed row `identifier` is in the trash or inside a trashed folder; nil when the
  /// index has no such row.
  static func trashState(of identifier: ItemIdentifier, domain: DomainIdentifier, in db: Database) throws -> Bool? {
    guard
      let row = try Row.fetchOne(
        db, sql: "SELECT isTrashed, insideTrash FROM item WHERE domain = ? AND identifier = ?",
        arguments: [domain.rawValue, identifier.rawValue])
    else { return nil }
    return (row["isTrashed"] as Bool? ?? false) || (row["insideTrash"] as Bool? ?? false)
  }

  /// Where the index's rows say a folder is: the folder of the path of one of its children (by
  /// `parentIdentifier`), or nil when it has none indexed.
  static func folderPath(ofChildrenOf identifier: ItemIdentifier, domain: DomainIdentifier, in db: Database) throws -> ItemPath? {
    try Data.fetchOne(
      db, sql: "SELECT path FROM item WHERE domain = ? AND parentIdentifier = ? LIMIT 1",
      arguments: [domain.rawValue, identifier.rawValue]
    ).map { ItemPath(bytes: Array($0)).parent }
  }

  /// Whether an indexed row in the trash sits at one of `path`'s ancestors.
  static func hasTrashedAncestor(_ path: ItemPath, domain: DomainIdentifier, in db: Database) throws -> Bool {
    var ancestors: [Data] = []
    var current = path.parent
    while current != .root, !current.bytes.isEmpty, ancestors.count < 64 {
      ancestors.append(Data(current.bytes))
      current = current.parent
    }
    guard !ancestors.isEmpty else { return false }
    let marks = Array(repeating: "?", count: ancestors.count).joined(separator: ",")
    var arguments: [any DatabaseValueConvertible] = [domain.rawValue]
    arguments += ancestors
    return try Bool.fetchOne(
      db, sql: "SELECT EXISTS (SELECT 1 FROM item WHERE domain = ? AND isTrashed AND path IN (\(marks)))",
      arguments: StatementArguments(arguments)) ?? false
  }

  static func isInTrash(_ identifier: ItemIdentifier, domain: DomainIdentifier, in db: Database) throws -> Bool {
    try trashState(of: identifier, domain: domain, in: db) ?? false
  }

  /// Inserts or updates one item's row from the provider's `item`, then lets `edit` set the
  /// index's own fields. The one place where rows change identity or path.
  ///
  /// - Parameters:
  ///   - replacing: The identifier the row has now, when the item's identifier changed.
  ///   - previousPath: Where to look for descendants when the row is new or absent.
  /// - Returns: The row as saved, or nil when it did not exist and `insertNew` is false.
  @discardableResult
  static func apply(
    _ item: Item, domain: DomainIdentifier, in db: Database, replacing oldIdentifier: ItemIdentifier? = nil,
    insertNew: Bool, previousPath: ItemPath? = nil, edit: (inout IndexedItemRecord) -> Void = { _ in }
  ) throws -> IndexedItemRecord? {
    var existing = try IndexedItemRecord.fetch(db, domain: domain, identifier: oldIdentifier ?? item.identifier)
    // A filesystem gives a deleted file's inode to the next file it makes: same identifier,
    // another item. Its creation date tells them apart; the old row (its tags, favorite, last use)
    // goes rather than being credited to the new file.
    if let e = existing, oldIdentifier == nil || oldIdentifier == item.identifier,
      let was = e.created, let now = item.creationDate?.timeIntervalSince1970, abs(was - now) > 0.001
    {
      try e.delete(db)
      existing = nil
    }
    // A trashed item the index never had still names where it was: its indexed descendants are
    // found there (a folder trashed elsewhere whose files this computer uses).
    // A folder the index does not keep is where its indexed children's paths say it was.
    let oldPath =
      try existing.map { ItemPath(bytes: Array($0.path)) } ?? previousPath ?? (item.isTrashed ? item.originalPath : nil)
      ?? (item.isFolder ? Self.folderPath(ofChildrenOf: item.identifier, domain: domain, in: db) : nil)
    guard existing != nil || insertNew else {
      if let oldPath {
        try DescendantPaths.rewrite(
          db, domain: domain, folder: [item.identifier] + (oldIdentifier.map { [$0] } ?? []), from: oldPath, to: item.path,
          insideTrash: item.isTrashed)
      }
      if item.isFolder {
        // And by their folder, for rows the path does not cover (folio-sim's seed 302). Where its
        // folder is not indexed either, an indexed folder in the trash above its path says it is
        // in the trash: taken for out of it, the files of a folder inside a folder trashed here
        // left the trash (folio-sim, seed 100956).
        let inTrash =
          try item.isTrashed
          || (Self.trashState(of: item.parentIdentifier, domain: domain, in: db)
            ?? Self.hasTrashedAncestor(item.path, domain: domain, in: db))
        try DescendantPaths.markInsideTrash(
          inTrash, under: item.identifier.rawValue, at: item.path, domain: domain.rawValue, in: db)
      }
      return nil
    }
    var record = existing ?? IndexedItemRecord(domain: domain, item: item)
    record.applyProviderFields(of: item)
    if item.favoriteRank == IndexedItemRecord.unranked && record.favoriteRank == nil {
      record.favoriteRank = try nextFavoriteRank(db, at: Date())
    }
    let tags = normalizedTags(item.tags)
    if !tags.isEmpty { record.tagsText = tagsText(tags) }
    edit(&record)
    // Inside the trash exactly when its folder is (when the index knows the folder): a file
    // created in a folder trashed elsewhere meanwhile, or listed again later, read as live in
    // Recents and search (found by folio-sim).
    if !record.isTrashed {
      if let inTrash = try Self.trashState(of: ItemIdentifier(record.parentIdentifier), domain: domain, in: db) {
        record.insideTrash = inTrash
      } else if try Self.hasTrashedAncestor(ItemPath(bytes: Array(record.path)), domain: domain, in: db) {
        // Its folder is not indexed, but a folder above it is, in the trash (a file uploaded
        // into a folder trashed meanwhile, by this computer or another: folio-sim's seed 377).
        record.insideTrash = true
      } else if record.parentIdentifier == ItemIdentifier.root.rawValue
        || (existing.map { $0.parentIdentifier != record.parentIdentifier } ?? false)
      {
        // At the top, or moved to a folder the index does not know and under no trashed one:
        // nothing says it is in the trash. (Moved out of a folder trashed here before the move
        // was learned, it kept the old folder's mark, and left Recents: folio-sim, seed 150379.)
        record.insideTrash = false
      }
    }

    if let existing {
      if existing.identifier != record.identifier {
        // A stale row may already hold the new identifier: this one, with its history, wins.
        try db.execute(
          sql: "DELETE FROM item WHERE domain = ? AND identifier = ? AND id <> ?",
          arguments: [record.domain, record.identifier, existing.id])
      }
      try record.updateChanges(db, from: existing)
    } else {
      try record.insert(db)
    }
    if !tags.isEmpty { try replaceTags(db, of: record, with: tags) }
    if let oldPath, oldPath.bytes != Array(record.path) {
      try DescendantPaths.rewrite(
        db, domain: domain, folder: [ItemIdentifier(record.identifier)] + (existing.map { [ItemIdentifier($0.identifier)] } ?? []),
        from: oldPath, to: ItemPath(bytes: Array(record.path)),
        insideTrash: record.isTrashed || record.insideTrash)
    }
    let inTrash = record.isTrashed || record.insideTrash
    let wasInTrash = existing.map { $0.isTrashed || $0.insideTrash } ?? false
    if record.kind == ItemKind.folder.rawValue, inTrash != wasInTrash {
      // Descendants by their folder, not only by path: a row whose path the move did not cover
      // (its item made in the folder after the move) follows too.
      try DescendantPaths.markInsideTrash(
        inTrash, under: record.identifier, at: ItemPath(bytes: Array(record.path)), domain: record.domain, in: db)
    }
    return record
  }
}
