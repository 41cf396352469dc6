import GRDB
import ProviderAPI

/// What the listing poller asks the index (storage without a change feed, issue 10 §2).
extension WorkingSetIndex {
  /// The folders that hold live working-set items of a domain (recently used, tagged, favorite,
  /// shared, downloaded, pinned): the poller lists them every few minutes, which is how a
  /// working-set item deleted or changed elsewhere reaches the index when the storage has no
  /// change feed. Served by the `item_parent` index.
  public func workingSetFolders(domain: DomainIdentifier) throws(ProviderError) -> Set<ItemIdentifier> {
    try read("reading the working set's folders") { db in
      let parents = try String.fetchAll(
        db,
        sql: """
          SELECT DISTINCT parentIdentifier FROM item
          WHERE domain = ? AND inWorkingSet = 1 AND isTrashed = 0 AND identifier != parentIdentifier
          """,
        arguments: [domain.rawValue])
      return Set(parents.map(ItemIdentifier.init))
    }
  }

  /// Which of `identifiers` the index holds a row for (in any folder). One query per 500: the
  /// poller asks this about every entry of a listing that its folder's rows do not name, and a
  /// lookup per entry cost a prepared statement each (a 20,000-entry folder on screen spent a
  /// third of a core on them every 20 s).
  public func knownIdentifiers(among identifiers: [ItemIdentifier], domain: DomainIdentifier) throws(ProviderError)
    -> Set<ItemIdentifier>
  {
    guard !identifiers.isEmpty else { return [] }
    return try read("looking up \(identifiers.count) item(s)") { db in
      var known: Set<ItemIdentifier> = []
      for chunk in Self.chunks(identifiers.map(\.rawValue)) {
        let found = try String.fetchAll(
          db, sql: "SELECT identifier FROM item WHERE domain = ? AND identifier IN (\(Self.placeholders(chunk.count)))",
          arguments: StatementArguments([domain.rawValue] + chunk))
        for id in found { known.insert(ItemIdentifier(id)) }
      }
      return known
    }
  }

  /// Which of these folders the index has no row for but holds children of (rows whose
  /// `parentIdentifier` names them). A change to such a folder — moved, or put in the trash — is
  /// its children's change too, though the index does not keep the folder itself.
  public func unindexedFoldersWithChildren(among identifiers: [ItemIdentifier], domain: DomainIdentifier)
    throws(ProviderError) -> Set<ItemIdentifier>
  {
    guard !identifiers.isEmpty else { return [] }
    return try read("looking up the children of \(identifiers.count) folder(s)") { db in
      var parents: Set<ItemIdentifier> = []
      for chunk in Self.chunks(identifiers.map(\.rawValue)) {
        let found = try String.fetchAll(
          db,
          sql: """
            SELECT DISTINCT c.parentIdentifier FROM item AS c
            WHERE c.domain = ? AND c.parentIdentifier IN (\(Self.placeholders(chunk.count)))
              AND NOT EXISTS (SELECT 1 FROM item AS f WHERE f.domain = c.domain AND f.identifier = c.parentIdentifier)
            """,
          arguments: StatementArguments([domain.rawValue] + chunk))
        for id in found { parents.insert(ItemIdentifier(id)) }
      }
      return parents
    }
  }

  /// Folders the index holds rows in but has no row for (besides the root and the trash), at
  /// most `limit`: the sync looks them up and keeps them, so that every row is linked to the top
  /// through its folders (``WorkingSetSync``'s `keepFolders`).
  public func unindexedFolders(domain: DomainIdentifier, limit: Int) throws(ProviderError) -> [ItemIdentifier] {
    try read("looking for the folders of the index's rows") { db in
      let reserved = [ItemIdentifier.root, .trash, .workingSet].map(\.rawValue)
      return try String.fetchAll(
        db,
        sql: """
          SELECT DISTINCT c.parentIdentifier FROM item AS c
          WHERE c.domain = ? AND c.parentIdentifier NOT IN (?, ?, ?) AND c.parentIdentifier != c.identifier
            AND NOT EXISTS (SELECT 1 FROM item AS f WHERE f.domain = c.domain AND f.identifier = c.parentIdentifier)
          LIMIT ?
          """,
        arguments: StatementArguments([domain.rawValue] + reserved + [limit])
      ).map(ItemIdentifier.init)
    }
  }
}
