import ProviderAPI

/// Text in the ground state: UTF-8 decoded and checked byte by byte (a sequence may be split
/// between two `feed` calls), and what is shown instead of a byte or character that must not
/// reach the terminal: `^X`, `\xNN`, `<U+202E>`, all in ``Ink/escape``.
extension TerminalBytes {
  // MARK: UTF-8

  mutating func startUTF8(_ b: UInt8) {
    utf8Bytes.append(b)
    utf8Lower = 0x80
    utf8Upper = 0xBF
    switch b {
    case 0xC2...0xDF:
      utf8Need = 1
      utf8Scalar = UInt32(b & 0x1F)
    case 0xE0...0xEF:
      utf8Need = 2
      utf8Scalar = UInt32(b & 0x0F)
      if b == 0xE0 { utf8Lower = 0xA0 }
      if b == 0xED { utf8Upper = 0x9F }
    default:
      utf8Need = 3
      utf8Scalar = UInt32(b & 0x07)
      if b == 0xF0 { utf8Lower = 0x90 }
      if b == 0xF4 { utf8Upper = 0x8F }
    }
  }

  mutating func continueUTF8(_ b: UInt8) {
    guard b >= utf8Lower && b <= utf8Upper else {
      // The sequence is broken: what came of it is shown as bytes, and `b` starts afresh.
      flushUTF8AsInvalid()
      return ground(b)
    }
    utf8Bytes.append(b)
    utf8Scalar = utf8Scalar << 6 | UInt32(b & 0x3F)
    utf8Lower = 0x80
    utf8Upper = 0xBF
    utf8Need -= 1
    if utf8Need == 0 { emitScalar() }
  }

  mutating func emitScalar() {
    let v = utf8Scalar
    defer { utf8Bytes.removeAll(keepingCapacity: true) }
    if v <= 0x9F {
      // U+0080–U+009F: C1 controls, obeyed by some terminals even in UTF-8.
      return c1(UInt8(v), raw: false)
    }
    if let scalar = Unicode.Scalar(v), TerminalText.isUnsafe(scalar) { return showCodePoint(v) }
    utf8Bytes.withUnsafeBufferPointer { out.appendScalar($0, width: ScalarWidth.of(v), ink: ink) }
  }

  mutating func flushUTF8AsInvalid() {
    guard utf8Need > 0 || !utf8Bytes.isEmpty else { return }
    let bytes = utf8Bytes
    utf8Bytes.removeAll(keepingCapacity: true)
    utf8Need = 0
    for b in bytes { showInvalid(b) }
  }

  // MARK: Visible escapes

  mutating func resolveCRAsShown() {
    if pendingCR {
      pendingCR = false
      showControl(0x0D)
    }
  }

  /// `^@` … `^_`, `^?`.
  mutating func showControl(_ b: UInt8) {
    out.appendEscape([0x5E, b ^ 0x40])
  }

  /// `\xNN`.
  mutating func showInvalid(_ b: UInt8) {
    out.appendEscape([0x5C, 0x78, Self.hexDigit(b >> 4), Self.hexDigit(b & 0xF)])
  }

  /// `<U+202E>`.
  mutating func showCodePoint(_ v: UInt32) {
    var text: [UInt8] = Array("<U+".utf8)
    var digits: [UInt8] = []
    var rest = v
    repeat {
      digits.append(Self.hexDigit(UInt8(rest & 0xF)))
      rest >>= 4
    } while rest > 0 || digits.count < 4
    text.append(contentsOf: digits.reversed())
    text.append(0x3E)
    out.appendEscape(text)
  }

  static func hexDigit(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 + v : 0x41 + v - 10 }
}
