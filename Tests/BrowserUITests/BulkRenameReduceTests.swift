import ProviderAPI
import Testing

@testable import BrowserUI

/// Rename in Editor (R): what the reducer asks for, and what it does when the rename ends.
@Suite struct BulkRenameReduceTests {
  @Test func rWithNothingMarkedAsksForTheWholeFolderAsListed() {
    var s = Fixture.state()
    s.select("plain")
    guard case .folder(let folder) = s.browse.location else {
      Issue.record("not in a folder")
      return
    }
    #expect(s.press(.character("R")) == [.bulkRename(nil, in: folder, sort: s.sort, includeHidden: s.showHidden)])
    #expect(s.overlay == nil)
  }

  @Test func rWithMarksAsksForTheMarkedItemsInListOrder() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character(" "))
    s.select("cjk")
    s.press(.character(" "))
    guard case .bulkRename(let items, _, _, _)? = s.press(.character("R")).first else {
      Issue.record("no bulk rename")
      return
    }
    // cjk is listed before plain.txt: the file's lines follow the list, not the order of marking.
    #expect(items == [corpus["cjk"]!, corpus["plain"]!])
  }

  @Test func theMenuOffersRenameInEditorWithItsKey() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character(" "))
    s.select("cjk")
    s.press(.character(" "), .character("m"))
    #expect(s.menu?.entries.contains(MenuEntry("Rename in Editor…", key: "R", .bulkRename)) == true)
    guard case .bulkRename(let items, _, _, _)? = s.press(.character("R")).first else {
      Issue.record("the menu's R did not ask for a bulk rename")
      return
    }
    #expect(items?.count == 2)
  }

  @Test func outsideAFolderItSaysWhereItWorks() {
    var s = Fixture.state()
    s.press(.tab)  // Recents
    #expect(s.press(.character("R")).isEmpty)
    #expect(s.message?.isError == true)
    var t = Fixture.trashState()
    #expect(t.press(.character("R")).isEmpty)
  }

  @Test func itCanBeBoundInKeys() {
    var s = Fixture.state()
    let (map, problems) = s.keyMap.overridden(by: ["bulk-rename": ["ctrl-e"]])
    #expect(problems.isEmpty)
    s.keyMap = map
    #expect(s.press(.character("R")).isEmpty, "R is free once bulk-rename has another key")
    guard case .bulkRename? = s.press(.control("e")).first else {
      Issue.record("ctrl-e does not rename in the editor")
      return
    }
  }

  @Test func anEndWithNothingRenamedKeepsTheMarks() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character(" "))
    let effects = s.reduce(.bulkRenameEnded(StatusMessage("vi exited with status 1: nothing was renamed", isError: true), renamedAny: false))
    #expect(effects.isEmpty)
    #expect(s.browse.marked == [ItemIdentifier("plain")])
    #expect(s.message?.text == "vi exited with status 1: nothing was renamed")
  }

  @Test func anEndWithRenamesReloadsAndClearsTheMarks() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character(" "))
    let effects = s.reduce(.bulkRenameEnded(StatusMessage("Renamed 3 items"), renamedAny: true))
    #expect(s.browse.marked.isEmpty)
    #expect(effects.contains { if case .enumerate = $0 { return true } else { return false } })
    #expect(s.message == StatusMessage("Renamed 3 items"))
  }
}
