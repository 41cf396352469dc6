import PreviewKit
import ProviderAPI
import Testing

@testable import BrowserUI

/// The loop draws each frame into a grid it drew before (`AppView.render(_:into:)`): nothing of
/// the old frame may show through, and the grid's storage must really be reused.
@Suite struct FrameReuseTests {
  init() { _ = Snapshots.setUp }

  /// Frames that differ everywhere: a list (the corpus has wide characters), the menu over it,
  /// the cursor moved, ASCII only, a narrow terminal, one too small to draw in, Recently Deleted.
  static func states() -> [AppState] {
    let list = Fixture.state(width: 100, height: 30)
    var menu = list
    _ = menu.reduce(.key(.character("m")))
    var moved = list
    for _ in 0..<4 { _ = moved.reduce(.key(.down)) }
    var ascii = Fixture.state(width: 100, height: 30)
    ascii.ascii = true
    let narrow = Fixture.state(width: 60, height: 30)
    let tiny = Fixture.emptyState(width: 8, height: 3)
    return [list, menu, moved, ascii, narrow, tiny, Fixture.trashState(width: 100, height: 30), list]
  }

  @Test func aReusedGridDrawsWhatAFreshOneDraws() {
    let states = Self.states()
    var reused = Screen(width: 0, height: 0)
    // Every state after every other: what one frame left must never show in the next.
    for before in states {
      for state in states {
        AppView.render(before, into: &reused)
        AppView.render(state, into: &reused)
        let fresh = AppView.render(state)
        #expect(reused == fresh, "\(state.width)x\(state.height) after \(before.width)x\(before.height)")
      }
    }
  }

  /// A grid of the same size, held nowhere else, is drawn over in place: no new storage per frame.
  @Test func aGridOfTheSameSizeKeepsItsStorage() {
    let states = Self.states()
    var screen = AppView.render(states[0])
    let address = screen.cells.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
    AppView.render(states[1], into: &screen)
    AppView.render(states[2], into: &screen)
    #expect(screen.cells.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) } == address)
    #expect(screen == AppView.render(states[2]))
  }

  /// `reset` blanks every cell, also the halves of wide characters and the preview's ink.
  @Test func resetBlanksEveryCell() {
    var screen = Screen(width: 12, height: 3)
    screen.put("漢字 name", x: 0, y: 0, role: .listSelected)
    screen.put("abc", x: 2, y: 2, role: .statusError)
    screen.asciiOnly = true
    screen.reset(width: 12, height: 3)
    #expect(screen == Screen(width: 12, height: 3))
    screen.reset(width: 5, height: 2)
    #expect(screen == Screen(width: 5, height: 2))
  }

  /// Two grids drawn apart (the loop draws into the one the terminal no longer holds) compare
  /// row by row: the same cells are unchanged, one changed byte or only a changed style is not.
  @Test func rowsDrawnApartCompareByTheirCells() {
    var old = Screen(width: 30, height: 2)
    old.put("same text", x: 1, y: 0, role: .listRow)
    var new = Screen(width: 30, height: 2)
    new.put("other", x: 0, y: 1, role: .listSelected)
    new.reset(width: 30, height: 2)
    new.put("same text", x: 1, y: 0, role: .listRow)
    #expect(new.changedColumns(inRow: 0, since: old, columns: 30) == nil)
    #expect(new.changedColumns(inRow: 1, since: old, columns: 30) == nil)
    new.put("S", x: 1, y: 0, role: .listRow)
    #expect(new.changedColumns(inRow: 0, since: old, columns: 30) == 1...1)
    var styled = old
    styled.put("same text", x: 1, y: 0, role: .listSelected)
    #expect(styled.changedColumns(inRow: 0, since: old, columns: 30) == 1...9)
  }

  /// What the backend redraws of a row: exactly the cells that changed, widened over wide
  /// characters (old or new) so none is cut; nothing for a row that did not change.
  @Test func theChangedColumnsOfARow() {
    var old = Screen(width: 20, height: 3)
    old.put("hello world", x: 0, y: 0, role: .listRow)
    old.put("漢字 wide", x: 2, y: 1, role: .listRow)
    var new = old
    #expect(new.changedColumns(inRow: 0, since: old, columns: 20) == nil)
    new.put("W", x: 6, y: 0, role: .listRow)
    #expect(new.changedColumns(inRow: 0, since: old, columns: 20) == 6...6)
    new.put("o", x: 6, y: 0, role: .listSelected)
    new.put("d!", x: 10, y: 0, role: .listRow)
    #expect(new.changedColumns(inRow: 0, since: old, columns: 20) == 6...11)
    // A row nobody drew on since is the same.
    #expect(new.changedColumns(inRow: 2, since: old, columns: 20) == nil)
    // Over the second half of 漢 (columns 2-3): its first half is redrawn too.
    new.put("x", x: 3, y: 1, role: .listRow)
    #expect(new.changedColumns(inRow: 1, since: old, columns: 20) == 2...3)
    // A new wide character whose first half sits where nothing changed but a continuation.
    var wide = old
    wide.put("字", x: 12, y: 2, role: .listRow)
    #expect(wide.changedColumns(inRow: 2, since: old, columns: 20) == 12...13)
    // Only the columns asked for count; a grid of another size is all new.
    #expect(wide.changedColumns(inRow: 2, since: old, columns: 12) == nil)
    #expect(wide.changedColumns(inRow: 2, since: Screen(width: 21, height: 3), columns: 20) == 0...19)
    // The preview's ink is part of a cell.
    var inked = old
    inked[5, 2] = Cell(" ", role: .normal, ink: .escape)
    #expect(inked.changedColumns(inRow: 2, since: old, columns: 20) == 5...5)
  }
}
