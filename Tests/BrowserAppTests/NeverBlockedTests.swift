import BrowserApp
import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore
import Testing
import TestSupport

/// Issue item 10: a provider stalled for 30 s never blocks the loop.
@MainActor
@Suite struct NeverBlockedTests {
  @Test(.timeLimit(.minutes(5))) func keysAnswerWhileTheFolderIsStalled() async throws {
    let p = InMemoryProvider(domain: .local)
    let h = try Harness(provider: p)
    let f = await Fixture.populate(p)
    try h.services.items.recordOpen(f.notes, in: h.domain)
    // Every listing stalls for 30 s (until cancelled). The gate is open: it only counts arrivals.
    let arrivals = Gate(open: true)
    await p.setHook { call throws(ProviderError) in
      guard call == .enumerate else { return }
      await arrivals.pass()
      do { try await Task.sleep(for: .seconds(30)) } catch { throw ProviderError.cancelledError }
    }
    let limit = Duration.seconds(10)
    h.start()
    await arrivals.waitForArrivals(1)

    // The folder says it is loading, and the spinner turns.
    try await waitUntil("the status line to say loading", timeout: limit) {
      h.state.browse.isLoading && h.terminal.statusLine.contains("loading")
    }
    let phase = h.state.spinnerPhase
    let shown = h.terminal.statusLine
    try await waitUntil("the spinner to turn", timeout: limit) {
      h.state.spinnerPhase > phase && h.terminal.statusLine != shown && h.terminal.statusLine.contains("loading")
    }

    // Tab: Recents, from the index.
    h.type(.tab)
    try await waitUntil("Recents with notes.txt", timeout: limit) {
      h.state.tab == .recents && h.screen.contains(" Recents") && h.screen.contains("notes.txt")
    }
    // ?: help.
    h.type(.character("?"))
    try await waitUntil("the help screen", timeout: limit) {
      h.state.overlay == .help(top: 0) && h.screen.contains("This help")
    }
    h.type(.escape)
    try await waitUntil("help closed", timeout: limit) { h.state.overlay == nil }
    // m on Recents: the menu for the recent item.
    h.type(.character("m"))
    try await waitUntil("the menu on notes.txt", timeout: limit) {
      h.menu?.title == "notes.txt" && h.screen.contains("Rename…")
    }
    h.type(.escape)
    try await waitUntil("the menu closed", timeout: limit) { h.state.overlay == nil }
    // Back to Browse: still loading, still the one stalled listing.
    h.type(.character("1"))
    try await waitUntil("Browse, still loading", timeout: limit) {
      h.state.tab == .browse && h.terminal.statusLine.contains("loading")
    }
    #expect(h.state.browse.isLoading)
    #expect(h.state.browse.list.isEmpty)
    let seen = await p.calls
    #expect(await arrivals.arrivals == 1, "\(seen)")

    // q quits, with the listing still stalled.
    h.type(.character("q"))
    try await waitUntil("the loop to end", timeout: limit) { h.finished }
    #expect(h.finished)
  }
}
