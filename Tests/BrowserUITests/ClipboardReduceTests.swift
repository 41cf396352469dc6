import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// Copy (`y`) and Paste (`p`): Folio's clipboard in the state, the paste effect, the menu entries
/// and the places a paste is refused.
@Suite struct ClipboardReduceTests {
  @Test func yCopiesTheItemUnderTheCursorWithoutAnyIO() {
    var s = Fixture.state()
    s.select("plain")
    #expect(s.press(.character("y")).isEmpty)
    #expect(s.clipboard == Clipboard(items: [corpus["plain"]!], domain: .local))
    #expect(s.message == StatusMessage("Copied “plain.txt” — p pastes"))
  }

  @Test func yCopiesTheMarkedItemsAndClearsTheMarks() {
    var s = Fixture.state()
    s.select("cjk")
    s.press(.character(" "))
    s.select("plain")
    s.press(.character(" "))
    s.press(.character("y"))
    #expect(s.clipboard?.items.map(\.identifier.rawValue) == ["cjk", "plain"])
    #expect(s.browse.marked.isEmpty)
    #expect(s.message?.text == "Copied 2 items — p pastes")
  }

  @Test func pPastesIntoTheFolderBeingBrowsedAndKeepsTheClipboard() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character("y"))
    let effects = s.press(.character("p"))
    #expect(effects == [.paste([corpus["plain"]!], from: .local, into: Fixture.start)])
    #expect(s.message?.text == "Pasting “plain.txt”…")
    #expect(s.clipboard?.items == [corpus["plain"]!], "the same items can be pasted again elsewhere")
  }

  @Test func pInAnotherLocationNamesTheSourceDomainAndTheNewFolder() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character("y"))
    // Work (WebDAV), from the sidebar.
    s.sidebar.focused = true
    s.sidebar.cursor = 2
    s.press(.enter)
    let work = Fixture.locations[1].root
    #expect(s.browse.location == .folder(work))
    #expect(s.press(.character("p")) == [.paste([corpus["plain"]!], from: .local, into: work)])
  }

  @Test func pWithNothingCopiedSaysHowToCopy() {
    var s = Fixture.state()
    #expect(s.press(.character("p")).isEmpty)
    #expect(s.message == StatusMessage("Nothing to paste: y copies the selection first", isError: true))
  }

  @Test func pasteIsRefusedInRecentsAndRecentlyDeleted() {
    var s = Fixture.state()
    s.press(.character("y"))
    s.press(.character("2"))
    #expect(s.tab == .recents)
    #expect(s.press(.character("p")).isEmpty)
    #expect(s.message == StatusMessage("Cannot paste into Recents: open a folder first", isError: true))

    var t = Fixture.trashState()
    t.clipboard = Clipboard(items: [corpus["plain"]!], domain: .local)
    #expect(t.press(.character("p")).isEmpty)
    #expect(t.message == StatusMessage("Cannot paste into Recently Deleted", isError: true))
    #expect(t.menu == nil)
  }

  @Test func itemsInRecentlyDeletedCannotBeCopied() {
    var s = Fixture.trashState()
    #expect(s.press(.character("y")).isEmpty)
    #expect(s.clipboard == nil)
    #expect(s.message?.isError == true)
  }

  @Test func theMenuOffersCopyAndPasteOnlyWithSomethingToPaste() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character("m"))
    var titles = s.menu?.entries.map(\.title) ?? []
    #expect(titles.contains("Copy"))
    #expect(!titles.contains("Paste"))
    // The menu's own key: y runs Copy.
    #expect(s.press(.character("y")).isEmpty)
    #expect(s.overlay == nil)
    #expect(s.clipboard?.items == [corpus["plain"]!])

    s.press(.character("m"))
    titles = s.menu?.entries.map(\.title) ?? []
    #expect(titles.firstIndex(of: "Paste") == titles.firstIndex(of: "Copy").map { $0 + 1 })
    #expect(s.press(.character("p")) == [.paste([corpus["plain"]!], from: .local, into: Fixture.start)])
    #expect(s.overlay == nil)
  }

  @Test func theMenuOfAnEmptyFolderOffersPasteOnceSomethingIsCopied() {
    var s = Fixture.state(items: [])
    s.press(.character("m"))
    #expect(s.menu?.entries.map(\.title) == ["New Folder…"])
    s.press(.escape)
    s.clipboard = Clipboard(items: [corpus["plain"]!], domain: Fixture.work)
    s.press(.character("m"))
    #expect(s.menu?.entries.map(\.title) == ["New Folder…", "Paste"])
    s.press(.down)
    #expect(s.press(.enter) == [.paste([corpus["plain"]!], from: Fixture.work, into: Fixture.start)])
  }

  @Test func theSidebarIgnoresCopyAndPaste() {
    var s = Fixture.state()
    s.clipboard = Clipboard(items: [corpus["plain"]!], domain: .local)
    s.sidebar.focused = true
    #expect(s.press(.character("p")).isEmpty)
    #expect(s.press(.character("y")).isEmpty)
    #expect(s.clipboard?.items == [corpus["plain"]!])
  }

  @Test func copyAndPasteAreBindableAndInTheHelp() {
    #expect(KeyMap.standard.keys(for: .copy) == ["y"])
    #expect(KeyMap.standard.keys(for: .paste) == ["p"])
    // Not ctrl-c: it always quits (KeyMapTests.ctrlCAlwaysQuitsAndCtrlZCannotBeBound).
    let (map, problems) = KeyMap.standard.overridden(by: ["copy": ["ctrl-k"], "paste": ["ctrl-v", "P"]])
    #expect(problems.isEmpty)
    #expect(map.command(for: .control("k")) == .copy)
    #expect(map.command(for: .character("y")) == nil)
    #expect(map.keys(for: .paste) == ["ctrl-v", "P"])
    let screen = AppView.render({
      var s = Fixture.state(width: 200, height: 50)
      s.press(.character("?"))
      return s
    }()).textLines().joined(separator: "\n")
    #expect(screen.contains("Copy (to Folio's clipboard)"))
    #expect(screen.contains("Paste into this folder"))
  }
}
