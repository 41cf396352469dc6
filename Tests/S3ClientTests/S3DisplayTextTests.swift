import Testing

@testable import S3Client

/// S3DisplayText escapes what TerminalText escapes of a server's bytes (found by folio-fuzz: U+2028
/// and U+2029 went out raw; Fuzz/corpus/terminal-text/regression-*).
@Suite struct S3DisplayTextTests {
  @Test(arguments: ["\u{2028}", "\u{2029}", "\u{202E}", "\u{85}", "\u{1B}", "\u{7F}"])
  func controlsAndSeparatorsAreEscaped(_ s: String) {
    #expect(S3DisplayText.escape(Array(("a" + s + "b").utf8)).hasPrefix("a\\"))
    #expect(S3DisplayText.oneLine("a" + s + "b").hasPrefix("a\\"))
  }
}
