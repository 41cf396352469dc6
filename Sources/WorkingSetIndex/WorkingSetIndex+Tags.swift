import Foundation
import GRDB
import ProviderAPI

/// Tags: one `tag` row per (item, name), in the item's order, mirrored as comma-joined text in
/// `item.tagsText` for full-text search and the working-set rule.
extension WorkingSetIndex {
  /// Replaces the item's tags (an empty list removes them). The item is indexed if it was not.
  ///
  /// - Parameter indexOnly: true when the provider could not store the tags (the index is their
  ///   only home); false when the index mirrors tags the provider stored.
  public func setTags(_ tags: [String], of item: Item, domain: DomainIdentifier, indexOnly: Bool = false) throws(ProviderError) {
    try write("tagging \(item.filename)") { db in
      let tags = Self.normalizedTags(tags)
      guard
        let record = try Self.apply(
          item, domain: domain, in: db, insertNew: true, edit: { $0.tagsText = Self.tagsText(tags) })
      else { return }
      try Self.replaceTags(db, of: record, with: tags)
      try db.execute(
        sql: "UPDATE item SET tagsInIndexOnly = ? WHERE domain = ? AND identifier = ?",
        arguments: [indexOnly && !tags.isEmpty, domain.rawValue, item.identifier.rawValue])
    }
  }

  /// The tags only the index holds (see `setTags(_:of:domain:indexOnly:)`), for merging into
  /// provider items. Mirrored tags are left out: the provider's own answer is the truth for those.
  public func indexOnlyTags(
    of identifiers: [ItemIdentifier], domain: DomainIdentifier
  ) throws(ProviderError) -> [ItemIdentifier: [String]] {
    try read("reading tags") { db in
      var result: [ItemIdentifier: [String]] = [:]
      for identifier in identifiers {
        let owned = try Bool.fetchOne(
          db, sql: "SELECT tagsInIndexOnly FROM item WHERE domain = ? AND identifier = ?",
          arguments: [domain.rawValue, identifier.rawValue]) ?? false
        guard owned else { continue }
        let tags = try Self.tags(db, domain: domain.rawValue, identifier: identifier.rawValue)
        if !tags.isEmpty { result[identifier] = tags }
      }
      return result
    }
  }

  /// The tags of each identifier that has some; identifiers without tags are absent.
  public func tags(
    of identifiers: [ItemIdentifier], domain: DomainIdentifier
  ) throws(ProviderError) -> [ItemIdentifier: [String]] {
    try read("reading tags") { db in
      var result: [ItemIdentifier: [String]] = [:]
      for identifier in identifiers {
        let tags = try Self.tags(db, domain: domain.rawValue, identifier: identifier.rawValue)
        if !tags.isEmpty { result[identifier] = tags }
      }
      return result
    }
  }

  /// Every tag in use, across domains, with how many items carry it, by name: the Tags sidebar.
  /// Items in Recently Deleted (or inside a deleted folder) are not counted, as `items(taggedWith:)`
  /// does not list them; a tag only they carry is left out until they are restored.
  public func allTags() throws(ProviderError) -> [(name: String, count: Int)] {
    try read("listing tags") { db in try Self.allTags(db) }
  }

  static func allTags(_ db: Database) throws -> [(name: String, count: Int)] {
    try Row.fetchAll(
      db,
      sql: """
        SELECT tag.name AS name, count(*) AS n FROM tag JOIN item USING (domain, identifier)
        WHERE NOT item.isTrashed AND NOT item.insideTrash
        GROUP BY tag.name ORDER BY tag.name
        """
    ).map { (name: $0["name"], count: $0["n"]) }
  }

  /// The items carrying `tag`, across domains, most recently used first, trashed items excluded.
  public func items(taggedWith tag: String) throws(ProviderError) -> [IndexedItem] {
    try read("listing items tagged \(tag)") { db in
      let tag = try Self.spelling(of: tag, db)
      let records = try IndexedItemRecord.fetchAll(
        db,
        sql: """
          SELECT item.* FROM tag JOIN item USING (domain, identifier)
          WHERE tag.name = ? AND NOT item.isTrashed AND NOT item.insideTrash
          ORDER BY item.lastUsed DESC, item.id DESC
          """,
        arguments: [tag])
      return try Self.indexedItems(db, records)
    }
  }

  // MARK: - Shared with the other writes and reads

  /// Drops empty and repeated tags ("Green" and "green" are one tag), keeping the first
  /// occurrence's place and spelling.
  static func normalizedTags(_ tags: [String]) -> [String] {
    var seen = Set<String>()
    return tags.filter { !$0.isEmpty && seen.insert(TagName.folded($0)).inserted }
  }

  /// The tags as the index already spells them: a tag written before in another case keeps its
  /// first spelling ("green" becomes "Green" once an item carries "Green"), so the sidebar shows one
  /// tag and a search by either finds both (issue 13).
  public func spellings(of tags: [String]) throws(ProviderError) -> [String] {
    try read("reading tags") { db in try tags.map { try Self.spelling(of: $0, db) } }
  }

  /// The spelling of `tag` already in the index, or `tag` when none is (or it is there as written).
  /// Where several spellings are there (written before tags were folded), the most used one.
  static func spelling(of tag: String, _ db: Database) throws -> String {
    if try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM tag WHERE name = ?)", arguments: [tag]) == true {
      return tag
    }
    let folded = TagName.folded(tag)
    // SQLite's NOCASE folds ASCII only: a tag with other letters is compared over every spelling.
    let candidates =
      tag.utf8.allSatisfy({ $0 < 0x80 })
      ? try Row.fetchAll(
        db, sql: "SELECT name, count(*) AS n FROM tag WHERE name = ? COLLATE NOCASE GROUP BY name", arguments: [tag])
      : try Row.fetchAll(db, sql: "SELECT name, count(*) AS n FROM tag GROUP BY name")
    var best: (name: String, count: Int)?
    for row in candidates {
      let name: String = row["name"]
      let count: Int = row["n"]
      guard TagName.folded(name) == folded else { continue }
      if best == nil || count > best!.count || (count == best!.count && name < best!.name) { best = (name, count) }
    }
    return best?.name ?? tag
  }

  static func tagsText(_ tags: [String]) -> String { tags.joined(separator: ",") }

  static func replaceTags(_ db: Database, of record: IndexedItemRecord, with tags: [String]) throws {
    try db.execute(
      sql: "DELETE FROM tag WHERE domain = ? AND identifier = ?", arguments: [record.domain, record.identifier])
    let insert = try db.cachedStatement(sql: "INSERT INTO tag (domain, identifier, name, position) VALUES (?, ?, ?, ?)")
    var written = Set<String>()
    for name in tags {
      // Mirrored tags come as another tool wrote them: one spelling per tag in the index.
      let spelled = try spelling(of: name, db)
      guard written.insert(spelled).inserted else { continue }
      try insert.execute(arguments: [record.domain, record.identifier, spelled, written.count - 1])
    }
  }

  static func tags(_ db: Database, domain: String, identifier: String) throws -> [String] {
    try String.fetchAll(
      db, sql: "SELECT name FROM tag WHERE domain = ? AND identifier = ? ORDER BY position",
      arguments: [domain, identifier])
  }

  /// Rows to public items, reading tags only for the rows that have some.
  static func indexedItems(_ db: Database, _ records: [IndexedItemRecord]) throws -> [IndexedItem] {
    try records.map { record in
      let tags = record.tagsText.isEmpty ? [] : try tags(db, domain: record.domain, identifier: record.identifier)
      return record.indexedItem(tags: tags)
    }
  }
}
