import BrowserUI
import Testing

/// The Open With… history's file: one command a line, newest first, what it cannot hold dropped.
@Suite struct OpenWithHistoryTests {
  @Test func theFileReadsBackTheCommandsInOrder() {
    let history = OpenWithHistory(["less", "grep -n 'two words'", "printf '<%s>\\n' x"])
    #expect(OpenWithHistory(text: history.text) == history)
    #expect(history.text.hasPrefix("# "))
  }

  @Test func whatALineCannotHoldIsDroppedAndTheLimitKept() {
    let many = (1...15).map { "cmd\($0)" }
    #expect(OpenWithHistory(many).commands == Array(many.prefix(10)))
    #expect(OpenWithHistory(["two\nlines", "", "  ", "ok"]).commands == ["ok"])
    #expect(OpenWithHistory(text: "# a comment\n\nvim\r\nless\n").commands == ["vim", "less"])
  }
}
