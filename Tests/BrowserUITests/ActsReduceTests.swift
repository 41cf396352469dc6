import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// Acting on items (issue 13 §4): cut and paste, undo and redo, Open With… with arguments and
/// its history, the folder size in Info — the keys, the state and the effects asked for.
@Suite struct ActsReduceTests {
  static let plain = Fixture.corpus.first { $0.identifier.rawValue == "plain" }!
  static let docs = Fixture.corpus.first { $0.identifier.rawValue == "f-docs" }!

  // MARK: Cut and paste

  @Test func xCutsAndPMovesOnceThenTheClipboardIsEmpty() {
    var s = Fixture.state()
    s.select("plain")
    #expect(s.press(.character("x")).isEmpty)
    #expect(s.clipboard == Clipboard(items: [Self.plain], domain: .local, isCut: true))
    #expect(s.message == StatusMessage("Cut “plain.txt” — p moves it here"))
    s.press(.down)
    #expect(AppView.render(s).textLines().last?.contains("/20 items, 1 cut") == true, "said while it holds")
    s.press(.character("m"))
    #expect(s.menu?.entries.contains { $0.title == "Move Here (cut)" } == true, "the menu says a paste moves")
    s.press(.escape)
    #expect(s.press(.character("p")) == [.movePasted([Self.plain], from: .local, into: Fixture.start)])
    #expect(s.message?.text == "Moving “plain.txt”…")
    #expect(s.clipboard == nil, "a cut moves once")
    #expect(s.press(.character("p")).isEmpty)
    #expect(s.message?.isError == true)
  }

  @Test func yAfterXCopiesAgainAndXAfterYCuts() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character("x"))
    s.press(.character("y"))
    #expect(s.clipboard?.isCut == false)
    #expect(AppView.render(s).textLines().last?.contains("/20 items, 1 copied") == true)
    #expect(s.message?.text == "Copied “plain.txt” — p pastes")
    s.press(.character(" "))
    s.select("cjk")
    s.press(.character(" "), .character("x"))
    #expect(s.clipboard?.isCut == true && s.clipboard?.items.count == 2)
    #expect(s.message?.text == "Cut 2 items — p moves them here")
    #expect(s.browse.marked.isEmpty)
  }

  @Test func itemsInRecentlyDeletedCannotBeCut() {
    var s = Fixture.trashState()
    s.press(.down)
    s.press(.character("x"))
    #expect(s.clipboard == nil)
    #expect(s.message?.text == "Restore it first: items in Recently Deleted cannot be cut")
  }

  // MARK: Undo and redo

  static func record(_ title: String) -> UndoRecord {
    var renamed = plain
    renamed.filename = ItemName("renamed.txt")
    renamed.path = Fixture.home.appending(renamed.filename)
    return UndoRecord(domain: .local, title: title, steps: [.moved(renamed, from: plain.path)])
  }

  @Test func uUndoesTheLastActionAndUTheRedoesIt() {
    var s = Fixture.state()
    #expect(s.press(.character("u")).isEmpty)
    #expect(s.message?.text == "Nothing to undo")
    let a = Self.record("the rename of “a”")
    let b = Self.record("the rename of “b”")
    _ = s.reduce(.undoRecorded(a))
    _ = s.reduce(.undoRecorded(b))
    #expect(s.press(.character("u")) == [.undo(b, redo: false)], "the newest first")
    #expect(s.message?.text == "Undoing the rename of “b”…")
    // One at a time: the next waits for this one's answer.
    #expect(s.press(.character("u")).isEmpty)
    #expect(s.message?.text == "Undo waits: the last one is still running")
    let inverse = Self.record("the rename of “b”")
    let effects = s.reduce(.undoEnded(.done(inverse: inverse, redo: false, "Undid the rename of “b”")))
    #expect(effects.contains(.refreshSidebar), "the list and the sidebar are read again")
    #expect(s.message?.text == "Undid the rename of “b”")
    #expect(s.undo.done == [a] && s.undo.undone == [inverse])
    #expect(s.press(.character("U")) == [.undo(inverse, redo: true)])
    _ = s.reduce(.undoEnded(.done(inverse: b, redo: true, "Redid the rename of “b”")))
    #expect(s.undo.done == [a, b] && s.undo.undone.isEmpty)
  }

  @Test func aNewActionClearsRedoAndTheHistoryIsBounded() {
    var s = Fixture.state()
    _ = s.reduce(.undoRecorded(Self.record("one")))
    s.press(.character("u"))
    _ = s.reduce(.undoEnded(.done(inverse: Self.record("one"), redo: false, "Undid one")))
    #expect(s.undo.undone.count == 1)
    _ = s.reduce(.undoRecorded(Self.record("two")))
    #expect(s.undo.undone.isEmpty, "a new action clears what could be redone")
    #expect(s.press(.character("U")).isEmpty)
    #expect(s.message?.text == "Nothing to redo")
    for i in 0..<(UndoHistory.limit + 5) { _ = s.reduce(.undoRecorded(Self.record("n\(i)"))) }
    #expect(s.undo.done.count == UndoHistory.limit)
    #expect(s.undo.done.last?.title == "n\(UndoHistory.limit + 4)")
  }

  @Test func aRefusedUndoIsDroppedAndAFailedOneKept() {
    var s = Fixture.state()
    let a = Self.record("a")
    _ = s.reduce(.undoRecorded(a))
    s.press(.character("u"))
    _ = s.reduce(.undoEnded(.refused("Cannot undo: “renamed.txt” was changed since")))
    #expect(s.message == StatusMessage("Cannot undo: “renamed.txt” was changed since", isError: true))
    #expect(s.undo.done.isEmpty && s.undo.undone.isEmpty && !s.undo.isRunning)
    _ = s.reduce(.undoRecorded(a))
    s.press(.character("u"))
    _ = s.reduce(.undoEnded(.failed(a, redo: false, "Could not undo a: unreachable")))
    #expect(s.undo.done == [a], "tried again with the next u")
  }

  @Test func uInRecentlyDeletedRestoresTheSelection() {
    var s = Fixture.trashState()
    s.press(.down)
    let item = s.selection[0]
    #expect(s.press(.character("u")) == [.restore([item], .local)])
  }

  // MARK: Open With…

  @Test func openWithTakesACommandWithArgumentsAndRemembersIt() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character("o"))
    #expect(s.prompt?.title == AppState.openWithTitle)
    s.type("grep -n 'two words'")
    #expect(
      s.press(.enter) == [
        .openWith(Self.plain, program: "grep -n 'two words'", .local),
        .saveOpenWithHistory(OpenWithHistory(["grep -n 'two words'"])),
      ])
    #expect(s.overlay == nil)
    s.press(.character("o"))
    s.type("less")
    s.press(.enter)
    #expect(s.openWithHistory == ["less", "grep -n 'two words'"])
    // Up goes back through them, Down forward and then to an empty line.
    s.press(.character("o"), .up)
    #expect(s.prompt?.editor.string == "less")
    s.press(.up, .up)
    #expect(s.prompt?.editor.string == "grep -n 'two words'")
    s.press(.down)
    #expect(s.prompt?.editor.string == "less")
    s.press(.down)
    #expect(s.prompt?.editor.string == "")
    // Used again, a command moves to the front, once.
    s.press(.up, .up, .enter)
    #expect(s.openWithHistory == ["grep -n 'two words'", "less"])
  }

  @Test func anOpenQuoteKeepsThePromptWithTheReason() {
    var s = Fixture.state()
    s.select("plain")
    s.press(.character("o"))
    s.type("vim 'oops")
    #expect(s.press(.enter).isEmpty)
    #expect(s.prompt?.error == "a 'single quote is not closed")
    #expect(s.openWithHistory.isEmpty)
  }

  // MARK: Folder size in Info

  @Test func infoOfAFolderCountsItsSizeOnDemandAndEscStops() {
    var s = Fixture.state()
    s.select("f-docs")
    s.press(.character("i"))
    #expect(InfoRows.rows(Self.docs, location: "This Computer", s).contains { $0 == ("Size", FolderSizeState.notCounted) })
    let effects = s.press(.character("z"))
    guard case .countFolder(let ticket, let item, let domain)? = effects.first else {
      Issue.record("no count: \(effects)")
      return
    }
    #expect(item == Self.docs && domain == .local)
    #expect(s.overlay != nil, "Info stays")
    _ = s.reduce(.folderCounted(ticket: ticket, FolderTally(items: 12, bytes: 3_400, unreadable: 1), finished: false))
    #expect(s.folderSizeText(Self.docs) == "counting… 12 items, 3.4 kB so far, 1 unreadable folder (Esc stops)")
    #expect(s.press(.escape) == [.cancelFolderCount(ticket: ticket)])
    #expect(s.overlay != nil, "the first Esc stops the count, Info stays")
    #expect(s.folderSizeText(Self.docs) == "stopped at 12 items, 3.4 kB, 1 unreadable folder (z counts again)")
    // A late answer of the stopped walk changes nothing.
    _ = s.reduce(.folderCounted(ticket: ticket, FolderTally(items: 99), finished: true))
    #expect(s.folderSize?.tally.items == 12)
    // Counted again, to the end.
    guard case .countFolder(let second, _, _)? = s.press(.character("z")).first else {
      Issue.record("no second count")
      return
    }
    _ = s.reduce(.folderCounted(ticket: second, FolderTally(items: 3, bytes: 2_048_000), finished: true))
    #expect(s.folderSizeText(Self.docs) == "2.0 MB (2048000 bytes) in 3 items")
    s.press(.escape)
    #expect(s.overlay == nil)
  }

  @Test func closingInfoStopsTheCount() {
    var s = Fixture.state()
    s.select("f-docs")
    s.press(.character("i"))
    guard case .countFolder(let ticket, _, _)? = s.press(.character("z")).first else {
      Issue.record("no count")
      return
    }
    #expect(s.press(.character("q")) == [.cancelFolderCount(ticket: ticket)])
    #expect(s.overlay == nil)
    // z on a file's Info is not a count: it closes Info as any other key.
    s.select("plain")
    s.press(.character("i"))
    #expect(s.press(.character("z")).isEmpty)
    #expect(s.overlay == nil)
  }
}
