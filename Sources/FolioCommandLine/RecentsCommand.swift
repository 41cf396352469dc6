import ArgumentParser
import Foundation
import ProviderAPI
import ProviderCore
import WorkingSetIndex

/// Items from the index as the command line prints them (Recents, search).
///
/// An entry of this computer is checked first, without writing anything (these commands only
/// read): one found elsewhere is printed where it is now, one that is gone is marked `(missing)`
/// without the tags the index still holds for it — a new file at its old path is not it.
enum IndexedListing {
  static func print(_ rows: [IndexedItem], json: Bool, context: FolioContext) async {
    var checked: [(row: IndexedItem, item: Item, missing: Bool)] = []
    for row in rows {
      var item = row.item()
      var missing = false
      if !row.isTrashed, let domain = context.registry.domain(row.domain), domain.hasDirectContent {
        switch try? await context.items.resolve(item, in: domain, recordingMoves: false) {
        case .moved(let fresh, _)?:
          item.path = fresh.path
          item.filename = fresh.filename
        case .gone?:
          missing = true
          item.tags = []
        default: break
        }
      }
      checked.append((row, item, missing))
    }
    if json {
      let objects = checked.map { c -> ItemJSON in
        var object = ItemJSON(c.item, location: c.row.domain.rawValue)
        object.alwaysHasLastUsed = true
        if c.missing { object.missing = true }
        return object
      }
      Console.out(ItemJSON.encode(objects))
      return
    }
    for (row, item, missing) in checked {
      let location = row.domain == .local ? "" : row.domain.rawValue + ":"
      Console.out(
        HumanFormat.date(row.lastUsed) + "  " + HumanFormat.pad(item.contentType.kindDescription, 14) + "  "
          // A deleted item by where it was (its path in the Trash means nothing to a person).
          + location + (row.isTrashed ? item.originalPath ?? item.path : item.path).displayString
          + (item.isFolder ? "/" : "") + (row.isTrashed ? "  (deleted)" : missing ? "  (missing)" : "")
          + HumanFormat.marks(item))
    }
  }
}

struct RecentsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "recents",
    abstract: "List the working set, most recently used first (from the index: works offline).")

  @Option(parsing: .unconditional, help: "Print at most N items.") var limit: Int = 50
  @Option(help: "Only items with this tag.") var tag: String?
  @Flag(help: "Print JSON.") var json = false

  func validate() throws {
    if limit < 0 { throw ValidationError("--limit must be 0 or more") }
  }

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make(readOnly: true)
      let rows = try context.index.recents(limit: limit, tag: tag)
      await IndexedListing.print(rows, json: json, context: context)
    }
  }
}

struct SearchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search",
    abstract: "Find items of every location by name or tag, from the index.",
    discussion: "Matches word prefixes, case- and accent-insensitively: 'rep' finds 'Quarterly Report.pdf'.")

  @Argument(help: "Words to look for.") var query: [String]
  @Option(parsing: .unconditional, help: "Print at most N items.") var limit: Int = 100
  @Flag(help: "Print JSON.") var json = false

  /// An empty query would match nothing and exit 0, which a script cannot tell from "no match".
  func validate() throws {
    if limit < 0 { throw ValidationError("--limit must be 0 or more") }
    if query.allSatisfy({ $0.allSatisfy(\.isWhitespace) }) { throw ValidationError("the query is empty: give words to look for") }
  }

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make(readOnly: true)
      let rows = try context.index.search(query.joined(separator: " "), limit: limit)
      await IndexedListing.print(rows, json: json, context: context)
    }
  }
}
