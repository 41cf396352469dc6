import ProviderAPI
import Testing

@testable import BrowserUI

/// The one-line editor of prompts: the keys a shell user expects.
@Suite struct LineEditorTests {
  /// Applies keys in order; true when every one was an editing key.
  func apply(_ keys: KeyEvent..., to e: inout LineEditor) -> Bool {
    keys.allSatisfy { e.apply($0) }
  }

  func editor(_ text: String, cursor: Int? = nil) -> LineEditor {
    var e = LineEditor(text)
    if let cursor { e.cursor = cursor }
    return e
  }

  @Test func typingInsertsAtTheCursor() {
    var e = editor("held", cursor: 3)
    #expect(apply(.character("l"), to: &e))
    #expect(apply(.character("o"), to: &e))
    #expect(e.string == "hellod")
    #expect(e.cursor == 5)
  }

  @Test func ctrlAEAndHomeEndMoveToTheEnds() {
    var e = editor("hello world")
    #expect(e.cursor == 11, "a new editor starts at the end")
    #expect(apply(.control("a"), to: &e))
    #expect(e.cursor == 0)
    #expect(apply(.control("e"), to: &e))
    #expect(e.cursor == 11)
    #expect(apply(.home, to: &e))
    #expect(e.cursor == 0)
    #expect(apply(.end, to: &e))
    #expect(e.cursor == 11)
  }

  @Test func arrowsAndCtrlBFMoveByOneAndStopAtTheEnds() {
    var e = editor("ab")
    #expect(apply(.right, to: &e))
    #expect(e.cursor == 2)
    #expect(apply(.left, .control("b"), .left, to: &e))
    #expect(e.cursor == 0)
    #expect(apply(.control("f"), to: &e))
    #expect(e.cursor == 1)
  }

  @Test func ctrlUDeletesToTheStartAndCtrlKToTheEnd() {
    var e = editor("hello world", cursor: 6)
    #expect(apply(.control("u"), to: &e))
    #expect(e.string == "world")
    #expect(e.cursor == 0)
    var k = editor("hello world", cursor: 5)
    #expect(apply(.control("k"), to: &k))
    #expect(k.string == "hello")
    #expect(k.cursor == 5)
  }

  @Test func ctrlWDeletesTheWordBeforeTheCursor() {
    var e = editor("mv old  name.txt")
    #expect(apply(.control("w"), to: &e))
    #expect(e.string == "mv old  ")
    #expect(apply(.control("w"), to: &e))
    #expect(e.string == "mv ", "spaces before the word go with it")
    e.cursor = 1
    #expect(apply(.control("w"), to: &e))
    #expect(e.string == "v ")
    #expect(e.cursor == 0)
    #expect(apply(.control("w"), to: &e))
    #expect(e.string == "v ")
  }

  @Test func backspaceAndDeleteRemoveAroundTheCursor() {
    var e = editor("abc", cursor: 1)
    #expect(apply(.backspace, to: &e))
    #expect(e.string == "bc" && e.cursor == 0)
    #expect(apply(.backspace, to: &e))
    #expect(e.string == "bc", "nothing before the cursor")
    #expect(apply(.delete, to: &e))
    #expect(e.string == "c")
    #expect(apply(.control("d"), to: &e))
    #expect(e.string == "")
    #expect(apply(.delete, to: &e))
  }

  @Test func wideAndCombiningCharactersAreOneStep() {
    var e = editor("漢e\u{301}👸🏼")
    #expect(e.text.count == 3)
    #expect(apply(.backspace, to: &e))
    #expect(e.string == "漢e\u{301}")
    #expect(apply(.left, .delete, to: &e))
    #expect(e.string == "漢")
  }

  @Test(arguments: [KeyEvent.enter, .escape, .tab, .up, .down, .pageUp, .function(1), .control("r")])
  func otherKeysAreNotEditingKeys(_ key: KeyEvent) {
    var e = editor("x")
    #expect(!apply(key, to: &e))
    #expect(e == editor("x"))
  }

  /// What the rename prompt relies on: every hostile name's escaped form gives its bytes back.
  @Test func escapedNamesGiveTheirBytesBack() {
    var names = Fixture.corpus.map(\.filename) + Fixture.trashed.map(\.filename)
    names += [[0x5C], [0x61, 0x5C, 0x5C, 0x78, 0x34, 0x31], [0xC0, 0xAF], [0xE2, 0x82], [0xED, 0xA0, 0x80], Array(0x01...0x1F)]
      .map { ItemName(bytes: $0) }
    names.append(ItemName("\\u{202E} \\x41 \\e"))
    for name in names {
      #expect(LineEditor.unescapedBytes(name.displayString) == name.bytes, "\(name.displayString)")
    }
    // Backslashes that are no escape are kept.
    #expect(LineEditor.unescapedBytes(#"a\b \x4 \u{} \u{110000} \"#) == Array(#"a\b \x4 \u{} \u{110000} \"#.utf8))
  }
}
