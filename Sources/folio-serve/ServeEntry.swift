import ArgumentParser
import Foundation
import ProviderAPI

/// The root of `folio-serve`: named `folio`, with `serve` its one subcommand, so that the usage
/// and help it prints read `folio serve …` as they did when the server was a part of `folio`.
struct ServeEntry: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "folio",
    abstract: "The FolioServer of folio serve (run as folio serve …).",
    subcommands: [ServeCommand.self],
    defaultSubcommand: ServeCommand.self)

  /// Parses and runs, exiting with Folio's codes: 2 for a usage error, one sanitized line, as
  /// `folio` itself does (FolioCommand.finish).
  static func start() async {
    do {
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

  private static func finish(with error: any Error) -> Never {
    let code = exitCode(for: error)
    if code == .validationFailure {
      var text = message(for: error).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }.joined(separator: " ")
      if text.hasPrefix("Error: ") { text.removeFirst("Error: ".count) }
      // Folio's messages start in lower case; keep "URL" or "HOME" as they are.
      if let first = text.first, first.isUppercase, text.dropFirst().first?.isLowercase == true {
        text = first.lowercased() + text.dropFirst()
      }
      if text.isEmpty { text = "invalid arguments" }
      Console.err(TerminalText.escape(text) + " (see 'folio serve --help')")
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
}
