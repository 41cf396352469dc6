import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore

/// Open With… (`o`): the command typed, split into words (``ShellWords``: quotes honoured, no
/// shell), with the file's path — a remote file's downloaded copy — appended as its own argument.
extension BrowserApp {
  /// How long a program may run and still count as one that "exits at once" (`file`, `wc`,
  /// `echo`): its output stays on screen until a key. One that ran longer was interactive (an
  /// editor, a pager) and the screen comes back at once, as after Open.
  static let quickProgram = Duration.seconds(2)

  nonisolated static func openWithArgv(_ command: String, path: [UInt8]) throws(ProviderError) -> [[UInt8]] {
    let words: [String]
    do throws(ShellWords.Problem) { words = try ShellWords.split(command) } catch {
      throw ProviderError(.invalidArgument, "Open With: \(error.message)")
    }
    guard let program = words.first else { throw ProviderError(.invalidArgument, "Open With: no command was typed") }
    return [Array(program.utf8)] + words.dropFirst().map { Array($0.utf8) } + OpenerResolver.operand(path)
  }

  /// After an Open With… program: one that failed, or ended within ``quickProgram``, leaves its
  /// output on screen until a key.
  func pauseIfQuick(_ outcome: ProgramRunner.Outcome, since started: ContinuousClock.Instant) async {
    guard !outcome.succeeded || ContinuousClock.now - started < Self.quickProgram else { return }
    let status = outcome.exitStatus.map { $0 == 0 ? "" : "[exit status \($0)] " } ?? "[ended by signal \(outcome.signal ?? 0)] "
    await terminal.waitForKeyWhileSuspended(prompt: "\r\n\(status)Press any key to return to Folio")
  }
}
