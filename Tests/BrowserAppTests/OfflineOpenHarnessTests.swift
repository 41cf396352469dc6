@testable import BrowserApp
import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore
import Testing
import TestSupport
import WorkingSetIndex

/// Review of issue 10: Enter on a file with no copy here while its server could not be reached
/// queued the download behind the held server, and when the server came back the editor took the
/// screen by itself, minutes later. Now the open is refused at once, with the reason, and no
/// download waits to open it.
@MainActor
@Suite struct OfflineOpenHarnessTests {
  @Test func enterOnAFileNotDownloadedWhileTheServerIsHeldSaysSoAndQueuesNothing() async throws {
    let h = try Harness()
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    await h.provider.setHook { call throws(ProviderError) in
      if call == .fetch { throw ProviderError(.serverUnreachable, "cannot reach Memory: connection refused") }
    }
    // The first open finds the server gone: the queue holds the location from then on.
    try await h.select("notes.txt")
    h.type(.enter)
    try await waitUntil("the first open fails") { h.state.message?.text.contains("cannot reach Memory") == true }
    try await waitUntil("the queue holds the location") { await h.engine.queue.latchedError(for: .local) != nil }
    // A second file: refused at once, not queued behind the held server.
    try await h.select("photo.png")
    h.type(.enter)
    try await waitUntil("the open is refused with its reason") {
      h.state.message?.text.contains("photo.png is not downloaded and Memory cannot be reached") == true
    }
    #expect(h.state.opening == nil)
    let downloads = try h.index.pendingTransfers(domain: .local).filter { $0.direction == .download && $0.state != .throttled }
    #expect(downloads.isEmpty, "no download waits to open it later: \(downloads)")
    #expect(try h.index.recents(limit: 10).isEmpty, "nothing was opened")
    try await h.quit()
  }
}

/// Review of issue 10: offline, a remote folder showed only the files this computer kept (the
/// working set): its subfolders vanished, and with them the way down to what was downloaded.
/// Folders seen in a listing are remembered, and the offline view shows them.
@MainActor
@Suite struct OfflineFoldersHarnessTests {
  @Test func offlineAFolderStillShowsTheSubfoldersSeenOnline() async throws {
    let h = try Harness()
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await waitUntil("the folders seen are in the index") {
      let known = (try? h.index.children(domain: .local, of: .root)) ?? []
      return Set(known.map(\.name.lossyString)).isSuperset(of: ["Archive", "Documents"])
    }
    await h.provider.setHook { call throws(ProviderError) in
      if call == .enumerate { throw ProviderError(.serverUnreachable, "cannot reach Memory: connection refused") }
    }
    h.type(.control("r"))
    try await waitUntil("the offline view shows the subfolders") {
      let names = h.state.browse.list.loadedItems.map(\.filename.lossyString)
      return h.state.browse.offline != nil && names.contains("Archive") && names.contains("Documents")
    }
    try await h.quit()
  }
}
