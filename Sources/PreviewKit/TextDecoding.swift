/// The encoding a text preview was read in.
public enum TextEncoding: String, Sendable, Hashable {
  case utf8
  case utf16LE
  case utf16BE
  /// ISO 8859-1 with Windows-1252's printable characters in 0x80–0x9F (“smart quotes”, €), which
  /// is what a file that is not UTF-8 nearly always is.
  case latin1

  public var displayName: String {
    switch self {
    case .utf8: "UTF-8"
    case .utf16LE: "UTF-16LE"
    case .utf16BE: "UTF-16BE"
    case .latin1: "Latin-1"
    }
  }
}

/// Turns a text file's first bytes, in any encoding, into UTF-8 for the sanitiser.
///
/// "Any encoding shown safely" means: UTF-8 (a BOM stripped) as is, with invalid bytes left for
/// ``TerminalBytes`` to show as `\xNN`; UTF-16 when a BOM says so (or when every other byte of
/// ASCII-heavy text is zero); and a file whose non-ASCII bytes are not UTF-8 at all read as
/// Latin-1/Windows-1252, so `caf\xE9` reads "café" rather than "caf\xE9". Decoding never removes
/// a control character: the output still goes through the sanitiser, which escapes it.
///
/// The input is usually only the first 64 KiB of a file: with `isPrefix`, a character cut by the
/// end of the range is dropped, not shown as an error.
public enum TextDecoding {
  /// The encoding of `bytes` (a file's first bytes), and how long its byte-order mark is.
  public static func detect(_ bytes: UnsafeBufferPointer<UInt8>, isPrefix: Bool = false) -> (TextEncoding, bomLength: Int) {
    let n = bytes.count
    if n >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { return (.utf8, 3) }
    if n >= 2 && bytes[0] == 0xFF && bytes[1] == 0xFE { return (.utf16LE, 2) }
    if n >= 2 && bytes[0] == 0xFE && bytes[1] == 0xFF { return (.utf16BE, 2) }
    if let utf16 = utf16WithoutBOM(bytes) { return (utf16, 0) }
    return (looksLikeUTF8(bytes, isPrefix: isPrefix) ? .utf8 : .latin1, 0)
  }

  /// The text of `bytes` as UTF-8 (BOM removed), and the encoding it was read in.
  public static func utf8(_ bytes: [UInt8], isPrefix: Bool = false) -> (bytes: [UInt8], encoding: TextEncoding) {
    let encoding = bytes.withUnsafeBufferPointer { detect($0, isPrefix: isPrefix).0 }
    return (utf8(bytes, as: encoding, isPrefix: isPrefix), encoding)
  }

  /// The text of `bytes`, known to be in `encoding` (``ContentClassifier`` told it), as UTF-8;
  /// the encoding's BOM, if there is one, is removed.
  public static func utf8(_ bytes: [UInt8], as encoding: TextEncoding, isPrefix: Bool = false) -> [UInt8] {
    bytes.withUnsafeBufferPointer { p in
      let bom: [UInt8] =
        switch encoding {
        case .utf8: [0xEF, 0xBB, 0xBF]
        case .utf16LE: [0xFF, 0xFE]
        case .utf16BE: [0xFE, 0xFF]
        case .latin1: []
        }
      let skip = p.has(bom, at: 0, end: p.count) ? bom.count : 0
      let body = UnsafeBufferPointer(rebasing: p[skip...])
      switch encoding {
      case .utf8:
        let end = isPrefix ? completeUTF8End(body) : body.count
        return skip == 0 && end == bytes.count ? bytes : Array(body[0..<end])
      case .utf16LE, .utf16BE: return fromUTF16(body, bigEndian: encoding == .utf16BE, isPrefix: isPrefix)
      case .latin1: return fromLatin1(body)
      }
    }
  }

  /// Where the UTF-8 of a prefix ends when a multi-byte character cut by the end of the range is
  /// left out.
  static func completeUTF8End(_ p: UnsafeBufferPointer<UInt8>) -> Int {
    let n = p.count
    var k = n - 1
    // Back over at most three continuation bytes to the lead byte that starts the last character.
    while k >= 0 && k > n - 4 && p[k] & 0xC0 == 0x80 { k -= 1 }
    guard k >= 0 else { return n }
    let lead = p[k]
    let length = lead >= 0xF0 && lead <= 0xF4 ? 4 : lead >= 0xE0 && lead <= 0xEF ? 3 : lead >= 0xC2 && lead <= 0xDF ? 2 : 1
    return length > n - k ? k : n
  }

  /// UTF-8 when the non-ASCII bytes mostly form valid sequences: a few stray bytes in a UTF-8
  /// file are shown as escapes, but a file where no non-ASCII byte is UTF-8 is Latin-1.
  static func looksLikeUTF8(_ p: UnsafeBufferPointer<UInt8>, isPrefix: Bool) -> Bool {
    let n = isPrefix ? completeUTF8End(p) : p.count
    var valid = 0
    var invalid = 0
    var i = 0
    while i < n {
      let b = p[i]
      if b < 0x80 {
        i += 1
        continue
      }
      let length = sequenceLength(p, at: i, end: n)
      if length == 0 {
        invalid += 1
        i += 1
      } else {
        valid += 1
        i += length
      }
    }
    return invalid == 0 || valid > invalid * 4
  }

  /// The length of a well-formed UTF-8 sequence at `i`, or 0.
  static func sequenceLength(_ p: UnsafeBufferPointer<UInt8>, at i: Int, end n: Int) -> Int {
    func cont(_ k: Int, _ lower: UInt8 = 0x80, _ upper: UInt8 = 0xBF) -> Bool { k < n && p[k] >= lower && p[k] <= upper }
    switch p[i] {
    case 0xC2...0xDF: return cont(i + 1) ? 2 : 0
    case 0xE0: return cont(i + 1, 0xA0) && cont(i + 2) ? 3 : 0
    case 0xED: return cont(i + 1, 0x80, 0x9F) && cont(i + 2) ? 3 : 0
    case 0xE1...0xEF: return cont(i + 1) && cont(i + 2) ? 3 : 0
    case 0xF0: return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : 0
    case 0xF1...0xF3: return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0
    case 0xF4: return cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3) ? 4 : 0
    default: return 0
    }
  }

  /// UTF-16 without a BOM, when the first KiB is ASCII text with a zero beside every character.
  static func utf16WithoutBOM(_ p: UnsafeBufferPointer<UInt8>) -> TextEncoding? {
    let n = min(p.count, 1024) & ~1
    guard n >= 8 else { return nil }
    var zeroEven = 0
    var zeroOdd = 0
    var printable = 0
    var k = 0
    while k < n {
      let (a, b) = (p[k], p[k + 1])
      if a == 0 { zeroEven += 1 }
      if b == 0 { zeroOdd += 1 }
      let text = a == 0 ? b : a
      if (text >= 0x20 && text < 0x7F) || text == 0x0A || text == 0x0D || text == 0x09 { printable += 1 }
      k += 2
    }
    let pairs = n / 2
    guard printable * 10 >= pairs * 9 else { return nil }
    if zeroOdd * 10 >= pairs * 9 && zeroEven * 20 <= pairs { return .utf16LE }
    if zeroEven * 10 >= pairs * 9 && zeroOdd * 20 <= pairs { return .utf16BE }
    return nil
  }

  /// UTF-16 to UTF-8; an unpaired surrogate becomes U+FFFD; with `isPrefix`, a code unit or a
  /// pair cut by the end is left out.
  static func fromUTF16(_ p: UnsafeBufferPointer<UInt8>, bigEndian: Bool, isPrefix: Bool) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(p.count / 2 + p.count / 8)
    let units = p.count / 2
    func unit(_ k: Int) -> UInt32 {
      let (a, b) = (UInt32(p[2 * k]), UInt32(p[2 * k + 1]))
      return bigEndian ? a << 8 | b : b << 8 | a
    }
    var k = 0
    while k < units {
      let u = unit(k)
      var scalar = u
      if u >= 0xD800 && u <= 0xDBFF {
        if k + 1 < units {
          let low = unit(k + 1)
          if low >= 0xDC00 && low <= 0xDFFF {
            scalar = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00)
            k += 1
          } else {
            scalar = 0xFFFD
          }
        } else if isPrefix {
          break
        } else {
          scalar = 0xFFFD
        }
      } else if u >= 0xDC00 && u <= 0xDFFF {
        scalar = 0xFFFD
      }
      appendUTF8(scalar, to: &out)
      k += 1
    }
    if p.count % 2 == 1 && !isPrefix { appendUTF8(0xFFFD, to: &out) }
    return out
  }

  /// Windows-1252's characters for 0x80–0x9F; 0 where it has none (shown as U+FFFD).
  static let windows1252: [UInt32] = [
    0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
    0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
  ]

  /// Latin-1 (with Windows-1252's 0x80–0x9F) to UTF-8. Its C1 range never becomes C1 controls.
  static func fromLatin1(_ p: UnsafeBufferPointer<UInt8>) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(p.count + p.count / 8)
    for b in p {
      if b < 0x80 {
        out.append(b)
      } else if b < 0xA0 {
        let v = windows1252[Int(b - 0x80)]
        appendUTF8(v == 0 ? 0xFFFD : v, to: &out)
      } else {
        appendUTF8(UInt32(b), to: &out)
      }
    }
    return out
  }

  static func appendUTF8(_ v: UInt32, to out: inout [UInt8]) {
    switch v {
    case 0..<0x80: out.append(UInt8(v))
    case 0x80..<0x800:
      out.append(UInt8(0xC0 | v >> 6))
      out.append(UInt8(0x80 | v & 0x3F))
    case 0x800..<0x10000:
      out.append(UInt8(0xE0 | v >> 12))
      out.append(UInt8(0x80 | v >> 6 & 0x3F))
      out.append(UInt8(0x80 | v & 0x3F))
    default:
      out.append(UInt8(0xF0 | v >> 18))
      out.append(UInt8(0x80 | v >> 12 & 0x3F))
      out.append(UInt8(0x80 | v >> 6 & 0x3F))
      out.append(UInt8(0x80 | v & 0x3F))
    }
  }
}
