import PreviewKit
import Testing

/// Any encoding shown safely: UTF-8, UTF-16 either way, Latin-1, and prefixes cut mid-character.
@Suite struct TextDecodingTests {
  func decoded(_ bytes: [UInt8], isPrefix: Bool = false) -> (String, TextEncoding) {
    let (utf8, encoding) = TextDecoding.utf8(bytes, isPrefix: isPrefix)
    return (String(decoding: utf8, as: UTF8.self), encoding)
  }

  @Test func utf8LosesOnlyItsBOM() {
    #expect(decoded([0xEF, 0xBB, 0xBF] + Array("naïve".utf8)) == ("naïve", .utf8))
  }

  @Test func utf16WithABOMEitherWay() {
    let le: [UInt8] = [0xFF, 0xFE, 0x68, 0x00, 0xE9, 0x00, 0x0A, 0x00, 0x3D, 0xD8, 0x00, 0xDE]
    #expect(decoded(le) == ("hé\n😀", .utf16LE))
    let be: [UInt8] = [0xFE, 0xFF, 0x00, 0x68, 0x00, 0xE9, 0xD8, 0x3D, 0xDE, 0x00]
    #expect(decoded(be) == ("hé😀", .utf16BE))
  }

  @Test func utf16WithoutABOMWhenEveryOtherByteIsZero() {
    let text = Array("plain ascii text\r\n".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    #expect(decoded(text) == ("plain ascii text\r\n", .utf16LE))
  }

  /// A pair or a code unit cut by the end of the range is left out; a lone surrogate elsewhere is
  /// U+FFFD.
  @Test func utf16CutAtTheEnd() {
    #expect(decoded([0xFF, 0xFE, 0x61, 0x00, 0x3D, 0xD8], isPrefix: true) == ("a", .utf16LE))
    #expect(decoded([0xFF, 0xFE, 0x61, 0x00, 0x62], isPrefix: true) == ("a", .utf16LE))
    #expect(decoded([0xFF, 0xFE, 0x00, 0xDE, 0x61, 0x00]) == ("\u{FFFD}a", .utf16LE))
  }

  /// Not UTF-8 at all: Latin-1, with Windows-1252's quotes; its 0x80–0x9F never become C1 controls.
  @Test func latin1() {
    #expect(decoded(Array("caf".utf8) + [0xE9]) == ("café", .latin1))
    #expect(decoded([0x93] + Array("quoted".utf8) + [0x94, 0x20, 0x80, 0x20, 0x9B, 0x81]) == ("“quoted” € ›\u{FFFD}", .latin1))
  }

  /// Mostly UTF-8 with a stray byte stays UTF-8 (the byte is shown as `\xNN` by the sanitiser).
  @Test func mostlyUTF8StaysUTF8() {
    let bytes = Array("été, naïve, über, ".utf8) + [0xFF] + Array(" façade".utf8)
    #expect(decoded(bytes).1 == .utf8)
  }

  /// The first 64 KiB may end inside a character: it is dropped, not an error.
  @Test func utf8CutAtTheEnd() {
    let euro: [UInt8] = [0xE2, 0x82, 0xAC]
    #expect(decoded(Array("ab".utf8) + euro.prefix(2), isPrefix: true) == ("ab", .utf8))
    #expect(decoded(Array("ab".utf8) + euro, isPrefix: true) == ("ab€", .utf8))
    let emoji: [UInt8] = [0xF0, 0x9F, 0x98, 0x80]
    #expect(decoded(Array("x".utf8) + emoji.prefix(3), isPrefix: true) == ("x", .utf8))
  }
}
