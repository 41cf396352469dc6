import ProviderAPI
import Testing

@testable import BrowserUI

/// A box over the list leaves no pieces of the list's rows glued to its sides.
@Suite struct OverlayEdgeTests {
  /// The columns of row `y` left and right of the box, whose border is `│` (or a corner).
  static func strips(_ line: String) -> (left: String, right: String)? {
    let chars = Array(line)
    guard let first = chars.firstIndex(where: { "│┌└".contains($0) }),
      let last = chars.lastIndex(where: { "│┐┘↓".contains($0) }), last > first
    else { return nil }
    return (String(chars[..<first]), String(chars[(last + 1)...]))
  }

  @Test(arguments: [("?", 80), ("i", 80), ("m", 30), ("r", 44)])
  func narrowStripsBesideABoxAreCleared(_ key: String, _ width: Int) throws {
    _ = Snapshots.setUp
    // Rows with wide names under the box's sides too.
    var s = Fixture.state(width: width, height: 24)
    s.press(.down, .down, .down, .down)
    s.press(.character(Character(key)))
    let screen = AppView.render(s)
    let lines = screen.textLines()
    var boxRows = 0
    for y in 1..<(s.height - 1) {
      guard let (left, right) = Self.strips(lines[y]), lines[y].contains("│") || lines[y].contains("┌") else { continue }
      // Only rows where the box is: its border on both sides.
      guard lines[y].filter({ "│┌┐└┘".contains($0) }).count >= 2 else { continue }
      boxRows += 1
      if left.count < 12 { #expect(left.allSatisfy { $0 == " " }, "row \(y) left of the box: \(lines[y])") }
      if right.count < 12 { #expect(right.allSatisfy { $0 == " " }, "row \(y) right of the box: \(lines[y])") }
    }
    #expect(boxRows >= 3)
  }
}
