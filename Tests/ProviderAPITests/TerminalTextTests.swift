import ProviderAPI
import Testing

@Suite struct TerminalTextTests {
  @Test(arguments: [
    ("a\u{200B}b", "a\\u{200B}b"),  // zero-width space
    ("\u{FEFF}name", "\\u{FEFF}name"),  // byte-order mark
    ("word\u{2060}joiner", "word\\u{2060}joiner"),  // word joiner
    ("soft\u{00AD}hyphen", "soft\\u{AD}hyphen"),  // soft hyphen
    ("x\u{2062}y", "x\\u{2062}y"),  // invisible times
    ("a\u{180E}b", "a\\u{180E}b"),  // Mongolian vowel separator
    ("\u{FFF9}note\u{FFFB}", "\\u{FFF9}note\\u{FFFB}"),  // interlinear annotation
    // Joiners joining nothing are escaped: at either end, next to a space or ASCII.
    ("\u{200D}lead", "\\u{200D}lead"),
    ("trail\u{200C}", "trail\\u{200C}"),
    ("a\u{200D}b", "a\\u{200D}b"),
    ("漢 \u{200D}字", "漢 \\u{200D}字"),
    ("漢\u{200D}\u{200D}字", "漢\\u{200D}\\u{200D}字"),
  ])
  func invisibleCharactersAreShownEscaped(_ input: String, _ shown: String) {
    #expect(TerminalText.escape(input) == shown)
    #expect(TerminalText.escape(bytes: Array(input.utf8)) == shown)
  }

  /// Joiners between two visible characters do their job and stay: emoji sequences (after a skin
  /// tone, after a variation selector), Persian words.
  @Test(arguments: [
    "🧝🏾\u{200D}♀️", "🏳\u{FE0F}\u{200D}🌈", "👩\u{200D}💻", "می\u{200C}خواهم", "क्\u{200D}ष",
  ])
  func joinersBetweenVisibleCharactersStay(_ name: String) {
    #expect(TerminalText.escape(name) == name)
    #expect(TerminalText.escape(bytes: Array(name.utf8)) == name)
  }

  @Test func theContextFreeCheckFlagsTheAlwaysInvisibleOnes() {
    for v: UInt32 in [0x200B, 0xFEFF, 0x2060, 0x00AD, 0x202E, 0x1B] {
      #expect(TerminalText.isUnsafe(Unicode.Scalar(v)!))
    }
    #expect(!TerminalText.isUnsafe(Unicode.Scalar(0x200D)!))
    #expect(TerminalText.isUnsafe(Unicode.Scalar(0x200D)!, previous: nil, next: "a"))
    #expect(!TerminalText.isUnsafe(Unicode.Scalar(0x200D)!, previous: "👩", next: "💻"))
  }

  @Test func invalidBytesAroundAJoinerStillShowAsBytes() {
    // 0xFF is not UTF-8: the joiner after it joins nothing visible.
    #expect(TerminalText.escape(bytes: [0xFF] + Array("\u{200D}漢".utf8)) == "\\xFF\\u{200D}漢")
  }
}

/// Messages name items by their escaped names already: shown again, a backslash stays one, and
/// what a server could smuggle in (an escape sequence, a newline) is still escaped.
@Suite struct TerminalTextMessageTests {
  @Test func aMessageIsEscapedOnceNotTwice() {
    let name = TerminalText.escape(bytes: Array("a".utf8) + [0x01] + Array("b".utf8))
    #expect(name == "a\\x01b")
    let message = "cannot read “\(name)”: permission denied"
    #expect(TerminalText.escapeMessage(message) == message)
    #expect(TerminalText.escape(message) != message, "the name escaper doubles it")
    #expect(TerminalText.escapeMessage("evil\u{1B}[2Jserver\nsays") == "evil\\e[2Jserver\\nsays")
  }
}
