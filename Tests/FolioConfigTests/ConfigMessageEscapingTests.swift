import FolioConfig
import ProviderAPI
import Testing

/// A config error quotes the file's bytes (a key, a value, toml++'s own message) and is printed:
/// nothing in it may reach the terminal raw (found by folio-fuzz; Fuzz/corpus/config-toml/regression-*).
@Suite struct ConfigMessageEscapingTests {
  @Test(arguments: ["b = f\u{1B}[31m\n", "\"\u{1B}]0;pwn\u{7}\" = 1\n", "[cache]\nbudget = \"\u{202E}9 GB\"\n", "x = tru\u{9B}\n"])
  func errorsAreEscaped(text: String) throws {
    let message = try #require(parseError(text))
    #expect(message.hasPrefix("config.toml:"))
    let raw = message.unicodeScalars.filter { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) || $0.value == 0x202E }
    #expect(raw.isEmpty, "\(TerminalText.escape(message))")
  }
}
