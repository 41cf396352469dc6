import BrowserUI
import Foundation
import ProviderAPI

/// How the command line shows items to a person. Every name and path goes through
/// ``TerminalText`` (escaped control characters, bidi controls and invalid bytes); the name comes
/// last on a line so that wide characters never break the alignment of the other columns.
enum HumanFormat {
  static func size(_ bytes: Int64?) -> String {
    guard let b = bytes else { return "-" }
    if b < 1000 { return "\(b) B" }
    let units = ["kB", "MB", "GB", "TB", "PB"]
    var v = Double(b) / 1000
    var i = 0
    while v >= 1000 && i < units.count - 1 {
      v /= 1000
      i += 1
    }
    return v < 10 ? String(format: "%.1f %@", v, units[i]) : String(format: "%.0f %@", v, units[i])
  }

  /// "2026-11-22 14:03" in local time, the browser's own date text: a `DateFormatter` made ICU
  /// build a date format (locale data, calendar, time-zone bundles) on every `folio ls`, a tenth
  /// of a small folder's instructions (docs/BENCHMARKS.md, issue 13, fourth pass).
  static func date(_ d: Date?) -> String { DateText.listed(d, nil) }

  static func pad(_ s: String, _ width: Int, right: Bool = false) -> String {
    let n = s.count
    if n >= width { return s }
    let fill = String(repeating: " ", count: width - n)
    return right ? fill + s : s + fill
  }

  /// The name as listed: escaped, with "/" after folders and "@" after symlinks, as `ls -F` does.
  static func listedName(_ item: Item) -> String {
    var s = item.filename.displayString
    if item.isFolder { s += "/" } else if item.isSymlink { s += "@" }
    return s
  }

  /// "★ [Red, work]" for favorites and tags.
  static func marks(_ item: Item) -> String {
    var parts: [String] = []
    if item.isFavorite { parts.append("★") }
    if !item.tags.isEmpty { parts.append("[" + item.tags.map(TerminalText.escape).joined(separator: ", ") + "]") }
    return parts.isEmpty ? "" : "  " + parts.joined(separator: " ")
  }

  /// One line of `folio ls`: size, modified, kind, name, marks. An item listed by name only (its
  /// details could not be read) shows `?` for what is unknown, as `ls -l` does.
  static func line(_ item: Item) -> String {
    if item.metadataError != nil {
      return pad("?", 8, right: true) + "  " + pad("?", 16) + "  " + pad(item.contentType.kindDescription, 14) + "  "
        + listedName(item)
    }
    return pad(size(item.documentSize), 8, right: true) + "  " + date(item.contentModificationDate) + "  "
      + pad(item.contentType.kindDescription, 14) + "  " + listedName(item) + marks(item)
  }
}
