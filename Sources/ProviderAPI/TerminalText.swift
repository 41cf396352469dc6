/// The one sanitiser between data (names, server messages) and a terminal.
///
/// Everything a file name or a server says passes through here before it is printed or drawn.
/// Escapes are visible and reversible, in the style of C and `ls -b`:
/// - C0 controls and DEL: `\n`, `\t`, `\r`, `\e` or `\xNN`;
/// - C1 controls (U+0080–U+009F) and bidi / invisible format controls: `\u{NNNN}`;
/// - invisible characters that would make two different names look the same: zero-width space
///   U+200B, word joiner U+2060, byte-order mark U+FEFF, soft hyphen U+00AD, the invisible
///   operators U+2061–U+2064, U+180E and the interlinear annotation marks U+FFF9–U+FFFB —
///   `\u{NNNN}`; the zero-width (non-)joiners U+200D and U+200C only where they join nothing (not
///   between two visible non-ASCII characters), so emoji sequences and Persian or Indic words stay
///   intact;
/// - bytes that are not valid UTF-8: `\xNN`;
/// - a backslash itself: `\\`, so that an escaped name cannot be confused with a real one.
public enum TerminalText {
  /// Escapes a byte string (a name or a path) for display.
  public static func escape(bytes: [UInt8]) -> String {
    var out = ""
    out.reserveCapacity(bytes.count)
    var i = 0
    let n = bytes.count
    // Whether what was written last is a visible character a joiner may join.
    var previousJoins = false
    while i < n {
      let b = bytes[i]
      if b < 0x80 {
        appendASCII(b, to: &out)
        previousJoins = false
        i += 1
        continue
      }
      let len = sequenceLength(bytes, at: i)
      guard len > 0, let s = scalar(bytes, at: i, length: len) else {
        out += hexByte(b)
        previousJoins = false
        i += 1
        continue
      }
      let next = i + len < n ? nextScalar(bytes, at: i + len) : nil
      previousJoins = append(s, previousJoins: previousJoins, next: next, to: &out)
      i += len
    }
    return out
  }

  /// Escapes text that is already a `String` (server messages, config values).
  public static func escape(_ s: String) -> String { escape(s, keepingBackslashes: false) }

  /// Escapes a message for display: as ``escape(_:)``, but a backslash stays one. Messages name
  /// items by their escaped names already ("“a\x01b”"); escaping again showed `\\x01` (review).
  /// A message needs no reversible mapping — a name does, and gets one from ``escape(bytes:)``.
  public static func escapeMessage(_ s: String) -> String { escape(s, keepingBackslashes: true) }

  private static func escape(_ s: String, keepingBackslashes: Bool) -> String {
    var out = ""
    let scalars = Array(s.unicodeScalars)
    var previousJoins = false
    for (k, s) in scalars.enumerated() {
      if s == "\\" && keepingBackslashes {
        out.unicodeScalars.append(s)
        previousJoins = false
      } else if s.isASCII {
        appendASCII(UInt8(s.value), to: &out)
        previousJoins = false
      } else {
        previousJoins = append(s, previousJoins: previousJoins, next: k + 1 < scalars.count ? scalars[k + 1] : nil, to: &out)
      }
    }
    return out
  }

  /// True when a scalar must never reach a terminal raw, wherever it is (see the type's list; the
  /// joiners depend on their neighbours: ``isUnsafe(_:previous:next:)``).
  public static func isUnsafe(_ s: Unicode.Scalar) -> Bool {
    let v = s.value
    if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) { return true }
    // Bidi embeddings/overrides/isolates and marks, plus line/paragraph separators.
    if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F
      || v == 0x061C || v == 0x2028 || v == 0x2029
    {
      return true
    }
    // Invisible: zero-width space, word joiner, invisible operators, BOM, soft hyphen, Mongolian
    // vowel separator, interlinear annotation marks.
    if v == 0x200B || (0x2060...0x2064).contains(v) || v == 0xFEFF || v == 0x00AD || v == 0x180E
      || (0xFFF9...0xFFFB).contains(v)
    {
      return true
    }
    return false
  }

  /// ``isUnsafe(_:)``, and a zero-width joiner or non-joiner that is not between two visible
  /// characters (what it would join is missing, so it only hides in the name).
  public static func isUnsafe(_ s: Unicode.Scalar, previous: Unicode.Scalar?, next: Unicode.Scalar?) -> Bool {
    if isUnsafe(s) { return true }
    guard isJoiner(s) else { return false }
    return !(previous.map(joins) ?? false) || !(next.map(joins) ?? false)
  }

  private static func isJoiner(_ s: Unicode.Scalar) -> Bool { s.value == 0x200D || s.value == 0x200C }

  /// A character a joiner may stand next to: a visible non-ASCII character, or a mark or modifier
  /// on one (an emoji's variation selector or skin tone) — not a space, a control or another
  /// invisible character, and not ASCII, where a joiner changes nothing one can see ("a\u{200D}b"
  /// would look exactly like "ab").
  static func joins(_ s: Unicode.Scalar) -> Bool {
    if s.isASCII || isUnsafe(s) || isJoiner(s) { return false }
    switch s.properties.generalCategory {
    case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .unassigned, .surrogate:
      return false
    default:
      return true
    }
  }

  /// Appends a non-ASCII scalar, escaped if it must be; returns whether it is a visible character
  /// a following joiner may join.
  private static func append(_ s: Unicode.Scalar, previousJoins: Bool, next: Unicode.Scalar?, to out: inout String) -> Bool {
    let unsafe = isJoiner(s) ? !(previousJoins && (next.map(joins) ?? false)) : isUnsafe(s)
    if unsafe {
      out += "\\u{" + String(s.value, radix: 16, uppercase: true) + "}"
      return false
    }
    out.unicodeScalars.append(s)
    return joins(s) || isJoiner(s)
  }

  private static func scalar(_ bytes: [UInt8], at i: Int, length: Int) -> Unicode.Scalar? {
    var it = bytes[i..<(i + length)].makeIterator()
    var dec = UTF8()
    if case .scalarValue(let s) = dec.decode(&it) { return s }
    return nil
  }

  /// The scalar at `i`, when the bytes there are valid UTF-8.
  private static func nextScalar(_ bytes: [UInt8], at i: Int) -> Unicode.Scalar? {
    if bytes[i] < 0x80 { return Unicode.Scalar(bytes[i]) }
    let len = sequenceLength(bytes, at: i)
    return len > 0 ? scalar(bytes, at: i, length: len) : nil
  }

  private static func appendASCII(_ b: UInt8, to out: inout String) {
    switch b {
    case 0x5C: out += "\\\\"
    case 0x0A: out += "\\n"
    case 0x09: out += "\\t"
    case 0x0D: out += "\\r"
    case 0x1B: out += "\\e"
    case 0..<0x20, 0x7F: out += hexByte(b)
    default: out.unicodeScalars.append(Unicode.Scalar(b))
    }
  }

  private static func hexByte(_ b: UInt8) -> String {
    let h = String(b, radix: 16, uppercase: true)
    return "\\x" + (h.count == 1 ? "0" + h : h)
  }

  /// Length of a well-formed UTF-8 sequence starting at i, or 0 when the bytes there are invalid.
  private static func sequenceLength(_ b: [UInt8], at i: Int) -> Int {
    let c = b[i]
    let n = b.count
    func cont(_ k: Int) -> Bool { k < n && b[k] & 0xC0 == 0x80 }
    switch c {
    case 0xC2...0xDF: return cont(i + 1) ? 2 : 0
    case 0xE0: return i + 2 < n && (0xA0...0xBF).contains(b[i + 1]) && cont(i + 2) ? 3 : 0
    case 0xED: return i + 2 < n && (0x80...0x9F).contains(b[i + 1]) && cont(i + 2) ? 3 : 0
    case 0xE1...0xEC, 0xEE...0xEF: return cont(i + 1) && cont(i + 2) ? 3 : 0
    case 0xF0: return i + 3 < n && (0x90...0xBF).contains(b[i + 1]) && cont(i + 2) && cont(i + 3) ? 4 : 0
    case 0xF1...0xF3: return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0
    case 0xF4: return i + 3 < n && (0x80...0x8F).contains(b[i + 1]) && cont(i + 2) && cont(i + 3) ? 4 : 0
    default: return 0
    }
  }
}
