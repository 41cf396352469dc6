import Testing

@testable import BrowserUI

/// A cell's text as plain bits: what goes in comes out byte for byte, inline or in the table.
@Suite struct CellTextTests {
  init() { _ = Snapshots.setUp }

  @Test(arguments: [
    "", " ", "a", "…", "漢", "e\u{301}", "\u{E9}", "🇫🇷",
    "abcdefghijklmno",  // 15 bytes: the longest inline
    "abcdefghijklmnop",  // 16 bytes: the table
    "👨‍👩‍👧‍👦", "a\u{301}\u{302}\u{303}\u{304}\u{305}\u{306}\u{307}",
  ])
  func keepsTheBytes(_ text: String) {
    let cell = Cell(text)
    #expect(Array(cell.text.utf8) == Array(text.utf8))
    #expect(Cell(text) == cell)
  }

  @Test func aPrecomposedAndADecomposedAccentStayApart() {
    // String equality would call them equal; the cell keeps what the view drew.
    #expect(Cell("\u{E9}") != Cell("e\u{301}"))
    #expect(Array(Cell("e\u{301}").text.unicodeScalars) == ["e", "\u{301}"])
  }

  @Test func onlyOneASCIICharacterHasAnASCIIByte() {
    #expect(Cell("a").asciiByte == UInt8(ascii: "a"))
    #expect(Cell("é").asciiByte == nil)
    #expect(Cell("ab").asciiByte == nil)
    #expect(Cell("").asciiByte == nil)
  }

  @Test(arguments: [1, 2, 5, 11, 12, 40])
  func printableASCIIIsCutAsTruncateCutsIt(_ columns: Int) {
    let name = "f0000001.txt"
    for ascii in [false, true] {
      var screen = Screen(width: 40, height: 1)
      let used = screen.put(name, x: 0, y: 0, maxWidth: columns, role: .listRow, ascii: ascii)
      let expected = DisplayWidth.truncate(name, to: columns, ellipsis: ascii ? "~" : "…")
      #expect(used == DisplayWidth.width(of: expected))
      #expect(screen.textLines()[0].hasPrefix(expected))
      #expect(screen.textLines()[0].dropFirst(expected.count).allSatisfy { $0 == " " })
    }
  }
}
