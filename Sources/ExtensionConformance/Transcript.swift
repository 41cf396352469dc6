import Foundation
import ProviderAPI

/// What was sent and what came back during one check: printed when the check fails, and line by
/// line as it happens with `--trace`.
///
/// Values of settings that `describe` marks `secret` are replaced before a line is kept or
/// printed, as the host redacts them in its logs (docs/EXTENSIONS.md §3).
public final class Transcript: @unchecked Sendable {
  private let lock = NSLock()
  private var lines: [String] = []
  private var dropped = 0
  private var secrets: [String] = []
  private let trace: (@Sendable (String) -> Void)?

  /// Lines kept per check; a paging check sends hundreds, and the end is what explains a failure.
  static let keep = 120
  /// Characters kept of one line (a page of 250 items is long).
  static let width = 600

  public init(trace: (@Sendable (String) -> Void)?) { self.trace = trace }

  func addSecret(_ value: String) {
    guard !value.isEmpty else { return }
    lock.lock()
    secrets.append(value)
    lock.unlock()
  }

  /// Records one line: `direction` is "->" (sent), "<-" (stdout), "!!" (what the kit observed).
  func record(_ direction: String, _ text: String) {
    lock.lock()
    var line = text
    for secret in secrets { line = line.replacingOccurrences(of: secret, with: "«redacted»") }
    line = TerminalText.escape(line)
    // The head says what it is, the tail how it ends (`"nextPage":…`, `"moreComing":…`).
    if line.count > Self.width {
      line = String(line.prefix(Self.width - 200)) + " … (\(text.utf8.count) bytes) … " + String(line.suffix(200))
    }
    line = direction + " " + line
    lines.append(line)
    if lines.count > Self.keep {
      lines.removeFirst()
      dropped += 1
    }
    lock.unlock()
    trace?(line)
  }

  /// Starts a new check's transcript.
  func reset() {
    lock.lock()
    lines.removeAll()
    dropped = 0
    lock.unlock()
  }

  var text: [String] {
    lock.lock()
    defer { lock.unlock() }
    return (dropped > 0 ? ["   (\(dropped) earlier lines not kept)"] : []) + lines
  }
}
