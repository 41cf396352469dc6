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
}
