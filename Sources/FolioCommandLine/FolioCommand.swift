import ArgumentParser
import FolioBuildInfo
import Foundation
import ProviderAPI
import SFTPClient

/// `folio`: a Files app for the terminal. The subcommands are the command-line services: the same
/// engine and index the terminal UI uses, for scripts and quick jobs.
public struct FolioCommand: AsyncParsableCommand {
  public static let configuration = CommandConfiguration(
    commandName: "folio",
    abstract: "A Files app for the terminal: browse, tag, find and organize files.",
    discussion: """
      A plain PATH is a local path; NAME:/path names an item in a configured location \
      (write ./a:b for a local file whose name contains a colon).

      Config: $XDG_CONFIG_HOME/folio/config.toml
      Index:  $XDG_DATA_HOME/folio/index.sqlite
      Exit status: 0 success, 1 the operation failed, 2 usage error, 3 bad config or rule, \
      75 saved and queued to be sent later (put, open, sync: offline, signed out, out of quota).
      """,
    version: BuildInfo.versionLine,
    subcommands: [
      BrowseCommand.self, ListCommand.self, InfoCommand.self, OpenCommand.self, RecentsCommand.self, SearchCommand.self,
      TagCommand.self, FavoriteCommand.self, RenameCommand.self, MoveCommand.self, CopyCommand.self,
      MakeFolderCommand.self, RemoveCommand.self, TrashCommand.self, ActionsCommand.self, ActionCommand.self, ServeCommand.self, DomainCommand.self, DemoCommand.self,
      GetCommand.self, PutCommand.self, SyncCommand.self, PinCommand.self, EvictCommand.self, ConflictsCommand.self,
      ResolveCommand.self, HelpKeysCommand.self, ExtCommand.self,
    ],
    defaultSubcommand: BrowseCommand.self)

  public init() {}
}

extension FolioCommand {
  /// The executable's entry point.
  ///
  /// ArgumentParser's own `main()` exits with 64 (`EX_USAGE`) on a usage error; Folio documents 2,
  /// as most command-line tools use, so the parse and the exit are spelled out here.
  public static func start() async {
    // Run by ssh as its SSH_ASKPASS (an SFTP location's prompts): relay the prompt to the Folio
    // process that started ssh, whose own prompt asks the person; print the answer for ssh.
    // getenv first: Foundation builds the whole environment as a dictionary at each read of
    // `environment` (~0.7 M instructions), for a check that is false at every other launch.
    if let mode = getenv(AskpassWire.modeVariable), String(cString: mode) == "1", getenv(AskpassWire.socketVariable) != nil {
      Foundation.exit(AskpassHelper.run(arguments: RawArguments.raw, environment: ProcessInfo.processInfo.environment))
    }
    do {
      // `folio` alone opens the browser with every option at its default: nothing to parse, and
      // ArgumentParser's parse of the command tree (each new type a conformance lookup over the
      // whole binary) was ~19 M instructions of the launch (issue 13, docs/BENCHMARKS.md).
      if CommandLine.arguments.count <= 1 {
        try await BrowseOptions().browse(hints: [:])
        return
      }
      // `folio ls` with the plain options: the same, without ArgumentParser (`ListOptions`).
      let arguments = CommandLine.arguments
      // `folio serve …` is the server's own executable, help and usage errors included.
      if arguments[1] == "serve" { ServeExecutable.exec(Array(arguments.dropFirst(2))) }
      if arguments.count > 1, arguments[1] == "ls", let options = ListOptions(quickArguments: arguments.dropFirst(2)) {
        try await options.run()
        return
      }
      var command = try parseAsRoot()
      if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
    } catch {
      finish(with: error)
    }
  }

  /// Prints what ArgumentParser would print for `error` (help on stdout) and exits with Folio's
  /// code for it; a usage error is one line, `folio: …` and where the help is, as every other error.
  ///
  /// A usage error quotes the argument it rejects, and that argument may be a file name from a
  /// glob (`folio info *` with a file named `-\e]0;…`): each line goes through the sanitiser.
  private static func finish(with error: any Error) -> Never {
    let code = exitCode(for: error)
    if code == .validationFailure {
      FileHandle.standardError.write(Data((usageLine(for: error) + "\n").utf8))
      Foundation.exit(2)
    }
    var message = fullMessage(for: error)
    if code != .success {
      message = message.split(separator: "\n", omittingEmptySubsequences: false)
        .map { TerminalText.escape(String($0)) }.joined(separator: "\n")
    }
    if !message.isEmpty {
      let handle = code == .success ? FileHandle.standardOutput : FileHandle.standardError
      handle.write(Data((message + "\n").utf8))
    }
    Foundation.exit(code.rawValue)
  }

  /// `folio: missing expected argument '<item>' (see 'folio trash --help')`: ArgumentParser's
  /// message without its "Error: " prefix, usage block and help excerpt, on one line.
  static func usageLine(for error: any Error) -> String {
    var text = message(for: error).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }.joined(separator: " ")
    if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
    // Folio's messages start in lower case; keep "URL" or "HOME" as they are.
    if let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase == true {
      text = first.lowercased() + text.dropFirst()
    }
    if text.isEmpty { text = "invalid arguments" }
    // ArgumentParser's usage block ends with "  See 'folio ls --help' for more information.".
    var help = "folio --help"
    if let line = fullMessage(for: error).split(separator: "\n").last(where: { $0.contains("See '") }),
      let start = line.range(of: "See '"), let end = line[start.upperBound...].firstIndex(of: "'")
    {
      help = String(line[start.upperBound..<end])
    }
    return "folio: " + TerminalText.escape(text) + " (see '" + TerminalText.escape(help) + "')"
  }
}
