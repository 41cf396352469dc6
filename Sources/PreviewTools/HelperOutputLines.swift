import PreviewKit

/// Lines of a helper's output, made safe to draw.
///
/// STAND-IN: PreviewKit's sanitiser (`TerminalBytes` / `HelperOutput.lines(_:)`, branch
/// preview-text) is the one parser every shown byte should pass through, and it keeps SGR colours.
/// Until it is merged this minimal version keeps no colour at all: every escape sequence (CSI, OSC,
/// DCS, SOS, PM, APC, a lone ESC) is dropped, C0 controls show as `^X`, DEL as `^?`, C1 and bidi
/// controls as `<U+NNNN>`, invalid UTF-8 as `\xNN`, all in ``Ink/escape``; tabs become spaces (to
/// the next multiple of 8). `\r\n` ends a line like `\n`; a form feed (pdftotext's page break)
/// ends one too. The lead replaces the body of this function at merge.
///
/// - Parameter bytes: what a helper printed (already capped).
/// - Returns: one line per `\n`; no trailing empty line for output ending in `\n`.
public func lines(fromHelperOutput bytes: [UInt8]) -> [StyledLine] {
  var parser = MinimalHelperOutputParser()
  for byte in bytes { parser.feed(byte) }
  return parser.finish()
}

/// The byte-level state machine behind ``lines(fromHelperOutput:)``.
struct MinimalHelperOutputParser {
  private enum State {
    case text
    /// After ESC.
    case escape
    /// Inside `ESC [`: parameters until a final byte 0x40–0x7E.
    case csi
    /// Inside a string (OSC, DCS, SOS, PM, APC) until BEL or ST (`ESC \`).
    case string
    /// ESC seen inside a string: `\` ends it.
    case stringEscape
  }

  private var state = State.text
  private var lines: [StyledLine] = []
  private var runs: [StyledLine.Run] = []
  private var plain = ""
  private var column = 0
  /// A UTF-8 sequence being collected.
  private var pending: [UInt8] = []
  private var pendingLength = 0

  mutating func feed(_ byte: UInt8) {
    switch state {
    case .text: text(byte)
    case .escape:
      switch byte {
      case 0x5B: state = .csi  // [
      case 0x5D, 0x50, 0x58, 0x5E, 0x5F: state = .string  // ] P X ^ _
      default: state = .text  // a two-byte sequence (ESC 7, ESC c, …): dropped
      }
    case .csi:
      if (0x40...0x7E).contains(byte) {
        state = .text
      } else if byte < 0x20 || byte > 0x7E {
        // Malformed: the sequence ends here and this byte is text again.
        state = .text
        text(byte)
      }
    case .string:
      if byte == 0x07 { state = .text } else if byte == 0x1B { state = .stringEscape }
    case .stringEscape:
      state = byte == 0x5C ? .text : .string
    }
  }

  mutating func finish() -> [StyledLine] {
    flushPending()
    if !plain.isEmpty || !runs.isEmpty { endLine() }
    return lines
  }

  private mutating func text(_ byte: UInt8) {
    if pendingLength > 0 {
      if byte & 0xC0 == 0x80 {
        pending.append(byte)
        if pending.count == pendingLength { decodePending() }
        return
      }
      flushPending()
    }
    switch byte {
    case 0x0A, 0x0C: endLine()
    case 0x0D: break  // \r\n, or a progress line's return: nothing to draw
    case 0x09:
      let spaces = 8 - column % 8
      plain += String(repeating: " ", count: spaces)
      column += spaces
    case 0x1B: state = .escape
    case 0x00..<0x20: escape("^" + String(UnicodeScalar(byte + 0x40)))
    case 0x7F: escape("^?")
    case 0x20..<0x7F:
      plain.unicodeScalars.append(UnicodeScalar(byte))
      column += 1
    default:
      let length =
        byte >= 0xF0 && byte <= 0xF4 ? 4 : byte >= 0xE0 && byte <= 0xEF ? 3 : byte >= 0xC2 && byte <= 0xDF ? 2 : 0
      if length == 0 {
        escape(Self.hex(byte))
      } else {
        pending = [byte]
        pendingLength = length
      }
    }
  }

  /// A complete sequence: a scalar if it is valid UTF-8, else each byte escaped.
  private mutating func decodePending() {
    let bytes = pending
    pending = []
    pendingLength = 0
    guard let s = String(validating: bytes, as: UTF8.self), let scalar = s.unicodeScalars.first else {
      for b in bytes { escape(Self.hex(b)) }
      return
    }
    if Self.isHidden(scalar.value) {
      escape("<U+" + Self.hex4(scalar.value) + ">")
    } else {
      plain.unicodeScalars.append(scalar)
      column += 1
    }
  }

  /// A sequence cut short by a byte that does not continue it.
  private mutating func flushPending() {
    guard pendingLength > 0 else { return }
    let bytes = pending
    pending = []
    pendingLength = 0
    for b in bytes { escape(Self.hex(b)) }
  }

  private mutating func escape(_ shown: String) {
    flushPlain()
    runs.append(StyledLine.Run(shown, .escape))
    column += shown.count
  }

  private mutating func flushPlain() {
    if !plain.isEmpty { runs.append(StyledLine.Run(plain)) }
    plain = ""
  }

  private mutating func endLine() {
    flushPending()
    flushPlain()
    lines.append(StyledLine(runs))
    runs = []
    column = 0
  }

  /// C1 controls and the bidi and invisible format controls that reorder or hide text.
  static func isHidden(_ v: UInt32) -> Bool {
    (0x80...0x9F).contains(v) || v == 0x061C || v == 0x200B || v == 0x200E || v == 0x200F
      || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v) || v == 0xFEFF
  }

  static func hex(_ b: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return "\\x" + String(digits[Int(b >> 4)]) + String(digits[Int(b & 0xF)])
  }

  static func hex4(_ v: UInt32) -> String {
    let s = String(v, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
  }
}
