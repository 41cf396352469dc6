import PreviewKit
import ProviderAPI

/// Readable renderings of preview lines for the tests: a person can read what the pane would show.
enum Render {
  /// Each run as its text, a token's run as `«token:text»`, SGR colours as `‹fg=…›text‹›`.
  static func tokens(_ lines: [StyledLine]) -> String {
    lines.map { line in
      line.runs.map { run in
        if let token = run.ink.token { return "«\(token.rawValue):\(run.text)»" }
        return run.text
      }.joined()
    }.joined(separator: "\n")
  }

  /// Only the text, line by line.
  static func plain(_ lines: [StyledLine]) -> String { lines.map(\.plainText).joined(separator: "\n") }

  /// Every scalar of every run that a terminal could act on: C0, DEL, C1, bidi and invisible
  /// controls. Empty when the lines are safe to draw.
  static func unsafeScalars(_ lines: [StyledLine]) -> [Unicode.Scalar] {
    lines.flatMap { $0.runs.flatMap { $0.text.unicodeScalars.filter(TerminalText.isUnsafe) } }
  }
}

extension Array where Element == UInt8 {
  init(_ parts: [any ByteParts]) { self = parts.flatMap(\.bytes) }
}

/// A test input written as text and raw bytes side by side.
protocol ByteParts { var bytes: [UInt8] { get } }
extension String: ByteParts { var bytes: [UInt8] { Array(utf8) } }
extension Array: ByteParts where Element == UInt8 { var bytes: [UInt8] { self } }
