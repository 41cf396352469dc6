import PreviewKit
import PreviewTools
import Testing

/// Helper output through PreviewKit's sanitiser: nothing that could drive a terminal survives, and
/// what is hidden is shown as an escape. (An 8-bit CSI, raw or as UTF-8 U+009B, is a sequence:
/// dropped with its parameters, as a 7-bit one is.)
@Suite struct HelperOutputLinesTests {
  /// The escapes of preview-pane.md §3's evil.sh: OSC 52 (clipboard), OSC 0 (title), CSI 2J,
  /// 8-bit CSI (raw and as UTF-8 U+009B), DCS DECRQSS; plus bidi, DEL and invalid UTF-8.
  static let evil: [UInt8] =
    Array("a\u{1B}]52;c;Y3VybCB4fGJhc2g=\u{07}b\u{1B}]0;owned\u{1B}\\c\u{1B}[2Jd".utf8) + [0x9B] + Array("31m".utf8)
    + [0xC2, 0x9B] + Array("e\u{1B}P$qm\u{1B}\\f\u{202E}gnp.exe\u{7F}\u{01}".utf8) + [0xFF, 0x0A]

  @Test func noControlOrEscapeSurvives() {
    let lines = lines(fromHelperOutput: Self.evil)
    #expect(lines.count == 1)
    for run in lines.flatMap(\.runs) {
      for scalar in run.text.unicodeScalars {
        #expect(scalar.value >= 0x20 && !(0x7F...0x9F).contains(scalar.value), "\(scalar.value)")
        #expect(!(0x202A...0x202E).contains(scalar.value) && !(0x2066...0x2069).contains(scalar.value))
      }
    }
    #expect(lines[0].plainText == "abcdf<U+202E>gnp.exe^?^A\\xFF")
  }

  @Test func escapesAreDrawnAsFolios() {
    let line = lines(fromHelperOutput: Array("x\u{01}y".utf8))[0]
    #expect(line.runs == [StyledLine.Run("x"), StyledLine.Run("^A", .escape), StyledLine.Run("y")])
  }

  @Test func lineEndsTabsAndPageBreaks() {
    let text = lines(fromHelperOutput: Array("one\r\nt\two\n\u{0C}page 2\nlast".utf8)).map(\.plainText)
    #expect(text == ["one", "t       wo", "", "page 2", "last"])
    #expect(lines(fromHelperOutput: Array("a\n".utf8)).map(\.plainText) == ["a"])
    #expect(lines(fromHelperOutput: []).isEmpty)
  }

  @Test func validUTF8PassesAndCutSequencesAreEscaped() {
    #expect(lines(fromHelperOutput: Array("é 日本 📁".utf8))[0].plainText == "é 日本 📁")
    #expect(lines(fromHelperOutput: [0x61, 0xE6, 0x97, 0x62])[0].plainText == "a\\xE6\\x97b")
    #expect(lines(fromHelperOutput: [0xED, 0xA0, 0x80])[0].plainText == "\\xED\\xA0\\x80", "a surrogate")
  }
}
