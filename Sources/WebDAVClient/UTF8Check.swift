import Foundation

/// Checks that a document read in pieces is UTF-8, a piece at a time (a sequence may be split
/// between two reads).
///
/// Why it exists: Foundation's `XMLParser` on Linux traps — `Illegal instruction`, no error — when
/// an element or attribute *name* holds bytes that are not UTF-8 (it force-unwraps their
/// conversion: swift-corelibs-foundation issue 5534, found here by `folio-fuzz`). A server's
/// answer could kill Folio with four bytes. libxml2 already refuses invalid UTF-8 in text, so a
/// document is refused whole before the parser sees a bad byte, and nothing a real server sends
/// changes (WebDAV and S3 answers are UTF-8).
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

/// An `InputStream` that passes another's bytes through a ``UTF8Check``: at the first byte that
/// is not UTF-8 it ends with an error (``notUTF8``), so `XMLParser(stream:)` never sees it.
package final class UTF8CheckedStream: InputStream {
  private let base: InputStream
  private var check = UTF8Check()

  /// Whether the bytes stopped being UTF-8 (the reader reports a malformed answer).
  package private(set) var notUTF8 = false

  package init(_ base: InputStream) {
    self.base = base
    super.init(data: Data())
  }

  override package func open() { base.open() }
  override package func close() { base.close() }
  override package var hasBytesAvailable: Bool { base.hasBytesAvailable }
  override package var streamError: (any Error)? {
    notUTF8 ? WebDAVError(.malformedResponse, "the answer is not UTF-8") : base.streamError
  }

  override package func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
    if notUTF8 { return -1 }
    let n = base.read(buffer, maxLength: maxLength)
    if n > 0, !check.take(UnsafeBufferPointer(start: buffer, count: n)) {
      notUTF8 = true
      return -1
    }
    return n
  }
}
