extension TerminalText {
  /// The bytes a name shown escaped stands for: the escapes `TerminalText` writes (`\\`, `\n`,
  /// `\t`, `\r`, `\e`, `\xNN`, `\u{N}`) turned back into bytes, any other backslash kept as typed.
  /// Renaming `caf\xE9` to `old caf\xE9` must keep the byte 0xE9, not write four characters.
  /// `unescape(escape(bytes: b)) == b` for every byte string: the Rename prompt and the bulk
  /// rename file both rely on it.
  public static func unescape(_ text: String) -> [UInt8] {
    let s = Array(text.unicodeScalars)
    var out: [UInt8] = []
    func hex(_ c: Unicode.Scalar) -> UInt32? { c.properties.isASCIIHexDigit ? UInt32(String(c), radix: 16) : nil }
    var i = 0
    while i < s.count {
      guard s[i] == "\\", i + 1 < s.count else {
        out += Array(String(s[i]).utf8)
        i += 1
        continue
      }
      switch s[i + 1] {
      case "\\": out.append(0x5C); i += 2
      case "n": out.append(0x0A); i += 2
      case "t": out.append(0x09); i += 2
      case "r": out.append(0x0D); i += 2
      case "e": out.append(0x1B); i += 2
      case "x" where i + 3 < s.count && hex(s[i + 2]) != nil && hex(s[i + 3]) != nil:
        out.append(UInt8(hex(s[i + 2])! * 16 + hex(s[i + 3])!))
        i += 4
      case "u" where i + 2 < s.count && s[i + 2] == "{":
        var j = i + 3
        var value: UInt32 = 0
        while j < s.count, j < i + 11, let h = hex(s[j]) {
          value = value * 16 + h
          j += 1
        }
        if j < s.count, s[j] == "}", j > i + 3, let scalar = Unicode.Scalar(value) {
          out += Array(String(scalar).utf8)
          i = j + 1
        } else {
          out.append(0x5C)
          i += 1
        }
      default:
        out.append(0x5C)
        i += 1
      }
    }
    return out
  }
}
