import Testing

@testable import SFTPClient

/// DisplayText escapes what TerminalText escapes of a server's bytes (found by folio-fuzz: U+2028
/// and U+2029, which break a line in some terminals, went out raw; Fuzz/corpus/terminal-text/regression-*).
@Suite struct DisplayTextTests {
  @Test(arguments: ["\u{2028}", "\u{2029}", "\u{202E}", "\u{85}", "\u{1B}", "\u{7F}"])
  func controlsAndSeparatorsAreEscaped(_ s: String) {
    #expect(DisplayText.escape(Array(("a" + s + "b").utf8)).hasPrefix("a\\"))
    #expect(DisplayText.oneLine("a" + s + "b").hasPrefix("a\\"))
  }
}
