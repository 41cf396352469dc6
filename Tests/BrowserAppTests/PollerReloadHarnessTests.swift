import BrowserApp
import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore
import Testing
import TestSupport

/// Storage without a change feed in the browser (an SSH host): what the listing poller finds
/// reaches the list, and what it does not find costs the list nothing. A 20,000-entry folder on
/// screen was read again, re-sorted and re-annotated after a listing that found nothing new.
@MainActor
@Suite struct PollerReloadHarnessTests {
  /// Waits until every sync event sent before now has been reduced: the events reach the loop in
  /// order, so once this one's message is shown, an earlier event's reload would have happened.
  func drainSyncEvents(_ h: Harness, _ tag: String) async throws {
    h.engine.events.send(.domainThrottled(.local, error: ProviderError(.serverBusy, tag)))
    try await waitUntil("the loop to take the events sent before “\(tag)”") { h.state.message?.text.contains(tag) == true }
  }

  @Test func aListingThatFindsTheFolderAsShownReloadsNothingAndAChangeReloadsIt() async throws {
    let h = try Harness(pathKeyed: true)
    for i in 1...300 { await h.provider.add(ItemName(String(format: "f%04d.txt", i))) }
    try await h.startAndLoad()
    let poller = try #require(h.engine.listingPoller(for: .local))
    // The browser's listing stated its folder: the poller has it as what is on screen.
    try await waitUntil("the poller to know the folder as listed") { await poller.shownHint(of: .root) != nil }
    let ticket = h.state.browse.ticket

    let unchanged = await poller.pollNow(.root)
    #expect(unchanged.verdict == .complete && !unchanged.folderChanged)
    try await drainSyncEvents(h, "first-barrier")
    #expect(h.state.browse.ticket == ticket, "a listing that found nothing new reloaded the list")

    // Again (its own previous listing to compare with now): still nothing.
    _ = await poller.pollNow(.root)
    try await drainSyncEvents(h, "second-barrier")
    #expect(h.state.browse.ticket == ticket)

    // A file made elsewhere: the next listing says so and the list shows it.
    await h.provider.add(ItemName("f0000-new.txt"))
    let changed = await poller.pollNow(.root)
    #expect(changed.folderChanged)
    try await waitUntil("the new file listed", explain: { "\(h.listedNames.prefix(3))" }) {
      h.listedNames.contains("f0000-new.txt")
    }
    #expect(h.state.browse.ticket != ticket)
    try await h.quit()
  }
}
