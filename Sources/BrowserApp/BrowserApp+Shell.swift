import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore

/// The shell integration's effects (AppState+Shell.swift): a command on the selection, an
/// interactive shell, the system clipboard.
extension BrowserApp {
  /// The user's shell: `$SHELL` when it is set to an absolute path, else `/bin/sh`.
  nonisolated static func userShell(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> [UInt8] {
    if let shell = environment["SHELL"], shell.hasPrefix("/") { return Array(shell.utf8) }
    return Array("/bin/sh".utf8)
  }

  /// The environment of a shell started from Folio: Folio's own, and `FOLIO_LEVEL` one more than
  /// Folio's (ranger's `RANGER_LEVEL`, lf's `LF_LEVEL`): a prompt can show it, and a person can
  /// tell that `exit` goes back to Folio rather than closing the terminal.
  /// `PWD` is the folder it starts in (a shell that finds `PWD` naming another folder ignores it;
  /// one that trusts it would print where Folio was started).
  nonisolated static func shellEnvironment(
    in folder: ItemPath, _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> [String: String] {
    var env = environment
    env["FOLIO_LEVEL"] = String((Int(environment["FOLIO_LEVEL"] ?? "") ?? 0) + 1)
    env["PWD"] = folder.utf8String
    return env
  }

  /// The argv of `!`: `$SHELL -c COMMAND folio PATH…`. The command is the shell's script and
  /// `folio` its `$0`; the paths are `$1…`, `"$@"` — passed as arguments, never spliced into the
  /// command's text, so no name is ever parsed by the shell.
  nonisolated static func shellCommandArgv(_ command: String, arguments: [ItemPath], shell: [UInt8]) -> [[UInt8]] {
    [shell, Array("-c".utf8), Array(command.utf8), Array("folio".utf8)] + arguments.map(\.bytes)
  }

  func performShell(_ effect: Effect) {
    switch effect {
    case .runShellCommand(let command, let arguments, let folder):
      let argv = Self.shellCommandArgv(command, arguments: arguments, shell: Self.userShell())
      runInTerminal(argv, in: folder, pauseAfter: true)
    case .openShell(let folder):
      runInTerminal([Self.userShell()], in: folder, pauseAfter: false)
    case .copyToSystemClipboard(let bytes):
      terminal.copyToSystemClipboard(bytes)
    default:
      break
    }
  }

  /// Hands the terminal to `argv` in `folder`, as for `$EDITOR`, and takes it back after. With
  /// `pauseAfter`, the program's output stays until a key (a command that prints and exits at
  /// once would otherwise flash by). The folder is listed again: the command may have changed it.
  func runInTerminal(_ argv: [[UInt8]], in folder: ItemPath, pauseAfter: Bool) {
    terminal.suspend()
    let environment = Self.shellEnvironment(in: folder)
    Task {
      let outcome: Result<ProgramRunner.Outcome, ProviderError>
      do throws(ProviderError) {
        outcome = .success(try await ProgramRunner.run(argv, environment: environment, currentDirectory: folder))
      } catch {
        outcome = .failure(error)
      }
      if pauseAfter, case .success(let o) = outcome {
        let status = o.exitStatus.map { $0 == 0 ? "" : "[exit status \($0)] " } ?? "[ended by signal \(o.signal ?? 0)] "
        await self.terminal.waitForKeyWhileSuspended(prompt: "\r\n\(status)Press any key to return to Folio")
      }
      self.terminal.resume()
      self.dirty = true
      switch outcome {
      case .success(let o):
        let name = TerminalText.escape(bytes: argv[0])
        // An interactive shell's status is its last command's: noise after `exit`, not news.
        let message: String?
        if o.succeeded || !pauseAfter {
          message = nil
        } else if let status = o.exitStatus {
          message = "\(name) exited with status \(status)"
        } else {
          message = "\(name) was ended by signal \(o.signal ?? 0)"
        }
        self.send(.operationSucceeded(message: message, reload: true, select: nil))
      case .failure(let e):
        self.send(.operationFailed(e))
      }
    }
  }
}
