import BrowserApp
import BrowserUI
import Foundation
import ProviderAPI
import Testing
import TestSupport

/// Go to, its completion and the kept view choices through the app loop: the lookups and
/// listings run off the loop and come back as actions.
@MainActor
@Suite struct GoToHarnessTests {
  @Test func tabListsAnotherFolderOffTheLoopAndEnterGoesThere() async throws {
    let h = try Harness()
    let f = await Fixture.populate(h.provider)
    _ = await h.provider.add(ItemName("Drafts"), in: f.documents.identifier, folder: true)
    try await h.startAndLoad()
    h.type(.character(":"))
    h.type(text: "/Documents/D")
    h.type(.tab)
    try await waitUntil("Drafts completed", explain: { h.prompt?.editor.string ?? "no prompt" }) {
      h.prompt?.editor.string == "/Documents/Drafts/"
    }
    h.type(.enter)
    try await waitUntil("in Drafts", explain: { "\(String(describing: h.browsePath))" }) {
      h.browsePath == ItemPath("/Documents/Drafts") && h.state.overlay == nil
    }
    try await h.waitForListing()
    try await h.quit()
  }

  @Test func aFileOpensItsFolderWithTheCursorOnItAndABadPathChangesNothing() async throws {
    let h = try Harness()
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    h.type(.character(":"))
    h.type(text: "/nope/x")
    h.type(.enter)
    try await waitUntil("the error in the prompt", explain: { h.prompt?.error ?? "none" }) {
      h.prompt?.error?.hasPrefix("Cannot go to /nope/x") == true
    }
    #expect(h.browsePath == .root && h.listedNames == Fixture.topNames)
    h.type(.control("u"))
    h.type(text: "/Documents/report.txt")
    h.type(.enter)
    try await waitUntil("report.txt under the cursor", explain: { "\(String(describing: h.browsePath)) \(h.listedNames)" }) {
      h.browsePath == ItemPath("/Documents") && h.state.currentItem?.filename == ItemName("report.txt")
    }
    // Back: the root, the cursor where it was.
    h.type(.character("H"))
    try await waitUntil("the root again") { h.browsePath == .root && h.state.currentItem?.filename == ItemName("Archive") }
    try await h.quit()
  }

  @Test func aChangedChoiceIsWrittenOffTheLoopAndTheNewestWins() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-view-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("folio/view")
    let h = try Harness(viewChoicesFile: file)
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    #expect(!FileManager.default.fileExists(atPath: file.path), "nothing is written until a choice changes")
    h.type(.character("."), .character("."), .character("."))
    try await waitUntil("hidden shown") { h.state.showHidden }
    try await h.quit()
    let kept = ViewChoices(text: try String(contentsOf: file, encoding: .utf8))
    #expect(kept == ViewChoices(showHidden: true))
    #expect(ViewChoices.load(from: file) == kept)
  }
}
