/// Escapes bytes from a server or from ssh for display, so nothing they send reaches a terminal raw.
///
/// The same escapes as the browser's `TerminalText` (`\e`, `\xNN`, `\u{NNNN}`, `\\`); SFTPClient
/// stays free of the UI modules, so it carries its own small copy for its messages.
public enum DisplayText {
  /// Valid UTF-8 stays readable; control characters, bidi controls and invalid bytes are escaped.
  public static func escape(_ bytes: some Collection<UInt8>) -> String {
    let all = Array(bytes)
    var out = ""
    var index = 0
    while index < all.count {
      let (scalar, length) = decodeScalar(all, at: index)
      if let scalar {
        append(scalar, to: &out)
        index += length
      } else {
        out += "\\x" + hex(all[index])
        index += 1
      }
    }
    return out
  }

  /// A message on one line: escapes, and newlines become spaces first (ssh's stderr has several lines).
  public static func oneLine(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      if scalar == "\n" || scalar == "\r" || scalar == "\t" {
        if !out.hasSuffix(" ") && !out.isEmpty { out += " " }
      } else if scalar == "\\" {
        out.unicodeScalars.append(scalar)  // already escaped text keeps its backslashes
      } else {
        append(scalar, to: &out, escapeBackslash: false)
      }
    }
    while out.hasSuffix(" ") { out.removeLast() }
    return out
  }

  private static func append(_ scalar: Unicode.Scalar, to out: inout String, escapeBackslash: Bool = true) {
    let value = scalar.value
    switch value {
    case 0x1B: out += "\\e"
    case 0x5C where escapeBackslash: out += "\\\\"
    case 0..<0x20, 0x7F: out += "\\x" + hex(UInt8(value))
    case 0x80..<0xA0, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x061C, 0x2028, 0x2029:
      out += "\\u{" + String(value, radix: 16, uppercase: true) + "}"
    default: out.unicodeScalars.append(scalar)
    }
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0xF)]])
  }

  /// One UTF-8 scalar at `index`, or nil when the bytes there are not valid UTF-8.
  private static func decodeScalar(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar?, Int) {
    let first = bytes[index]
    if first < 0x80 { return (Unicode.Scalar(first), 1) }
    let length: Int
    let minimum: UInt32
    var value: UInt32
    switch first {
    case 0xC2...0xDF: (length, minimum, value) = (2, 0x80, UInt32(first & 0x1F))
    case 0xE0...0xEF: (length, minimum, value) = (3, 0x800, UInt32(first & 0x0F))
    case 0xF0...0xF4: (length, minimum, value) = (4, 0x10000, UInt32(first & 0x07))
    default: return (nil, 1)
    }
    guard index + length <= bytes.count else { return (nil, 1) }
    for offset in 1..<length {
      let byte = bytes[index + offset]
      guard byte & 0xC0 == 0x80 else { return (nil, 1) }
      value = value << 6 | UInt32(byte & 0x3F)
    }
    guard value >= minimum, let scalar = Unicode.Scalar(value) else { return (nil, 1) }
    return (scalar, length)
  }
}
