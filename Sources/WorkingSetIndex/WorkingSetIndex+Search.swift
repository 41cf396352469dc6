import Foundation
import GRDB
import ProviderAPI

/// Full-text search over names and tags, in every domain, offline.
extension WorkingSetIndex {
  /// Items whose name or tags contain words starting with each word of `query`: "rep 2024"
  /// finds "Report-2024.pdf" and "Q3 report (2024).odt". Case and diacritics are ignored
  /// ("cafe" finds "Café"). Best matches first, then the most recently used; when more than
  /// ``searchCandidates`` items match, only the most recently indexed of them are ranked.
  ///
  /// Any text is accepted: a query with no word in it (punctuation, spaces) finds nothing rather
  /// than failing. Items inside a trashed folder are left out; trashed items themselves are found.
  public func search(_ query: String, limit: Int) throws(ProviderError) -> [IndexedItem] {
    try read("searching for \(TerminalText.escape(query))") { db in
      guard let pattern = try Self.prefixPattern(query, in: db) else { return [] }
      let records = try IndexedItemRecord.fetchAll(
        db,
        sql: """
          SELECT item.* FROM (
            SELECT rowid, rank FROM itemSearch WHERE itemSearch MATCH ? ORDER BY rowid DESC LIMIT ?
          ) AS hit JOIN item ON item.id = hit.rowid
          WHERE NOT item.insideTrash
          ORDER BY hit.rank, item.lastUsed DESC, item.id DESC
          LIMIT ?
          """,
        arguments: [pattern, max(limit, Self.searchCandidates), limit])
      return try Self.indexedItems(db, records)
    }
  }

  /// How many matches are ranked at most. Ranking is bm25 over every match: one letter typed into
  /// a 1,000,000-item index matches them all and took 0.7 s, where ranking the 2,000 most recently
  /// indexed matches takes about 50 ms. A query that matches more is too vague for its order to
  /// matter, and the next letter typed narrows it.
  static let searchCandidates = 2000

  /// A safe FTS5 query from free text: every word of `text`, quoted, as a prefix.
  ///
  /// The words are cut by the index's own tokenizer (unicode61, diacritics removed), so the query
  /// sees exactly the tokens the index holds; quoting each makes FTS5 syntax in user text (`AND`,
  /// `"`, `*`, `:`, `^`, parentheses) plain characters. GRDB's
  /// `FTS5Pattern(matchingAllPrefixesIn:)` cuts words with the ascii tokenizer instead, which keeps
  /// non-ASCII punctuation ("—", "«") inside words.
  ///
  /// - Returns: nil when `text` has no word.
  static func prefixPattern(_ text: String, in db: Database) throws -> String? {
    let tokenizer = try db.makeTokenizer(.unicode61(diacritics: .remove))
    let tokens = try tokenizer.tokenize(query: text)
      .filter { !$0.flags.contains(.colocated) }
      .map(\.token)
    guard !tokens.isEmpty else { return nil }
    return tokens.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }.joined(separator: " ")
  }
}
