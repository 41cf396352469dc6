import ProviderCore
import ArgumentParser
import ProviderAPI

struct TagCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "tag",
    abstract: "List, add or remove an item's tags.",
    discussion: """
      Tags are stored in the user.xdg.tags extended attribute, which other tools read too; on a \
      filesystem without user xattrs they are kept in Folio's index. On Nextcloud they are the \
      account's system tags, which its Files app shows. Finder colors are tags named Red, Orange, \
      Yellow, Green, Blue, Purple and Gray.
      """)

  @Argument(help: "The item: a path or NAME:/path.") var item: String
  @Option(name: .customLong("add"), help: "Add a tag (repeatable).") var add: [String] = []
  @Option(name: .customLong("remove"), help: "Remove a tag (repeatable).") var remove: [String] = []
  @Flag(help: "Print JSON.") var json = false

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let (domain, it) = try await context.resolve(item)
      var tags = it.tags
      if !add.isEmpty || !remove.isEmpty {
        // Tags are one whatever their case: --remove green removes "Green".
        for t in remove {
          guard tags.contains(where: { TagName.same($0, t) }) else {
            throw ProviderError(.noSuchItem, "\(it.filename.displayString) has no tag '\(TerminalText.escape(t))'")
          }
          tags.removeAll { TagName.same($0, t) }
        }
        for t in add where !tags.contains(where: { TagName.same($0, t) }) { tags.append(t) }
        tags = try await context.items.setTags(tags, of: it, in: domain).tags
      }
      if json {
        Console.out(ItemJSON.encode(tags))
      } else {
        for t in tags { Console.out(TerminalText.escape(t)) }
      }
    }
  }
}

struct FavoriteCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "favorite", abstract: "Add an item to Favorites (or remove it with --off).")

  @Argument(help: "The item: a path or NAME:/path.") var item: String
  @Flag(help: "Remove it from Favorites.") var off = false

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let (domain, it) = try await context.resolve(item)
      _ = try await context.items.setFavorite(!off, item: it, in: domain)
    }
  }
}
