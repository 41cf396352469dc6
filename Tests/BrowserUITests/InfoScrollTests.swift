import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// Info on a terminal too small for its fields scrolls them (issue 13): every field can be read,
/// marks say there is more, and any other key still closes it.
@Suite struct InfoScrollTests {
  func lines(_ s: AppState) -> [String] {
    _ = Snapshots.setUp
    return AppView.render(s).textLines()
  }

  /// Info on "plain" in an 80x10 terminal, too short for its fields.
  func infoOnASmallTerminal() -> AppState {
    var s = Fixture.state()
    s.width = 80
    s.height = 10
    s.select("plain")
    s.press(.character("i"))
    return s
  }

  @Test func infoScrollsOnASmallTerminal() {
    var s = infoOnASmallTerminal()
    let item = corpus["plain"]!
    let fields = InfoRows.rows(item, location: "This Computer", domain: .local, s)
    #expect(fields.count > 6, "the fixture's item has too few fields to scroll: \(fields.map(\.0))")
    let first = lines(s).joined(separator: "\n")
    #expect(first.contains(fields[0].0) && !first.contains(fields.last!.0), "\(first)")
    #expect(first.contains("j/k scroll"), "\(first)")

    // Down to the last field: each key shows the next one, and the first goes off the top.
    for _ in 0..<fields.count { s.press(.character("j")) }
    let bottom = lines(s).joined(separator: "\n")
    #expect(bottom.contains(fields.last!.0), "\(bottom)")
    #expect(!bottom.contains(" " + fields[0].0 + " "), "\(bottom)")
    #expect(s.overlay != nil, "scrolling keys keep Info open")

    // Back up acts at once (the position is clamped at the last field, not counted past it).
    s.press(.character("g"))
    #expect(s.overlay == nil, "any other key closes Info")
  }

  @Test func upFromTheBottomActsAtOnce() {
    var s = infoOnASmallTerminal()
    for _ in 0..<100 { s.press(.down) }
    guard case .info(_, _, _, let bottom) = s.overlay else { Issue.record("Info closed"); return }
    s.press(.up)
    guard case .info(_, _, _, let top) = s.overlay else { Issue.record("Info closed"); return }
    #expect(top == bottom - 1)
  }
}
