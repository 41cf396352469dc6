import PreviewKit
import ProviderAPI
import S3Client
import SFTPClient

/// Every sanitiser between data and the terminal: ProviderAPI's `TerminalText` (names, messages),
/// SFTPClient's and S3Client's own small copies (`DisplayText`, `S3DisplayText`: those modules
/// stay free of the UI's), and the preview pane's `TerminalBytes` state machine.
///
/// Property: no output holds a scalar ``TerminalSafety`` forbids, and a name escaped for display
/// unescapes to its exact bytes (the Rename prompt relies on it).
enum TerminalTextTarget {
  static let target = FuzzTarget(
    name: "terminal-text", summary: "the sanitisers: nothing a terminal obeys gets through; names round-trip",
    dictionary: FuzzDictionary.escapes
  ) { bytes in
    let escaped = TerminalText.escape(bytes: bytes)
    if let v = TerminalSafety.check(escaped, from: "TerminalText.escape(bytes:)") { return v }
    if TerminalText.unescape(escaped) != bytes {
      return FuzzViolation("TerminalText.unescape(escape(bytes:)) is not the bytes: \(escaped)")
    }
    let text = String(decoding: bytes, as: UTF8.self)
    if let v = TerminalSafety.check(TerminalText.escape(text), from: "TerminalText.escape(_:)") { return v }
    if let v = TerminalSafety.check(TerminalText.escapeMessage(text), from: "TerminalText.escapeMessage") { return v }
    if let v = TerminalSafety.check(DisplayText.escape(bytes), from: "SFTPClient DisplayText.escape") { return v }
    if let v = TerminalSafety.check(DisplayText.oneLine(text), from: "SFTPClient DisplayText.oneLine") { return v }
    if let v = TerminalSafety.check(S3DisplayText.escape(bytes), from: "S3DisplayText.escape") { return v }
    if let v = TerminalSafety.check(S3DisplayText.oneLine(text), from: "S3DisplayText.oneLine") { return v }
    let limits = TerminalBytes.Limits(tabWidth: 4, maxColumns: 80, maxLines: 50, maxSequenceLength: 64)
    for line in TerminalBytes.lines(bytes, limits: limits) {
      for run in line.runs {
        if let v = TerminalSafety.check(run.text, from: "PreviewKit TerminalBytes") { return v }
      }
    }
    return nil
  }
}
