import ProviderAPI
import Testing

@testable import BrowserUI

/// Issue 9: Recents, a tag's list, search results and favorites name items by identifier and a
/// last known path; the reducer asks the app to resolve an entry before acting on it.
@Suite struct WorkingSetEntriesReduceTests {
  static func recentsState(width: Int = 80, height: Int = 24) -> AppState {
    var s = Fixture.state(width: width, height: height)
    s.press(.tab)
    _ = s.reduce(.recentsChanged(Fixture.recents))
    return s
  }

  @Test func enterOnARecentAsksForItsItemInsteadOfOpeningItsPath() {
    var s = Self.recentsState()
    let row = s.recentsRows[0]
    #expect(s.press(.enter) == [.openEntry(row)])
  }

  @Test func aFoundFileOpensWhereItIsNowAndSaysItWasFollowed() {
    var s = Self.recentsState()
    let row = s.recentsRows[0]
    var moved = row.item
    moved.path = row.item.path.parent.appending(ItemName("renamed.txt"))
    moved.filename = ItemName("renamed.txt")
    #expect(s.reduce(.entryFound(row, moved)) == [.open(moved, row.domain)])
    #expect(s.message?.text.contains("is now “renamed.txt”: followed") == true)
    #expect(s.message?.text.contains("renamed.txt") == true)
    // Found where it was: opened, nothing said.
    s.message = nil
    #expect(s.reduce(.entryFound(row, row.item)) == [.open(row.item, row.domain)])
    #expect(s.message == nil)
  }

  @Test func aFoundFolderIsShownInBrowse() {
    var s = Self.recentsState()
    let row = Fixture.favorites[0]
    let effects = s.reduce(.entryFound(row, row.item))
    #expect(s.tab == .browse)
    #expect(
      effects.enumerations.first?.location
        == .folder(FolderLocation(domain: row.domain, identifier: row.item.identifier, path: row.item.path, name: "Documents")))
  }

  @Test func aGoneEntryIsOfferedForRemovalAndRemovedOnlyWhenConfirmed() {
    var s = Self.recentsState()
    let row = s.recentsRows[0]
    #expect(s.reduce(.entryGone(row, ProviderError(.noSuchItem, "gone"))) == [])
    guard case .confirm(let c) = s.overlay else {
      Issue.record("no question asked")
      return
    }
    #expect(c.message.contains(row.item.filename.displayString) && c.message.contains("no longer in"))
    // The question wraps inside its box at 80x24: its end and the keys are on screen.
    let text = AppView.render(s).textLines().joined(separator: "\n")
    #expect(text.contains("Favorites and Tags?") && text.contains("y Remove") && !text.contains("enter/y"), "\(text)")
    // Enter does not remove (it comes right after the Enter that opened the entry).
    #expect(s.press(.enter) == [])
    #expect(s.overlay != nil)
    #expect(s.press(.escape) == [])
    #expect(s.overlay == nil)
    _ = s.reduce(.entryGone(row, ProviderError(.noSuchItem, "gone")))
    #expect(s.press(.character("y")) == [.forgetEntry(row)])
  }

  @Test func aDeletedRecentIsNotOpened() {
    var s = Fixture.state()
    s.press(.tab)
    var row = Fixture.recents[0]
    row.isDeleted = true
    _ = s.reduce(.recentsChanged([row]))
    #expect(s.press(.enter) == [])
    #expect(s.message?.text.contains("Recently Deleted") == true)
  }

  @Test func ctrlRInRecentsChecksTheEntriesAndMarksTheMissingOnes() {
    var s = Self.recentsState(width: 200, height: 50)
    let rows = s.recentsRows
    #expect(s.press(.control("r")) == [.loadRecents(tag: nil), .checkEntries(rows)])
    let key = ItemKey(rows[1].domain, rows[1].item.identifier)
    _ = s.reduce(.entriesChecked(followed: 1, missing: [key]))
    #expect(s.recents.missing == [key])
    #expect(s.message?.text.contains("1 followed") == true && s.message?.text.contains("1 can no longer be found") == true)
    let lines = AppView.render(s).textLines()
    #expect(lines.contains { $0.contains("(missing)") }, "\(lines.joined(separator: "\n"))")
    // Found again (Enter on it after the file came back): no longer marked.
    _ = s.reduce(.entryFound(rows[1], rows[1].item))
    #expect(s.recents.missing.isEmpty)
  }

  @Test func aMenuOperationOnAGoneRecentOffersToRemoveIt() {
    var s = Self.recentsState()
    let row = s.recentsRows[0]
    let gone = ProviderError(.noSuchItem, "no such item")
    _ = s.reduce(.operationFailed(gone, from: .trash([row.item], row.domain)))
    guard case .confirm(let c) = s.overlay else {
      Issue.record("no offer to remove the entry")
      return
    }
    #expect(c.effect == .forgetEntry(row))
    // Another row's failure, or another error, is only said.
    s.overlay = nil
    _ = s.reduce(.operationFailed(ProviderError(.noPermission, "denied"), from: .trash([row.item], row.domain)))
    #expect(s.overlay == nil)
    _ = s.reduce(.operationFailed(gone, from: .trash([s.recentsRows[1].item], row.domain)))
    #expect(s.overlay == nil)
  }

  /// Review of issue 10: on an SSH host (no trash) d only said "no trash; delete instead", and
  /// nothing deleted. There, d and the menu's entry ask to delete for good.
  @Test func deletingWhereThereIsNoTrashAsksToDeleteForGood() {
    var s = Fixture.state()
    s.sidebar.locations[0].hasTrash = false
    let item = s.currentItem!
    #expect(s.press(.character("d")) == [])
    guard case .confirm(let c) = s.overlay else {
      Issue.record("no question")
      return
    }
    #expect(c.message.contains("forever") && c.effect == .deleteForever([item], s.currentDomain))
    #expect(!s.sidebar.entries.contains(.trash(s.sidebar.locations[0].domain)) || s.sidebar.locations.count == 1)
  }
}
