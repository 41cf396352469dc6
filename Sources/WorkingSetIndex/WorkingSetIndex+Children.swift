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
}
