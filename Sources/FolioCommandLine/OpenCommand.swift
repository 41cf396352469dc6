import ArgumentParser
import ProviderAPI
import ProviderCore

struct OpenCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "open",
    abstract: "Open an item with its opener and add it to Recents.",
    discussion: """
      The opener is the first [[opener]] in config.toml matching the item's extension or type; \
      otherwise $VISUAL/$EDITOR for text, $PAGER, then xdg-open. It runs with an argv, never a shell.

      A file of a server location is downloaded first, and the opener gets it under its own name \
      (in a folder of its own), so an editor picks the file type from it. Its edits are uploaded \
      when the opener returns, also when the editor saved by renaming a new file over the old.

      Exit status: 0 opened (and edits uploaded); 1 failed; 75 the edits are saved here and \
      queued for `folio sync` (the server could not be reached); 4 the edits were uploaded but \
      the server had a newer version (or had deleted the item): they were kept as a conflict \
      copy, named on stderr (`folio conflicts` lists it, `folio resolve` settles it).
      """)

  @Argument(help: "The item: a path or NAME:/path.") var item: String

  func run() async throws {
    var exitStatus: Int32 = 0
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let (domain, it) = try await context.resolve(item, offline: true)
      // An opener gets a local path: a server location's file is downloaded first (or its cached
      // copy used), the opener gets that copy, and its edits are uploaded when it returns.
      // A broken link, a loop of links, a FIFO or a device: say why instead of starting an opener
      // that fails or waits forever.
      if domain.hasDirectContent, let refusal = OpenCheck.refusal(for: it, withProgram: false) { throw refusal }
      let remote = domain.hasDirectContent ? nil : try await RemoteOpen.materialize(it, in: domain, context: context)
      let argv = try context.openers.argv(for: remote?.local ?? it)
      let outcome = try await ProgramRunner.run(argv)
      // Only what was opened belongs in Recents: an opener that failed did not open it.
      if outcome.succeeded { try context.items.recordOpen(it, in: domain) }
      switch try await remote?.finish() {
      case .queued(let line)?:
        Console.err(line)
        exitStatus = Console.queuedExitCode
      case .conflict(let line)?:
        Console.err(line)
        exitStatus = Console.conflictExitCode
      case nil: break
      }
      if !outcome.succeeded {
        let program = TerminalText.escape(bytes: argv[0])
        if let s = outcome.exitStatus {
          throw ProviderError(.ioError, "\(program) exited with status \(s)")
        }
        throw ProviderError(.ioError, "\(program) was stopped by signal \(outcome.signal ?? 0)")
      }
    }
    if exitStatus != 0 { throw ExitCode(exitStatus) }
  }
}
