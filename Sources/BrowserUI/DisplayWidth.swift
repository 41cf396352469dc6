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

  /// `s` padded with spaces (or truncated) to exactly `columns`.
  public static func pad(_ s: String, to columns: Int, alignRight: Bool = false) -> String {
    let t = truncate(s, to: columns)
    let fill = String(repeating: " ", count: max(0, columns - width(of: t)))
    return alignRight ? fill + t : t + fill
  }
}
