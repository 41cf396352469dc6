import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

extension AppState {
  var menu: MenuState? { if case .menu(let m) = overlay { return m } else { return nil } }
  var prompt: PromptState? { if case .prompt(let p) = overlay { return p } else { return nil } }
  var confirmation: ConfirmState? { if case .confirm(let c) = overlay { return c } else { return nil } }
  var tagPicker: TagPickerState? { if case .tagPicker(let t) = overlay { return t } else { return nil } }

  /// Puts the cursor on the corpus item with this identifier.
  mutating func select(_ id: String) {
    guard let i = browse.list.index(of: ItemIdentifier(id)) else {
      Issue.record("no item \(id)")
      return
    }
    _ = moveCursor(to: i)
  }
}

let corpus = Dictionary(uniqueKeysWithValues: Fixture.corpus.map { ($0.identifier.rawValue, $0) })

/// The context menu, its commands, prompts, pickers, confirmations, Recently Deleted, help, quit.
@Suite struct AppStateMenuTests {
  @Test func theMenuOfAFileOffersItsCommandsAndTheMatchingCustomActions() {
    var s = Fixture.state()
    s.select("plain")
    #expect(s.press(.character("m")).isEmpty)
    #expect(s.menu?.title == "plain.txt")
    #expect(
      s.menu?.entries.map(\.title) == [
        "Open", "Open With…", "Info", "Rename…", "Rename in Editor…", "Move To…", "Copy", "Tags…", "Unfavorite", "New Folder…",
        "Delete",
        "Compress with \\e[1mzstd",
      ])
    #expect(s.menu?.entries.last?.command == .custom(ActionIdentifier("compress")))
    #expect(s.menu?.items == [corpus["plain"]!])
    #expect(s.menu?.domain == .local)
  }

  @Test func theMenuOfAFolderHasNoOpenWithAndOnlyActionsForFolders() {
    var s = Fixture.state()
    s.press(.menu)  // the Menu key, on Documents
    let titles = s.menu?.entries.map(\.title) ?? []
    #expect(titles.first == "Open")
    #expect(!titles.contains("Open With…"))
    #expect(titles.contains("Unfavorite"), "Documents is a favorite")
    #expect(titles.last == "Count files")
    #expect(!titles.contains { $0.hasPrefix("Compress") })
    #expect(!titles.contains("Copy share link"), "an action of another domain")
  }

  @Test func aMultipleSelectionMenuAppliesRulesToEveryItem() {
    var s = Fixture.state()
    s.select("cjk")
    s.press(.character(" "))
    s.select("plain")
    s.press(.character(" "), .character("m"))
    #expect(s.menu?.title == "2 items")
    #expect(s.menu?.entries.map(\.title) == ["Open", "Rename in Editor…", "Move To…", "Copy", "Tags…", "Favorite", "New Folder…", "Delete", "Compress with \\e[1mzstd"])
    // With a folder in the selection the .txt rule no longer holds for every item.
    s.press(.escape)
    s.select("f-docs")
    s.press(.character(" "), .character("m"))
    #expect(s.menu?.title == "3 items")
    let titles = s.menu?.entries.map(\.title) ?? []
    #expect(!titles.contains { $0.hasPrefix("Compress") })
    #expect(!titles.contains("Count files"))
  }

  @Test func rightClickOpensTheMenuAndEscQOrMCloseIt() {
    var s = Fixture.state()
    for close: KeyEvent in [.escape, .character("q"), .character("m"), .menu] {
      s.press(.mouseRightClick(x: 30, y: 5))
      #expect(s.menu != nil)
      #expect(s.press(close).isEmpty)
      #expect(s.overlay == nil)
      #expect(!s.isQuitting, "q in a menu closes the menu, it does not quit")
    }
  }

  @Test func menuEnterRunsTheEntryUnderTheCursorAndHotkeysRunTheirs() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character("m"), .down, .down)  // Info
    s.press(.enter)
    #expect(s.overlay == .info(corpus["plain"]!, location: "This Computer", domain: .local))
    s.press(.character("x"))
    #expect(s.overlay == nil, "any key closes Info")

    #expect(s.press(.character("m"), .character("f")) == [.setFavorite(corpus["plain"]!, false, .local)])
    #expect(s.overlay == nil)
    #expect(s.press(.character("m"), .character("d")) == [.trash([corpus["plain"]!], .local)])
    #expect(s.press(.character("m"), .enter) == [.open(corpus["plain"]!, .local)])
    #expect(s.press(.character("m"), .character("G"), .character("k")).isEmpty, "keys the menu does not know do nothing")
    s.press(.escape)
    #expect(s.press(.character("m"), .up, .up, .up, .up) == [])
    #expect(s.menu?.cursor == 0)
    for _ in 0..<20 { s.press(.down) }
    #expect(s.menu?.cursor == 11)
    #expect(s.press(.enter) == [.runAction(ActionIdentifier("compress"), [corpus["plain"]!], .local)])
  }

  @Test func directKeysReachTheCommonCommands() {
    var s = Fixture.state()
    s.select("cjk")
    #expect(s.press(.character("f")) == [.setFavorite(corpus["cjk"]!, true, .local)])
    #expect(s.press(.character("i")).isEmpty)
    #expect(s.overlay == .info(corpus["cjk"]!, location: "This Computer", domain: .local))
    s.press(.escape)
    s.press(.character("r"))
    #expect(s.prompt?.purpose == .rename(corpus["cjk"]!, .local))
    s.press(.escape)
    s.press(.character("t"))
    #expect(s.tagPicker != nil)
    s.press(.escape)
    #expect(s.press(.character("d")) == [.trash([corpus["cjk"]!], .local)])
    #expect(s.press(.delete) == [.trash([corpus["cjk"]!], .local)])
  }

  @Test func deletingTheMarkedItemsTrashesThemAllAndClearsTheMarks() {
    var s = Fixture.state()
    s.press(.character(" "), .character(" "))
    let effects = s.press(.character("d"))
    #expect(effects == [.trash([corpus["f-docs"]!, corpus["f-photos"]!], .local)])
    #expect(s.browse.marked.isEmpty)
  }

  // MARK: Rename

  @Test func renameSendsTheNewNameAndKeepsThePromptUntilItSucceeds() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character("m"), .character("r"))
    #expect(s.prompt?.editor.string == "plain.txt")
    #expect(s.prompt?.editor.cursor == 9)
    s.press(.control("w"))
    s.type("notes.md")
    let effects = s.press(.enter)
    #expect(effects == [.rename(corpus["plain"]!, ItemName("notes.md"), .local)])
    #expect(s.prompt != nil, "the prompt waits for the answer")

    // A collision: the prompt stays, with the reason, and the status line says it too.
    let collision = ProviderError(.filenameCollision, "“notes.md” already exists", existingItem: ItemIdentifier("x"))
    #expect(s.reduce(.operationFailed(collision, from: effects[0])) == [.refreshSidebar])
    #expect(s.prompt?.error == "“notes.md” already exists")
    #expect(s.message == StatusMessage("“notes.md” already exists", isError: true))
    // Editing clears the reason; Enter tries again.
    s.press(.backspace, .backspace)
    #expect(s.prompt?.error == nil)
    s.type("txt")
    let again = s.press(.enter)
    #expect(again == [.rename(corpus["plain"]!, ItemName("notes.txt"), .local)])

    // Success closes it, reloads with the renamed item selected, refreshes the sidebar and Recents.
    let old = s.browse.ticket
    let done = s.reduce(
      .operationSucceeded(message: "Renamed to notes.txt", reload: true, select: ItemIdentifier("plain"), from: again[0]))
    #expect(s.overlay == nil)
    #expect(s.message?.text == "Renamed to notes.txt")
    #expect(done.first == .closeEnumeration(ticket: old))
    #expect(done.enumerations.count == 1)
    #expect(done.suffix(2) == [.refreshSidebar, .loadRecents(tag: nil)])
    #expect(s.browse.pendingSelection == ItemIdentifier("plain"))
  }

  @Test func anUnchangedOrEmptyNameSendsNothing() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character("r"))
    #expect(s.press(.enter).isEmpty)
    #expect(s.overlay == nil, "unchanged: the prompt just closes")
    s.press(.character("r"), .control("u"))
    #expect(s.press(.enter).isEmpty)
    #expect(s.prompt != nil, "empty: nothing to do, the prompt stays")
    s.press(.escape)
    #expect(s.overlay == nil)
  }

  @Test func renamingAnEscapedNameKeepsTheBytesItStandsFor() {
    var s = Fixture.state()
    s.select("invalid")  // caf\xE9 \xFE \x9B[31m.txt
    s.press(.character("r"))
    #expect(s.prompt?.editor.string == #"caf\xE9 \xFE \x9B[31m.txt"#)
    s.press(.home)
    s.type("old ")
    let name = Array("old caf".utf8) + [0xE9, 0x20, 0xFE, 0x20, 0x9B] + Array("[31m.txt".utf8)
    #expect(s.press(.enter) == [.rename(corpus["invalid"]!, ItemName(bytes: name), .local)])

    var t = Fixture.state()
    t.select("c0")  // line\nbreak\ttab\r.txt
    t.press(.character("r"), .end)
    t.type("2")
    #expect(t.press(.enter) == [.rename(corpus["c0"]!, ItemName("line\nbreak\ttab\r.txt2"), .local)])
    // Leaving an escaped name as it is changes nothing.
    t.press(.escape, .character("r"))
    #expect(t.press(.enter).isEmpty)
    #expect(t.overlay == nil)
  }

  @Test func aPlainNameIsTakenAsTyped() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character("r"), .control("u"))
    s.type(#"C:\new\x41"#)
    #expect(s.press(.enter) == [.rename(corpus["plain"]!, ItemName(#"C:\new\x41"#), .local)])
  }

  /// Any failure of the rename shows in the rename box, which stays open: not only collisions.
  @Test func everyFailureOfTheRenameShowsInItsBox() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character("r"))
    s.type("x")
    let rename = s.press(.enter)
    _ = s.reduce(.operationFailed(ProviderError(.noPermission, "permission denied"), from: rename[0]))
    #expect(s.message == StatusMessage("permission denied", isError: true))
    #expect(s.prompt?.error == "permission denied")
    #expect(s.prompt?.editor.string == "plain.txtx", "the editor stays open with the name typed")
  }

  /// Answers to other operations leave an open prompt alone: a tag change finishing while the
  /// rename box is open neither closes it nor puts its error in it.
  @Test func onlyThePromptsOwnOperationClosesItOrShowsItsError() {
    var s = Fixture.state()
    s.select("plain")
    let tagging = Effect.setTags([corpus["plain"]!], add: ["Red"], remove: [], .local)
    s.press(.character("r"))
    s.type("2")
    _ = s.reduce(.operationSucceeded(message: nil, reload: true, select: nil, from: tagging))
    #expect(s.prompt?.editor.string == "plain.txt2", "another operation's success leaves the box open")
    _ = s.reduce(.operationFailed(ProviderError(.filenameCollision, "“x” already exists"), from: tagging))
    #expect(s.prompt?.error == nil, "another operation's error stays on the status line")
    #expect(s.message?.isError == true)
    // A rename of another item is not this prompt's either.
    _ = s.reduce(.operationSucceeded(message: nil, reload: false, select: nil, from: .rename(corpus["cjk"]!, ItemName("y"), .local)))
    #expect(s.prompt != nil)
    // Its own answer closes it.
    let rename = s.press(.enter)
    _ = s.reduce(.operationSucceeded(message: "Renamed", reload: true, select: nil, from: rename[0]))
    #expect(s.overlay == nil)
  }

  @Test func newFolderAsksForANameInTheCurrentFolder() {
    var s = Fixture.state()
    s.press(.character("n"))
    #expect(s.prompt?.editor.string == "untitled folder")
    s.press(.control("u"))
    s.type("Reports 2026")
    #expect(s.press(.enter) == [.makeFolder(ItemName("Reports 2026"), in: Fixture.start)])
  }

  /// The proposed name is selected: typing replaces it, Enter takes it, a movement key keeps it
  /// for editing.
  @Test func newFolderProposesANameThatTypingReplaces() {
    var s = Fixture.state()
    s.press(.character("n"))
    s.type("New Stuff")
    #expect(s.press(.enter) == [.makeFolder(ItemName("New Stuff"), in: Fixture.start)])

    s = Fixture.state()
    s.press(.character("n"))
    #expect(s.press(.enter) == [.makeFolder(ItemName("untitled folder"), in: Fixture.start)])

    s = Fixture.state()
    s.press(.character("n"), .end)
    s.type(" 2")
    #expect(s.press(.enter) == [.makeFolder(ItemName("untitled folder 2"), in: Fixture.start)])

    s = Fixture.state()
    s.press(.character("n"), .backspace)
    #expect(s.prompt?.editor.string == "")
  }

  /// A folder made (or an item renamed) with a hidden name while hidden items are off left no
  /// trace: the status line says it is there, hidden, and which key shows it.
  @Test func aNewHiddenFolderSaysItIsHiddenAndHowToShowIt() {
    var s = Fixture.state()
    s.press(.character("n"), .control("u"))
    s.type(".secrets")
    let made = s.press(.enter)
    #expect(made == [.makeFolder(ItemName(".secrets"), in: Fixture.start)])
    _ = s.reduce(.operationSucceeded(message: nil, reload: true, select: ItemIdentifier("new"), from: made[0]))
    #expect(s.overlay == nil)
    #expect(s.message == StatusMessage(".secrets is hidden (its name starts with '.'): press . to show hidden items"))

    s.select("plain")
    s.press(.character("m"))
    let rename = Effect.rename(corpus["plain"]!, ItemName(".plain"), .local)
    _ = s.reduce(.operationSucceeded(message: "Renamed to .plain", reload: true, select: nil, from: rename))
    #expect(s.message?.text.contains("press . to show hidden items") == true, "\(String(describing: s.message))")

    // Shown, or not hidden: nothing more to say.
    var shown = Fixture.state()
    shown.showHidden = true
    _ = shown.reduce(.operationSucceeded(message: nil, reload: true, select: nil, from: .makeFolder(ItemName(".x"), in: Fixture.start)))
    #expect(shown.message == nil)
    _ = shown.reduce(.operationSucceeded(message: nil, reload: true, select: nil, from: .makeFolder(ItemName("x"), in: Fixture.start)))
    #expect(shown.message == nil)
  }

  // MARK: Tags

  @Test func theTagPickerTogglesATagOnEveryItem() throws {
    var s = Fixture.state()
    s.select("cjk")  // Red, Green
    s.press(.character(" "))
    s.select("emoji")  // no tags
    s.press(.character(" "), .character("t"))
    let picker = try #require(s.tagPicker)
    #expect(picker.tags.map(\.name).prefix(7) == ["Red", "Orange", "Yellow", "Green", "Blue", "Purple", "Gray"])
    #expect(picker.tags.map(\.name).dropFirst(7) == ["work", "\u{1B}]0;x\u{07}evil", "a very long custom tag name indeed"])
    #expect(picker.tags[0].mark == .some)
    #expect(picker.tags[1].mark == .none)

    // Red is on one of the two: Enter puts it on both.
    let add = s.press(.enter)
    guard case .setTags(let items, let added, let removed, let d)? = add.first else {
      Issue.record("no setTags: \(add)")
      return
    }
    #expect(added == ["Red"] && removed.isEmpty && d == .local)
    #expect(items.map(\.identifier.rawValue) == ["cjk", "emoji"])
    #expect(items.allSatisfy { $0.tags.contains("Red") })
    #expect(s.tagPicker?.tags[0].mark == .all)
    // Again: off everywhere.
    guard case .setTags(_, let added2, let removed2, _)? = s.press(.character(" ")).first else {
      Issue.record("no setTags")
      return
    }
    #expect(added2.isEmpty && removed2 == ["Red"])
    #expect(s.tagPicker?.tags[0].mark == TagPickerState.Mark.none)
    // Esc leaves; q too.
    s.press(.escape)
    #expect(s.overlay == nil)
  }

  @Test func aNewTagIsCreatedFromThePicker() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character("t"))
    for _ in 0..<30 { s.press(.down) }
    #expect(s.tagPicker?.cursor == s.tagPicker?.tags.count, "the last row is New Tag…")
    s.press(.enter)
    #expect(s.prompt?.title == "New tag")
    s.type("  urgent ")
    #expect(s.press(.enter) == [.setTags([corpus["plain"]!], add: ["urgent"], remove: [], .local)])
    #expect(s.overlay == nil)
  }

  /// The keys the menu shows beside Open With…, Move To… and Restore work from the list too, and
  /// only where the menu would offer them.
  @Test func theMenusKeysWorkFromTheList() {
    var s = Fixture.state()
    s.select("plain")
    #expect(s.press(.character("o")) == [])
    #expect(s.prompt?.title == "Open with (command; path added)")
    s.press(.escape)
    // M from the list is the range of marks now (issue 13 part 4): Move To… is M in the menu.
    s.press(.character("m"), .character("M"))
    #expect(s.overlay != nil && s.prompt == nil && s.menu == nil, "the folder picker: \(String(describing: s.overlay))")
    s.press(.escape)
    // A folder has no Open With…: o does nothing.
    s.select("f-docs")
    #expect(s.press(.character("o")) == [] && s.overlay == nil)

    var t = Fixture.trashState()
    t.press(.down)
    let item = t.selection[0]
    #expect(t.press(.character("u")) == [.restore([item], .local)])
  }

  // MARK: Recently Deleted

  @Test func recentlyDeletedRestoresDeletesForeverAndEmpties() {
    var s = Fixture.trashState()
    #expect(s.browse.location == .trash(.local))
    s.press(.down)  // the escape-sequence name
    let item = Fixture.trashed[1]
    s.press(.character("m"))
    #expect(s.menu?.entries.map(\.title) == ["Restore", "Info", "Delete Now…", "Empty Recently Deleted…"])
    #expect(s.press(.character("u")) == [.restore([item], .local)])

    // Delete Now asks first; n and Esc cancel, y confirms.
    #expect(s.press(.character("m"), .character("d")).isEmpty)
    #expect(s.confirmation?.message == "Delete “\\e[31mevil\\u{202E}txt.exe” forever? This cannot be undone.")
    #expect(s.press(.character("n")).isEmpty)
    #expect(s.overlay == nil)
    s.press(.character("d"))
    #expect(s.press(.escape).isEmpty)
    s.press(.character("d"))
    #expect(s.press(.character("y")) == [.deleteForever([item], .local)])
    #expect(s.overlay == nil)

    // Empty Recently Deleted: last entry, confirmed with Enter.
    s.press(.character("m"), .up, .up, .up, .down, .down, .down, .enter)
    #expect(s.confirmation?.effect == .emptyTrash(.local))
    #expect(s.press(.enter) == [.emptyTrash(.local)])

    // Enter on a deleted item does not open it.
    #expect(s.press(.enter).isEmpty)
    #expect(s.message?.text == "Restore it first (m, then Restore)")
  }

  @Test func anEmptyRecentlyDeletedStillOffersToEmpty() {
    var s = Fixture.trashState()
    _ = s.reduce(.folderChanged(ticket: s.browse.ticket))
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: [], total: 0, isComplete: true))
    s.press(.character("m"))
    #expect(s.menu?.entries.map(\.title) == ["Empty Recently Deleted…"])
  }

  @Test func theSidebarOpensLocationsFavoritesTagsAndRecentlyDeleted() {
    var s = Fixture.state()
    s.press(.character("b"))
    #expect(s.sidebar.focused)
    #expect(s.sidebar.cursor == 1)
    // Down past the Favorites heading to the first favorite, a folder: the app finds it first
    // (WorkingSetEntriesReduceTests), then it opens in Browse.
    s.press(.down, .down, .down)
    #expect(s.press(.enter) == [.openEntry(Fixture.favorites[0])])
    #expect(!s.sidebar.focused)
    // A favorite file too: found, then opened with its opener.
    s.press(.character("b"))
    s.sidebar.cursor = 7
    #expect(s.press(.enter) == [.openEntry(Fixture.favorites[2])])
    // A tag shows Recents filtered by it.
    s.press(.character("b"))
    s.sidebar.cursor = 9
    #expect(s.press(.enter) == [.loadRecents(tag: "Red")])
    #expect(s.tab == .recents && s.recents.tagFilter == "Red")
    // Recently Deleted: one entry per location, under its heading, the last one the last location's.
    s.press(.character("1"), .character("b"))
    s.sidebar.cursor = s.sidebar.entries.count - 1
    #expect(s.press(.enter).enumerations.first?.location == .trash(s.sidebar.locations.last!.domain))
    s.press(.character("b"))
    s.sidebar.cursor = s.sidebar.entries.firstIndex(of: .trash(.local))!
    #expect(s.press(.enter).enumerations.first?.location == .trash(.local))
    // Headings are skipped; Esc, b and h leave the sidebar.
    s.press(.character("b"), .up, .up)
    if case .heading = s.sidebar.entries[s.sidebar.cursor] { Issue.record("the cursor stopped on a heading") }
    s.press(.escape)
    #expect(!s.sidebar.focused)
  }

  // MARK: Help and quit

  @Test func questionMarkShowsHelpThatScrollsAndAnyOtherKeyCloses() {
    var s = Fixture.state()
    #expect(s.press(.character("?")).isEmpty)
    #expect(s.overlay == .help(top: 0))
    s.press(.character("j"), .down, .character("k"))
    #expect(s.overlay == .help(top: 1))
    s.press(.character("q"))
    #expect(s.overlay == nil)
    #expect(!s.isQuitting)
    // Every command is listed with its keys.
    _ = Snapshots.setUp
    s.height = 100
    s.press(.character("?"))
    let text = AppView.render(s).textLines().joined(separator: "\n")
    for c in Command.allCases { #expect(text.contains(c.help), "help does not list \(c)") }
  }

  @Test func qQuits() {
    var s = Fixture.state()
    #expect(s.press(.character("q")) == [.quit])
    #expect(s.isQuitting)
    var t = Fixture.state()
    t.press(.character("b"))
    #expect(t.press(.character("q")) == [.quit], "from the sidebar too")
  }
}
