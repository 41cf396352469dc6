import Foundation

/// Checks that a document read in pieces is UTF-8, a piece at a time (a sequence may be split
/// between two reads).
///
/// Why it exists: Foundation's `XMLParser`, which Folio used before reading XML through libxml2
/// itself (XMLStream), trapped on Linux — `Illegal instruction`, no error — when an element or
/// attribute *name* held bytes that are not UTF-8 (swift-corelibs-foundation issue 5534, found
/// here by `folio-fuzz`). The check stays as a plain rule: WebDAV and S3 answers are UTF-8, and
/// one that is not is refused whole with that reason instead of a parser's message.
struct UTF8Check {
  /// Continuation bytes the current sequence still needs.
  private var pending = 0
  /// The range the next continuation byte must fall in (narrower after E0, ED, F0 and F4: no
  /// overlong forms, no surrogates, nothing past U+10FFFF).
  private var low: UInt8 = 0x80
  private var high: UInt8 = 0xBF
  private(set) var isValid = true

  /// Takes the next bytes; false (and from then on) once they are not UTF-8.
  mutating func take(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard isValid else { return false }
    for b in bytes {
      if pending > 0 {
        guard b >= low && b <= high else { return fail() }
        pending -= 1
        (low, high) = (0x80, 0xBF)
        continue
      }
      switch b {
      case 0x00...0x7F: continue
      case 0xC2...0xDF: pending = 1
      case 0xE0: (pending, low) = (2, 0xA0)
      case 0xE1...0xEC, 0xEE...0xEF: pending = 2
      case 0xED: (pending, high) = (2, 0x9F)
      case 0xF0: (pending, low) = (3, 0x90)
      case 0xF1...0xF3: pending = 3
      case 0xF4: (pending, high) = (3, 0x8F)
      default: return fail()
      }
    }
    return true
  }

  /// True when everything taken is UTF-8 and no sequence was left open.
  var isComplete: Bool { isValid && pending == 0 }

  /// Whether `bytes` are UTF-8 as a whole.
  static func isUTF8(_ bytes: [UInt8]) -> Bool {
    var check = UTF8Check()
    return bytes.withUnsafeBufferPointer { check.take($0) } && check.isComplete
  }

  private mutating func fail() -> Bool {
    isValid = false
    return false
  }
}

/// Finds a processing instruction after the XML declaration (`<?x?>`), a piece at a time.
///
/// Why it exists: Foundation's `XMLParser` (used before XMLStream) called `strlen` on a processing
/// instruction's data, which libxml2 passes as NULL when there is none: `<?x?>` anywhere in an
/// answer was a segmentation fault (found by libFuzzer, `scripts/fuzz s3-xml`). WebDAV and S3 answers carry no
/// processing instruction, so any `<?` but the declaration's (`<?xml ` at the very start, after a
/// BOM) makes the answer malformed.
struct ProcessingInstructionCheck {
  private var offset = 0
  private var previous: UInt8 = 0
  private var start = 0  // where the declaration may begin: 3 after a UTF-8 BOM
  /// How many bytes of `xml` and a white space byte the declaration has matched (-1: none open).
  private var declaration = -1
  private(set) var found = false

  /// Takes the next bytes; false (and from then on) once a processing instruction was seen.
  mutating func take(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    guard !found else { return false }
    for b in bytes {
      if offset == 0 && b == 0xEF { start = 3 }
      if declaration >= 0 {
        // `<?xml` and white space is the declaration; any other target is an instruction.
        let expected: [UInt8] = [0x78, 0x6D, 0x6C]
        let fits = declaration < 3 ? b == expected[declaration] : (b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D)
        guard fits else { return fail() }
        declaration = declaration == 3 ? -1 : declaration + 1
      } else if b == 0x3F && previous == 0x3C {
        guard offset - 1 == start else { return fail() }
        declaration = 0
      }
      previous = b
      offset += 1
    }
    return true
  }

  private mutating func fail() -> Bool {
    found = true
    return false
  }
}

/// Why a whole answer is refused before parsing, or nil: not UTF-8, or a processing instruction.
func xmlAnswerRefusal(_ bytes: [UInt8]) -> String? {
  var utf8 = UTF8Check()
  var pi = ProcessingInstructionCheck()
  return bytes.withUnsafeBufferPointer { b in
    if !utf8.take(b) || !utf8.isComplete { return "the answer is not UTF-8" }
    if !pi.take(b) { return "the answer holds a processing instruction" }
    return nil
  }
}

/// An `InputStream` that passes another's bytes through a ``UTF8Check`` and a
/// ``ProcessingInstructionCheck``: at the first byte that is not UTF-8, or the `?` of a processing
/// instruction, it ends with an error (``refusal``), so the parser never sees it.
package final class UTF8CheckedStream: InputStream {
  private let base: InputStream
  private var check = UTF8Check()
  private var instructions = ProcessingInstructionCheck()

  /// Why the bytes were cut off: not UTF-8, or a processing instruction (the reader reports a
  /// malformed answer); nil while they are fine.
  package private(set) var refusal: String?
  /// Whether the stream was cut off (``refusal`` says why).
  package var notUTF8: Bool { refusal != nil }

  package init(_ base: InputStream) {
    self.base = base
    super.init(data: Data())
  }

  override package func open() { base.open() }
  override package func close() { base.close() }
  override package var hasBytesAvailable: Bool { base.hasBytesAvailable }
  override package var streamError: (any Error)? {
    refusal.map { WebDAVError(.malformedResponse, $0) } ?? base.streamError
  }

  override package func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
    if refusal != nil { return -1 }
    let n = base.read(buffer, maxLength: maxLength)
    guard n > 0 else { return n }
    let piece = UnsafeBufferPointer(start: buffer, count: n)
    if !check.take(piece) {
      refusal = "the answer is not UTF-8"
      return -1
    }
    if !instructions.take(piece) {
      refusal = "the answer holds a processing instruction"
      return -1
    }
    return n
  }
}
