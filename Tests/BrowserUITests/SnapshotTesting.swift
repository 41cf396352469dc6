import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// Screen snapshots in the style of swift-argument-parser's golden files.
///
/// A snapshot is `Tests/BrowserUITests/Snapshots/<name>.txt`: the text lines of the screen, a
/// separator line, then the style lines (runs of roles). A missing snapshot, or any snapshot when
/// `RECORD_SNAPSHOTS=1`, is written and the test FAILS saying so, so a person reads the new file
/// before it becomes the reference.
enum Snapshots {
  static let separator = "---- style ----"

  /// The folder next to this file, found from its path so tests run from any directory.
  static let directory: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Snapshots", isDirectory: true)

  static var recording: Bool { ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" }

  /// wcwidth needs a UTF-8 LC_CTYPE; set it once, before the first render.
  static let setUp: Void = { DisplayWidth.setUp() }()

  static func text(of screen: Screen) -> String {
    (screen.textLines() + [separator] + screen.styleLines()).joined(separator: "\n") + "\n"
  }
}

/// Renders nothing itself: compares `screen` with the snapshot `name`, after checking the screen
/// is well formed (see ``screenProblems(_:)``).
func assertSnapshot(
  _ screen: Screen, named name: String, sourceLocation: SourceLocation = #_sourceLocation
) {
  for problem in screenProblems(screen) {
    Issue.record("\(name): \(problem)", sourceLocation: sourceLocation)
  }
  let url = Snapshots.directory.appendingPathComponent(name + ".txt")
  let actual = Snapshots.text(of: screen)
  let existing = try? String(contentsOf: url, encoding: .utf8)
  if Snapshots.recording || existing == nil {
    do {
      try FileManager.default.createDirectory(at: Snapshots.directory, withIntermediateDirectories: true)
      try actual.write(to: url, atomically: true, encoding: .utf8)
      Issue.record(
        "Recorded snapshot \(name).txt\(existing == nil ? " (it was missing)" : ""): review it, then run again without RECORD_SNAPSHOTS",
        sourceLocation: sourceLocation)
    } catch {
      Issue.record("Could not record snapshot \(name).txt: \(error)", sourceLocation: sourceLocation)
    }
    return
  }
  guard let existing, existing != actual else { return }
  let want = existing.components(separatedBy: "\n")
  let got = actual.components(separatedBy: "\n")
  var report: [String] = []
  for i in 0..<max(want.count, got.count) where want[safe: i] != got[safe: i] {
    report.append("line \(i + 1):\n  expected: \(want[safe: i] ?? "<none>")\n  actual:   \(got[safe: i] ?? "<none>")")
    if report.count == 6 { break }
  }
  let details = report.joined(separator: "\n")
  Issue.record(
    "Snapshot \(name).txt differs (RECORD_SNAPSHOTS=1 re-records it):\n\(details)", sourceLocation: sourceLocation)
}

/// Renders `state` and compares it with the snapshot `name`.
func assertSnapshot(of state: AppState, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
  _ = Snapshots.setUp
  assertSnapshot(AppView.render(state), named: name, sourceLocation: sourceLocation)
}

/// What is wrong with a screen, whatever it shows:
/// - no scalar that must never reach a terminal raw (C0, DEL, C1, bidi controls) in any cell;
/// - every wide cell followed by its continuation, and no continuation without its wide cell
///   (a character split by a later draw);
/// - every row exactly `width` columns wide when drawn (nothing shifts what follows).
func screenProblems(_ screen: Screen) -> [String] {
  var problems: [String] = []
  for y in 0..<screen.height {
    for x in 0..<screen.width {
      let cell = screen[x, y]
      if let bad = cell.text.unicodeScalars.first(where: isForbidden) {
        problems.append("raw U+\(String(bad.value, radix: 16, uppercase: true)) at \(x),\(y)")
      }
      if cell.width == 2 && (x + 1 >= screen.width || !screen[x + 1, y].isContinuation) {
        problems.append("wide cell at \(x),\(y) without its continuation")
      }
      if cell.isContinuation && (x == 0 || screen[x - 1, y].width != 2) {
        problems.append("continuation at \(x),\(y) without its wide cell")
      }
      if !cell.isContinuation && cell.text.isEmpty {
        problems.append("empty cell at \(x),\(y)")
      }
      if !cell.isContinuation, DisplayWidth.width(of: cell.text) != Int(cell.width) {
        problems.append(
          "cell at \(x),\(y) says width \(cell.width) but \(cell.text.debugDescription) is \(DisplayWidth.width(of: cell.text)) wide")
      }
    }
  }
  for (y, line) in screen.textLines().enumerated() {
    if line.unicodeScalars.contains(where: isForbidden) { problems.append("raw control in text line \(y)") }
    let w = DisplayWidth.width(of: line)
    if w != screen.width { problems.append("text line \(y) is \(w) columns wide, not \(screen.width)") }
  }
  return problems
}

/// C0 controls, DEL, C1 controls, bidi embeddings/overrides/isolates/marks, line separators.
func isForbidden(_ s: Unicode.Scalar) -> Bool {
  TerminalText.isUnsafe(s)
}
