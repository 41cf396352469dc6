import ArgumentParser
import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// How every command reports: data on stdout, one clear line per error on stderr, and an exit
/// code a script can test (1: the operation failed, 2: usage, 3: bad config or rule, 4: edits kept
/// as a conflict copy, 75: not done yet but nothing lost — see ``queuedExitCode``).
enum Console {
  /// The work is saved and journaled but could not be sent (offline, signed out, out of quota):
  /// `folio sync` or the browser finishes it. `EX_TEMPFAIL` of sysexits.h, so that a script can
  /// tell "try again later" from "failed" without reading the message.
  static let queuedExitCode: Int32 = 75
  /// `folio open`: the edits reached the server, which kept them as a conflict copy beside a
  /// newer version: done, but not as the person expects, so a script can tell.
  static let conflictExitCode: Int32 = 4

  static func out(_ line: String) {
    write(1, line + "\n")
  }

  static func err(_ line: String) {
    write(2, "folio: " + line + "\n")
  }

  /// Writes all of `text` to a descriptor. A reader that went away (`folio ls | head`) ends the
  /// command quietly with 141, as a tool killed by SIGPIPE does: Foundation's `FileHandle.write`
  /// trapped on EPIPE and printed a crash report over the person's terminal.
  private static func write(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    var done = 0
    while done < bytes.count {
      let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
      if n < 0 {
        if errno == EINTR { continue }
        if errno == EPIPE { exit(141) }
        return  // another failure of a standard stream (a full disk): nothing better to do than go on
      }
      done += n
    }
  }

  static var stdoutIsTerminal: Bool { isatty(1) == 1 }
  static var stderrIsTerminal: Bool { isatty(2) == 1 }
  static var stdinIsTerminal: Bool { isatty(0) == 1 }

  /// Asks a yes/no question on the terminal; false when not interactive.
  static func confirm(_ question: String) -> Bool {
    guard stdinIsTerminal else { return false }
    FileHandle.standardError.write(Data((question + " [y/N] ").utf8))
    guard let answer = readLine() else { return false }
    return ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
  }

  static func exitCode(for error: ProviderError) -> Int32 {
    switch error.code {
    case .badConfig, .badRule: return 3
    default: return 1
    }
  }
}

/// Runs a command body, turning a ProviderError into one line on stderr and an exit code.
func runReporting(_ body: () async throws(ProviderError) -> Void) async throws {
  do {
    try await body()
  } catch {
    Console.err(error.message)
    throw ExitCode(Console.exitCode(for: error))
  }
}

/// Reports the failures of a command that works on several items, so that the person sees one
/// line per item that failed and the command still exits 1.
///
/// With one item, its error is the whole story: it is thrown as is at the end rather than printed
/// and followed by a summary, so that a failed `folio mv a dest` prints one line, not two.
struct FailureTally {
  private let total: Int
  private var errors: [ProviderError] = []
  private var queuedOnly = true

  init(total: Int) { self.total = total }

  mutating func report(_ error: ProviderError) {
    if total > 1 { Console.err(error.message) }
    errors.append(error)
    queuedOnly = false
  }

  /// A failure that loses nothing: the work is journaled and `folio sync` finishes it.
  mutating func reportQueued(_ error: ProviderError) {
    if total > 1 { Console.err(error.message) }
    errors.append(error)
  }

  /// Something failed, and all of it is queued work (exit 75 rather than 1).
  var isOnlyQueued: Bool { !errors.isEmpty && queuedOnly }

  /// Prints what ``finish(_:)`` would throw (for a command that exits with its own code).
  func say(_ summary: @autoclosure () -> String) {
    guard let first = errors.first else { return }
    Console.err(total == 1 ? first.message : summary())
  }

  var isEmpty: Bool { errors.isEmpty }

  /// Throws the single item's error, or `summary` when some of several items failed.
  func finish(_ summary: @autoclosure () -> String) throws(ProviderError) {
    guard let first = errors.first else { return }
    if total == 1 { throw first }
    throw ProviderError(.ioError, summary())
  }
}
