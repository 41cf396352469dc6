import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore
import Testing
import TestSupport

@testable import BrowserApp

/// The bookkeeping between the UI's tickets and the enumeration service's.
@MainActor
@Suite struct TicketHarnessTests {
  /// Going in and out of folders leaves exactly one live ticket on each side: closed enumerations
  /// leave nothing behind (their domain included).
  @Test func closedEnumerationsLeaveNoTicketsBehind() async throws {
    let h = try Harness()
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    for _ in 0..<3 {
      try await h.select("Documents")
      h.type(.enter)
      try await h.waitUntilListed(in: ItemPath("/Documents"), ["report.txt"])
      h.type(.backspace)
      try await h.waitUntilListed(in: .root, Fixture.topNames)
    }
    try await waitUntil("one ticket of each kind") {
      h.app.serviceTickets.count == 1 && h.app.uiTickets.count == 1 && h.app.domainOfTicket.count == 1
    }
    #expect(h.app.serviceTickets.keys.first == h.state.browse.ticket)
    #expect(h.app.domainOfTicket[h.state.browse.ticket] == .local)
    try await h.quit()
  }

  /// The start folder's first page asked for before the app existed is the one shown: the
  /// provider is not asked for it twice.
  @Test func thePageReadAtLaunchIsTheFirstScreen() async throws {
    let h = try Harness()
    _ = await Fixture.populate(h.provider)
    let root = h.services.locationEntries()[0].root
    let state = AppState(width: 100, height: 30, start: root, locations: h.services.locationEntries())
    let prefetch = FirstPagePrefetch(
      EnumerationRequest(
        container: .root, sort: state.sort, includeHidden: state.showHidden, suggestedPageSize: state.browse.list.pageSize),
      on: h.provider)
    h.start(prefetched: prefetch)
    try await h.waitForListing()
    try await h.waitForScreen(containing: "photo.png")
    #expect(await h.provider.calls.filter { $0 == .enumerate }.count == 1)
    try await h.quit()
  }
}
