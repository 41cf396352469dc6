@testable import BrowserApp
import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore
import Testing
import TestSupport
import WorkingSetIndex

/// A file pasted into the remote memory location is listed in that folder at once (queued, then
/// `↑ n%`), and becomes the provider's item when its upload finishes: one row all along, never
/// two, never none. The provider's `create` is held at a Gate, so the row stays pending until the
/// test lets it through.
@MainActor
@Suite struct UploadRowsHarnessTests {
  /// How many rows named `name` the Browse list of the memory location showed, after every action.
  @MainActor final class RowWatch {
    let name: String
    var most = 0
    var shown = false
    /// Reduced states in which the row was missing after it had appeared.
    var missing = 0

    init(_ name: String) { self.name = name }

    func observe(_ s: AppState) {
      guard s.browse.location.domain == .local else { return }
      let n = (0..<s.browseCount).filter { s.visibleBrowseItem(at: $0)?.filename.displayString == name }.count
      most = max(most, n)
      if n > 0 { shown = true } else if shown { missing += 1 }
    }
  }

  /// Fails creates while `failing` is on.
  actor Refusal {
    var failing = true
    func stop() { failing = false }
  }

  /// Disk's a.txt copied, the memory location shown and listed.
  func copyAndGoToMemory(_ disk: PasteHarnessTests.Disk) async throws -> Harness {
    let h = try Harness(more: [disk.domain])
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad(at: disk.location)
    try await h.select("a.txt")
    h.type(.character("y"))
    try await h.waitForScreen(containing: "Copied “a.txt” — p pastes")
    try await h.chooseInSidebar("Memory") {
      if case .location(let l) = $0 { return l.domain == .local }
      return false
    }
    try await waitUntil("the memory location") { h.browsePath == .root && h.listedNames == Fixture.topNames }
    try await h.waitForListing()
    return h
  }

  @Test func aPastedFileIsListedWhileItUploadsThenBecomesTheItemOnce() async throws {
    let disk = try PasteHarnessTests.Disk()
    defer { disk.remove() }
    let h = try await copyAndGoToMemory(disk)
    let gate = Gate()
    await h.provider.setHook { call throws(ProviderError) in if call == .create { await gate.pass() } }
    let watch = RowWatch("a.txt")
    h.app.didReduce = { watch.observe($0) }
    h.type(.character("p"))
    try await h.waitForScreen(containing: "Queued 1 upload")
    // Listed at once, above the provider's rows, before the provider has it.
    try await waitUntil("the pending row", explain: { "\(h.state.browse.uploads)" }) {
      h.state.browse.uploads.map(\.item.filename.displayString) == ["a.txt"] && h.screen.contains("a.txt")
    }
    #expect(h.state.visibleBrowseItem(at: 0)?.filename.displayString == "a.txt")
    try await h.waitForScreen(containing: "4 items, 1 to upload")
    // Its upload starts and waits inside the provider: the badge says it is uploading.
    await gate.waitForArrivals(1)
    try await waitUntil("the uploading badge") {
      guard let row = h.state.browse.uploads.first?.item else { return false }
      return Badge.of(row, transfer: h.state.transfer(of: row, in: .local)) == .uploading
    }
    // Only Info for something the server does not have yet; Rename is refused.
    h.type(.home)
    try await waitUntil("the cursor on the pending row") { h.state.browse.cursor == 0 }
    h.type(.character("m"))
    try await waitUntil("its menu") { h.menu != nil }
    #expect(h.menu?.entries.map(\.title) == ["Info"])
    h.type(.escape)
    h.type(.character("r"))
    try await waitUntil("the refusal", explain: { "message \(String(describing: h.state.message))" }) {
      h.state.message?.text.contains("“a.txt” is not on the server yet") == true && h.screen.contains("is not on the server yet")
    }
    #expect(h.prompt == nil)
    // Let it through: the same row becomes the provider's item, listed once.
    await gate.open()
    try await waitUntil(
      "the item listed by the provider, the pending row gone",
      explain: { "uploads \(h.state.browse.uploads), listed \(h.listedNames)" }
    ) {
      h.state.browse.uploads.isEmpty && h.listedNames.contains("a.txt") && !h.state.browse.isLoading
    }
    try await h.waitForScreen(containing: "5 items")
    let item = try await h.provider.item(at: ItemPath("/a.txt"))
    #expect(await h.provider.content(of: item.identifier) == Data("alpha".utf8))
    #expect(h.state.browse.list.loadedItems.first { $0.filename.displayString == "a.txt" }?.identifier == item.identifier)
    #expect(watch.shown)
    #expect(watch.most == 1, "a.txt was listed \(watch.most) times at once")
    #expect(watch.missing == 0, "a.txt vanished from the list in \(watch.missing) states")
    try await h.quit()
  }

  @Test func aFailedUploadShowsItsErrorAndRetryFromItsRowSendsIt() async throws {
    let disk = try PasteHarnessTests.Disk()
    defer { disk.remove() }
    let h = try await copyAndGoToMemory(disk)
    let refusal = Refusal()
    await h.provider.setHook { call throws(ProviderError) in
      if call == .create, await refusal.failing { throw ProviderError(.noPermission, "refused by the test") }
    }
    h.type(.character("p"))
    try await waitUntil("the failed row", explain: { "\(h.state.browse.uploads) \(h.state.transfers)" }) {
      guard let row = h.state.browse.uploads.first?.item else { return false }
      return Badge.of(row, transfer: h.state.transfer(of: row, in: .local)) == .error
    }
    try await h.waitForScreen(containing: "Upload of a.txt stopped: refused by the test")
    h.type(.home)
    try await waitUntil("the cursor on the failed row") { h.state.currentItem?.filename.displayString == "a.txt" }
    await refusal.stop()
    try await h.chooseFromMenu("Retry")
    try await waitUntil("the retried upload listed as the provider's item", explain: { "\(h.state.browse.uploads) \(h.listedNames)" }) {
      h.state.browse.uploads.isEmpty && h.listedNames.filter { $0 == "a.txt" }.count == 1
    }
    let item = try await h.provider.item(at: ItemPath("/a.txt"))
    #expect(await h.provider.content(of: item.identifier) == Data("alpha".utf8))
    try await h.quit()
  }
  /// A quit with an upload stopped: the next start lists it from the journal (the queue leaves a
  /// failed upload alone, so only the journal can tell), with its error, and Retry sends it.
  @Test func anUploadJournaledBeforeTheStartIsListedFromTheJournal() async throws {
    let h = try Harness()
    _ = await Fixture.populate(h.provider)
    let source = FileManager.default.temporaryDirectory.appendingPathComponent("folio-queued-\(UUID().uuidString).txt")
    try Data("early".utf8).write(to: source)
    defer { try? FileManager.default.removeItem(at: source) }
    let root = try await h.provider.item(for: .root)
    let id = try await h.engine.put(ItemPath(source.path), as: ItemName("queued.txt"), into: root, in: h.domain)
    try h.index.updateTransfer(id) {
      $0.state = .failed
      $0.lastError = "refused before the quit"
    }
    try await h.startAndLoad()
    try await waitUntil("the row from the journal", explain: { "\(h.state.browse.uploads)" }) {
      h.state.browse.uploads.map(\.item.filename.displayString) == ["queued.txt"]
    }
    let row = h.state.browse.uploads[0].item
    #expect(Badge.of(row, transfer: h.state.transfer(of: row, in: .local)) == .error)
    h.type(.home)
    try await waitUntil("the cursor on the stopped row") { h.state.currentItem?.filename.displayString == "queued.txt" }
    try await h.chooseFromMenu("Retry")
    try await waitUntil("the item listed once", explain: { "\(h.state.browse.uploads) \(h.listedNames)" }) {
      h.state.browse.uploads.isEmpty && h.listedNames.filter { $0 == "queued.txt" }.count == 1
    }
    try await h.quit()
  }
}

/// Which creates are new files (a pending row in their folder) and which are not.
@Suite struct NewFileRuleTests {
  @Test func onlyAPlaceholderIsANewFile() {
    let name = ItemName("a.txt")
    #expect(BrowserApp.newFile(ItemIdentifier("#upload-7"), parent: .root, name: name) != nil)
    // Edits kept as a new item after a remote delete keep the item's own identifier: its row
    // is the item, never a second, pending one.
    #expect(BrowserApp.newFile(ItemIdentifier("i9"), parent: .root, name: name) == nil)
    #expect(BrowserApp.newFile(ItemIdentifier("#upload-7"), parent: nil, name: name) == nil)
  }
}
