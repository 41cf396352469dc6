import ArgumentParser
import Foundation
import ProviderAPI
import WorkingSetIndex

/// Items from the index as the command line prints them (Recents, search).
enum IndexedListing {
  static func print(_ rows: [IndexedItem], json: Bool, context: FolioContext) {
    if json {
      let objects = rows.map { row -> ItemJSON in
        var object = ItemJSON(row.item(), location: row.domain.rawValue)
        object.alwaysHasLastUsed = true
        return object
      }
      Console.out(ItemJSON.encode(objects))
      return
    }
    for row in rows {
      let item = row.item()
      let location = row.domain == .local ? "" : row.domain.rawValue + ":"
      Console.out(
        HumanFormat.date(row.lastUsed) + "  " + HumanFormat.pad(item.contentType.kindDescription, 14) + "  "
          // A deleted item by where it was (its path in the Trash means nothing to a person).
          + location + (row.isTrashed ? item.originalPath ?? item.path : item.path).displayString
          + (item.isFolder ? "/" : "") + (row.isTrashed ? "  (deleted)" : "")
          + HumanFormat.marks(item))
    }
  }
}

struct RecentsCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "recents",
    abstract: "List the working set, most recently used first (from the index: works offline).")

  @Option(help: "Print at most N items.") var limit: Int = 50
  @Option(help: "Only items with this tag.") var tag: String?
  @Flag(help: "Print JSON.") var json = false

  func validate() throws {
    if limit < 0 { throw ValidationError("--limit must be 0 or more") }
  }

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let rows = try context.index.recents(limit: limit, tag: tag)
      IndexedListing.print(rows, json: json, context: context)
    }
  }
}

struct SearchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "search",
    abstract: "Find items of every location by name or tag, from the index.",
    discussion: "Matches word prefixes, case- and accent-insensitively: 'rep' finds 'Quarterly Report.pdf'.")

  @Argument(help: "Words to look for.") var query: [String]
  @Option(help: "Print at most N items.") var limit: Int = 100
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let rows = try context.index.search(query.joined(separator: " "), limit: limit)
      IndexedListing.print(rows, json: json, context: context)
    }
  }
}
