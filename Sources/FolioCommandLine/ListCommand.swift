import ArgumentParser
import ProviderAPI

/// `folio ls`: ArgumentParser's declaration (help, completions, usage errors). The common command
/// lines skip it: `ListOptions(quickArguments:)` reads them without the reflective parse (issue 13).
struct ListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ls", abstract: "List a folder, a page at a time (huge folders start printing at once).")

  @Argument(help: "The folder (default: the current one), or NAME:/path.") var path: String = "."
  @Option(help: "Sort by name, date (newest first), size (largest first) or kind.") var sort: ItemSort.Key = .name
  @Flag(help: "Reverse the order.") var reverse = false
  @Flag(name: .shortAndLong, help: "Include hidden items (names starting with '.').") var all = false
  @Flag(inversion: .prefixedNo, help: "List folders before files.") var foldersFirst = true
  @Option(parsing: .unconditional, help: "Print at most N items.") var limit: Int?
  @Flag(help: "Print JSON.") var json = false

  func validate() throws {
    if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
  }

  /// What was asked for, as plain values.
  var options: ListOptions {
    ListOptions(path: path, sort: sort, reverse: reverse, all: all, foldersFirst: foldersFirst, limit: limit, json: json)
  }

  func run() async throws { try await options.run() }
}

extension ItemSort.Key: ExpressibleByArgument {}
