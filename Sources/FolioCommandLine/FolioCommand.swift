import ArgumentParser

/// `folio`: a Files app for the terminal. The subcommands are the command-line services: the same
/// engine and index the terminal UI uses, for scripts and quick jobs.
public struct FolioCommand: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "folio",
    abstract: "A Files app for the terminal: browse, tag, find and organize files.",
    discussion: """
      A plain PATH is a local path; NAME:/path names an item in a configured location
      (write ./a:b for a local file whose name contains a colon).
      Config: $XDG_CONFIG_HOME/folio/config.toml   Index: $XDG_DATA_HOME/folio/index.sqlite
      Exit status: 0 success, 1 the operation failed, 2 usage error, 3 bad config or rule.
      """,
    version: "0.1.0",
    subcommands: [
      ListCommand.self, InfoCommand.self, OpenCommand.self, RecentsCommand.self, SearchCommand.self,
      TagCommand.self, FavoriteCommand.self, RenameCommand.self, MoveCommand.self, CopyCommand.self,
      MakeFolderCommand.self, RemoveCommand.self, TrashCommand.self, ActionsCommand.self, ActionCommand.self,
    ])

  public init() {}
}

extension FolioCommand {
  /// The executable's entry point.
  public static func start() async { await main() }
}
