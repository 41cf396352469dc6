import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// The start folder's rows, read before the index was open, are on the first screen before the
/// app runs (issue 13: the first screen never waits for the index); the app's first page, with
/// the index's tags and last use, replaces them without the list going blank in between.
@Suite struct LaunchPageTests {
  typealias F = Fixture

  func names(_ s: AppState) -> [String] {
    (0..<s.browseCount).compactMap { s.visibleBrowseItem(at: $0)?.filename.displayString }
  }

  @Test func theLaunchRowsAreDrawnAndStayUntilTheFirstPageReplacesThem() {
    var s = AppState(width: 120, height: 30, start: F.start, locations: F.locations)
    let plain = [F.item("alpha.txt", id: "a"), F.item("beta.txt", id: "b")]
    s.showLaunchPage(plain, total: plain.count, isComplete: true)
    #expect(names(s) == ["alpha.txt", "beta.txt"])
    let frame = AppView.render(s).textLines().joined(separator: "\n")
    #expect(frame.contains("alpha.txt") && frame.contains("beta.txt"), "the launch frame shows the rows:\n\(frame)")

    let before = s.browse.ticket
    let effects = s.start()
    #expect(s.browse.ticket != before)
    #expect(effects.contains { if case .enumerate = $0 { true } else { false } }, "the app still lists the folder")
    #expect(names(s) == ["alpha.txt", "beta.txt"], "the rows stay while the app's first page is read")
    #expect(s.browse.replaceOnFirstPage)

    // The app's page: the same items, annotated from the index, and one more that came meanwhile.
    let annotated = [
      F.item("alpha.txt", id: "a") { $0.tags = ["Red"] }, F.item("beta.txt", id: "b"), F.item("gamma.txt", id: "c"),
    ]
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: annotated, total: 3, isComplete: true))
    #expect(names(s) == ["alpha.txt", "beta.txt", "gamma.txt"])
    #expect(s.visibleBrowseItem(at: 0)?.tags == ["Red"])
    #expect(!s.browse.replaceOnFirstPage && !s.browse.isLoading)
  }

  @Test func withoutALaunchPageTheAppStartsEmptyAsBefore() {
    var s = AppState(width: 120, height: 30, start: F.start, locations: F.locations)
    _ = s.start()
    #expect(s.browse.list.isEmpty && s.browse.isLoading)
    #expect(!s.browse.replaceOnFirstPage)
  }
}
