import ProviderAPI
import Testing

@testable import BrowserUI

/// The cell grid and terminal widths under the views.
@Suite struct ScreenTests {
  init() { _ = Snapshots.setUp }

  @Test func widthsFollowWcwidthPerGraphemeCluster() {
    #expect(DisplayWidth.width(of: "abc") == 3)
    #expect(DisplayWidth.width(of: "漢字") == 4)
    #expect(DisplayWidth.width(of: "e\u{301}") == 1)
    #expect(DisplayWidth.width(of: "Z" + String(repeating: "\u{301}", count: 50)) == 1)
    #expect(DisplayWidth.width(of: "👸🏼") == 2)
    #expect(DisplayWidth.width(of: "🧝🏾‍♀️") == 2)
    #expect(DisplayWidth.width(of: "🇯🇵") == 2)
    #expect(DisplayWidth.width(of: "／？") == 4)
    #expect(DisplayWidth.width(of: "\u{200B}") == 0)
  }

  /// Truncation never splits a character and always fits.
  @Test func truncationFitsAndNeverSplitsACharacter() {
    for item in Fixture.corpus {
      let name = item.filename.displayString
      for columns in 0...60 {
        let t = DisplayWidth.truncate(name, to: columns)
        #expect(DisplayWidth.width(of: t) <= columns, "\(name) in \(columns)")
        if DisplayWidth.width(of: name) <= columns {
          #expect(t == name)
        } else if columns > 1 {
          #expect(t.hasSuffix("…"))
          #expect(name.hasPrefix(String(t.dropLast())), "\(t) is not a prefix of \(name)")
          #expect(DisplayWidth.width(of: t) >= columns - 1, "at most one column lost to a wide character")
        }
      }
    }
    #expect(DisplayWidth.truncate("abc", to: 1) == "…")
    #expect(DisplayWidth.truncate("漢字漢字", to: 4, ellipsis: "~") == "漢~")
    #expect(DisplayWidth.pad("漢字", to: 6, alignRight: true) == "  漢字")
  }

  @Test func drawingOverHalfAWideCharacterBlanksTheOtherHalf() {
    var screen = Screen(width: 6, height: 2)
    screen.put("漢字漢", x: 0, y: 0, role: .listRow)
    screen.put("|", x: 1, y: 0, role: .menuBorder)  // over the second half of 漢
    #expect(screen.textLines()[0] == " |字漢")
    screen.put("x", x: 2, y: 0, role: .menuBorder)  // over the first half of 字
    #expect(screen.textLines()[0] == " |x 漢")
    screen.put("字", x: 3, y: 0, role: .listRow)  // a wide one across the blank and half of 漢
    #expect(screen.textLines()[0] == " |x字 ")
    screen.put("漢字漢", x: 0, y: 1, role: .listRow)
    screen.fill(x: 1, y: 1, width: 3, height: 1, role: .menu)
    #expect(screen.textLines()[1] == "    漢")
    #expect(screenProblems(screen).isEmpty)
  }

  @Test func rawControlsReachingTheScreenAreEscaped() {
    var screen = Screen(width: 30, height: 1)
    screen.put("a\u{1B}[2Jb\u{9B}c\u{202E}d\u{7F}", x: 0, y: 0, role: .normal)
    #expect(screen.textLines()[0].hasPrefix(#"a\e[2Jb\u{9B}c\u{202E}d\x7F"#))
    #expect(screenProblems(screen).isEmpty)
  }

  @Test func asciiScreensSpellTheInterfacePunctuationInASCII() {
    var screen = Screen(width: 30, height: 1)
    screen.asciiOnly = true
    screen.put("Rename… · “x” ↑↓ ✓ 漢", x: 0, y: 0, role: .normal)
    // Other characters (of names) are written as TerminalText writes what it cannot show.
    #expect(screen.textLines()[0] == #"Rename... - "x" ^v x \u{6F22} "#)
    screen.put("a very long text that does not fit", x: 0, y: 0, role: .normal)
    #expect(screen.textLines()[0].hasSuffix("~"))
  }

  @Test func zeroWidthCharactersJoinTheCellBeforeThem() {
    var screen = Screen(width: 8, height: 1)
    let used = screen.put("fi\u{301}le", x: 0, y: 0, role: .normal)
    #expect(used == 4)
    #expect(screen[1, 0].text == "i\u{301}")
    #expect(screenProblems(screen).isEmpty)
    // An invisible one that would hide in a name is shown escaped instead.
    var other = Screen(width: 16, height: 1)
    #expect(other.put("fi\u{200B}le", x: 0, y: 0, role: .normal) == 12)
    #expect(other.textLines()[0].hasPrefix(#"fi\u{200B}le"#))
  }

  @Test func theStyleLayerRecordsRunsOfRoles() {
    var screen = Screen(width: 10, height: 1)
    screen.put("ab", x: 2, y: 0, role: .badgeError)
    screen.put("漢", x: 6, y: 0, role: .tagRed)
    #expect(screen.styleLines() == ["0-1:normal 2-3:badgeError 4-5:normal 6-7:tagRed 8-9:normal"])
  }

  @Test func everyBadgeHasAGlyphInBothSetsAndARole() {
    let all: [Badge] = [.none, .notDownloaded, .downloading, .uploading, .queued, .error, .conflict, .pinned, .excluded]
    let shown = Set(Fixture.corpus.map { Badge.of($0) })
    #expect(shown == Set(all), "the corpus shows every badge")
    for b in all where b != .none {
      #expect(DisplayWidth.width(of: b.glyph(.unicode)) == 1, "\(b)")
      #expect(b.glyph(.ascii).unicodeScalars.allSatisfy { $0.isASCII })
      #expect(b.glyph(.ascii).count == 1)
    }
    let g = Glyphs.ascii
    let asciiGlyphs = [g.shared, g.favorite, g.tagDot, g.marked, g.ellipsis, g.separator, g.boxTopLeft, g.boxHorizontal, g.boxVertical] + g.spinner
    #expect(asciiGlyphs.allSatisfy { $0.unicodeScalars.allSatisfy { $0.isASCII } })
    #expect(Badge.tagRole("Grey") == .tagGray)
    #expect(Badge.tagRole("RED") == .tagRed)
    #expect(Badge.tagRole("work") == .tagCustom)
  }
}

/// The pages of a folder held by the UI.
@Suite struct PagedListTests {
  @Test func countMissingPagesAndEviction() {
    var list = PagedList(pageSize: 10)
    #expect(list.isEmpty)
    list.store(offset: 0, items: Fixture.numbered(0..<10), total: nil, isComplete: false)
    list.store(offset: 20, items: Fixture.numbered(20..<30), total: nil, isComplete: false)
    #expect(list.count == 30, "rows known so far, a gap included")
    #expect(!list.hasRow(15) && list.item(at: 15) == nil)
    #expect(list.item(at: 21)?.identifier == ItemIdentifier("n21"))
    #expect(list.missingPages(for: 0..<45) == 1...4)
    #expect(list.missingPages(for: 0..<10) == nil)
    #expect(list.missingPages(for: 5..<5) == nil)
    list.store(offset: 30, items: Fixture.numbered(30..<34), total: nil, isComplete: true)
    #expect(list.complete && list.total == 34)
    #expect(list.index(of: ItemIdentifier("n33")) == 33)
    #expect(list.index(ofPath: Fixture.home.appending(ItemName("file-000022"))) == 22)
    list.evict(around: 33, radius: 1)
    #expect(list.pages.keys.sorted() == [2, 3])
    #expect(list.loadedItems.map(\.identifier.rawValue).first == "n20")
  }
}
