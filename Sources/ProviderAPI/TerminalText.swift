/// The one sanitiser between data (names, server messages) and a terminal.
///
/// Everything a file name or a server says passes through here before it is printed or drawn.
/// Escapes are visible and reversible, in the style of C and `ls -b`:
/// - C0 controls and DEL: `\n`, `\t`, `\r`, `\e` or `\xNN`;
/// - C1 controls (U+0080–U+009F) and bidi / invisible format controls: `\u{NNNN}`;
/// - bytes that are not valid UTF-8: `\xNN`;
/// - a backslash itself: `\\`, so that an escaped name cannot be confused with a real one.
public enum TerminalText {
  /// Escapes a byte string (a name or a path) for display.
  public static func escape(bytes: [UInt8]) -> String {
    var out = ""
    out.reserveCapacity(bytes.count)
    var i = 0
    let n = bytes.count
    while i < n {
      let b = bytes[i]
      if b < 0x80 {
        appendASCII(b, to: &out)
        i += 1
        continue
      }
      let len = sequenceLength(bytes, at: i)
      if len == 0 {
        out += hexByte(b)
        i += 1
        continue
      }
      var it = bytes[i..<(i + len)].makeIterator()
      var dec = UTF8()
      if case .scalarValue(let s) = dec.decode(&it) {
        appendScalar(s, to: &out)
      } else {
        for k in i..<(i + len) { out += hexByte(bytes[k]) }
      }
      i += len
    }
    return out
  }

  /// Escapes text that is already a `String` (server messages, config values).
  public static func escape(_ s: String) -> String {
    var out = ""
    for s in s.unicodeScalars {
      if s.isASCII { appendASCII(UInt8(s.value), to: &out) } else { appendScalar(s, to: &out) }
    }
    return out
  }

  /// True when a scalar must never reach a terminal raw.
  public static func isUnsafe(_ s: Unicode.Scalar) -> Bool {
    let v = s.value
    if v < 0x20 || v == 0x7F || (0x80...0x9F).contains(v) { return true }
    // Bidi embeddings/overrides/isolates and marks, plus line/paragraph separators.
    if (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0x200E || v == 0x200F
      || v == 0x061C || v == 0x2028 || v == 0x2029
    {
      return true
    }
    return false
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

  private static func appendScalar(_ s: Unicode.Scalar, to out: inout String) {
    if isUnsafe(s) {
      out += "\\u{" + String(s.value, radix: 16, uppercase: true) + "}"
    } else {
      out.unicodeScalars.append(s)
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
