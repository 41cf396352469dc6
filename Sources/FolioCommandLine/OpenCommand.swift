import ArgumentParser
import ProviderAPI
import ProviderCore

struct OpenCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "open",
    abstract: "Open an item with its opener and add it to Recents.",
    discussion: """
      The opener is the first [[opener]] in config.toml matching the item's extension or type;
      otherwise $VISUAL/$EDITOR for text, $PAGER, then xdg-open. It runs with an argv, never a shell.
      """)

  @Argument(help: "The item: a path or NAME:/path.") var item: String

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let (domain, it) = try await context.resolve(item)
      // An opener gets a local path; a server location's item has none until it is downloaded.
      guard domain.isLocal else {
        throw ProviderError(
          .featureUnsupported, "'\(domain.identifier)' is a server location: its files open once downloaded")
      }
      let argv = try context.openers.argv(for: it)
      let outcome = try await ProgramRunner.run(argv)
      // Started is enough to count as used: the person asked for the item.
      try context.items.recordOpen(it, in: domain)
      if !outcome.succeeded {
        let program = TerminalText.escape(bytes: argv[0])
        if let s = outcome.exitStatus {
          throw ProviderError(.ioError, "\(program) exited with status \(s)")
        }
        throw ProviderError(.ioError, "\(program) was stopped by signal \(outcome.signal ?? 0)")
      }
    }
  }
}
