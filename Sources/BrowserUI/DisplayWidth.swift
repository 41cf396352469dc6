import CFolioSystem

/// Terminal column widths, from wcwidth, per grapheme cluster.
///
/// A cluster is as wide as its widest scalar, at most 2: an emoji ZWJ sequence or a flag is drawn
/// as one wide glyph by terminals that join them and tmux. Emoji with a text default presentation
/// (U+1F5C2) count as glibc counts them. Call `DisplayWidth.setUp()` once (it sets LC_CTYPE to a
/// UTF-8 locale) before asking for widths of non-ASCII text.
public enum DisplayWidth {
  /// Sets a UTF-8 LC_CTYPE for wcwidth. Returns true when the user's own locale was UTF-8.
  @discardableResult
  public static func setUp() -> Bool { folio_setup_utf8_ctype() == 1 }

  public static func width(of ch: Character) -> Int {
    var w = 0
    for s in ch.unicodeScalars {
      let v = s.value
      if v < 0x7F {
        w = max(w, v >= 0x20 ? 1 : 0)
        continue
      }
      let c = Int(folio_wcwidth(v))
      if c > w { w = c }
      if s.properties.isEmojiPresentation { w = 2 }
    }
    return min(w, 2)
  }

  public static func width(of s: String) -> Int { s.reduce(0) { $0 + width(of: $1) } }

  /// The longest prefix of `s` that fits in `columns`, with `ellipsis` when something was cut.
  public static func truncate(_ s: String, to columns: Int, ellipsis: String = "…") -> String {
    guard columns > 0 else { return "" }
    if width(of: s) <= columns { return s }
    let ew = width(of: ellipsis)
    if columns == ew { return ellipsis }
    guard columns > ew else { return String(repeating: ".", count: columns) }
    var out = ""
    var used = 0
    for ch in s {
      let w = width(of: ch)
      if used + w > columns - ew { break }
      out.append(ch)
      used += w
    }
    return out + ellipsis
  }

  /// A path cut to `columns` from its start, keeping its end: `…/Projects/alpha`. The folder a
  /// path names is its last component, the one a person looks for; cutting the end (as
  /// `truncate` does) hid it. Whole components are kept where they fit; a last component wider
  /// than the room left keeps its beginning instead (`…/a-very-long-na…`).
  public static func tail(ofPath path: String, to columns: Int, ellipsis: String = "…") -> String {
    guard columns > 0 else { return "" }
    if width(of: path) <= columns { return path }
    let components = path.split(separator: "/")
    var kept = ""
    var used = width(of: ellipsis)
    for component in components.reversed() {
      let piece = "/" + component
      let w = width(of: String(piece))
      if used + w > columns { break }
      kept = piece + kept
      used += w
    }
    if kept.isEmpty, let last = components.last {
      // Not even the last name fits whole: its beginning, after the ellipsis and the slash.
      let room = columns - width(of: ellipsis) - 1
      guard room > 0 else { return truncate(String(last), to: columns, ellipsis: ellipsis) }
      return ellipsis + "/" + truncate(String(last), to: room, ellipsis: ellipsis)
    }
    return ellipsis + kept
  }

  /// `s` in lines of at most `columns`, broken at spaces where it can be and inside a word (never
  /// inside a character) where a word is longer than a line.
  public static func wrap(_ s: String, to columns: Int) -> [String] {
    guard columns > 0 else { return [] }
    var lines: [String] = []
    var line = ""
    var used = 0
    for word in s.split(separator: " ", omittingEmptySubsequences: true) {
      var rest = Substring(word)
      let w = width(of: String(rest))
      if used > 0 && used + 1 + w <= columns {
        line += " " + rest
        used += 1 + w
        continue
      }
      if used > 0 {
        lines.append(line)
        line = ""
        used = 0
      }
      // A word longer than a line is cut where the line is full.
      while width(of: String(rest)) > columns {
        var head = ""
        var hw = 0
        while let ch = rest.first, hw + width(of: ch) <= columns {
          head.append(ch)
          hw += width(of: ch)
          rest.removeFirst()
        }
        if head.isEmpty, let ch = rest.first {  // a character wider than the line
          head.append(ch)
          rest.removeFirst()
        }
        lines.append(head)
      }
      line = String(rest)
      used = width(of: line)
    }
    if used > 0 || lines.isEmpty { lines.append(line) }
    return lines
  }

  /// `s` padded with spaces (or truncated) to exactly `columns`.
  public static func pad(_ s: String, to columns: Int, alignRight: Bool = false) -> String {
    let t = truncate(s, to: columns)
    let fill = String(repeating: " ", count: max(0, columns - width(of: t)))
    return alignRight ? fill + t : t + fill
  }
}
