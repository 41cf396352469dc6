import BrowserApp
import BrowserUI
import Foundation
import ProviderAPI
import Testing
import TestSupport

/// The app loop browsing an InMemoryProvider: what the first screen shows, navigation, paging.
@MainActor
@Suite struct BrowseHarnessTests {
  @Test func theFirstScreenShowsTheFoldersItems() async throws {
    let h = try Harness()
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.waitForScreen(containing: "photo.png")
    #expect(h.listedNames == Fixture.topNames)
    let screen = h.screen
    for name in ["Archive/", "Documents/", "notes.txt", "photo.png"] { #expect(screen.contains(name)) }
    #expect(!screen.contains("report.txt"))
    #expect(screen.contains("Memory  /"))
    #expect(h.terminal.statusLine.contains("4 items"))
    #expect(h.terminal.lastScreen?.width == 100 && h.terminal.lastScreen?.height == 30)
    try await h.quit()
    #expect(h.finished)
  }

  /// A filter searches the whole folder, not only the pages around the viewport: the rest is
  /// read once it has text ("/f0999" in a folder of 1,000 files found nothing past the 400th).
  @Test func aFilterSearchesRowsNotLoadedYet() async throws {
    let h = try Harness()
    for i in 1...1000 { _ = await h.provider.add(ItemName(String(format: "f%04d.txt", i)), content: Data()) }
    try await h.startAndLoad()
    #expect(h.state.browse.list.pages.count < 5, "only the pages around the viewport at first")
    h.type(.character("/"))
    h.type(text: "f0999")
    try await waitUntil("the filter to find f0999", explain: { h.terminal.statusLine }) {
      h.terminal.statusLine.contains("/f0999  1/1 matching") && !h.terminal.statusLine.contains("read")
    }
    try await h.waitForScreen(containing: "f0999.txt")
    h.type(.escape)
    try await h.quit()
  }

  /// A filter works on what it read: more keys, another text, or a filter typed again after Esc
  /// search the rows the first one read and ask the provider for nothing (a 20,000-entry folder
  /// on an SSH host was read again page after page for each filter).
  @Test func aFilterReadsTheFolderOnceAndTheNextSearchesWhatItRead() async throws {
    let h = try Harness()
    // 15 pages: more than the list keeps around its viewport.
    for i in 1...3000 { _ = await h.provider.add(ItemName(String(format: "f%04d.txt", i)), content: Data()) }
    try await h.startAndLoad()
    func settled(_ text: String) async throws {
      try await waitUntil("the filter to show “\(text)”", explain: { h.terminal.statusLine }) {
        h.terminal.statusLine.contains(text) && !h.terminal.statusLine.contains("read")
      }
    }
    h.type(.character("/"))
    h.type(text: "f09")
    try await settled("/f09  1/100 matching")
    let reads = await h.provider.calls.filter { $0 == .enumerate }.count
    h.type(.backspace)
    h.type(text: "99")
    try await settled("/f099  1/10 matching")
    h.type(.escape)
    try await waitUntil("the filter closed") { h.state.browse.filter == nil }
    h.type(.character("/"))
    h.type(text: "f3000")
    try await settled("/f3000  1/1 matching")
    try await h.waitForScreen(containing: "f3000.txt")
    #expect(await h.provider.calls.filter { $0 == .enumerate }.count == reads, "the folder was read again")
    h.type(.escape)
    try await h.quit()
  }

  @Test func entersAFolderAndComesBackWithTheCursorOnIt() async throws {
    let h = try Harness()
    let f = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.select("Documents")
    h.type(.enter)
    try await h.waitUntilListed(in: ItemPath("/Documents"), ["report.txt"])
    try await h.waitForScreen(containing: "report.txt")
    #expect(h.screen.contains("Memory  /Documents"))
    #expect(!h.screen.contains("notes.txt"))
    #expect(h.terminal.statusLine.contains("1 item"))

    h.type(.backspace)
    try await h.waitUntilListed(in: .root, Fixture.topNames)
    try await waitUntil("the cursor back on Documents") { h.state.currentItem?.identifier == f.documents.identifier }
    try await h.waitForScreen(containing: "notes.txt")
    #expect(!h.screen.contains("report.txt"))
    try await h.quit()
  }

  @Test func aFolderOf5000ItemsPagesInAsTheCursorMoves() async throws {
    let h = try Harness()
    let big = await h.provider.add(ItemName("big"), folder: true)
    await h.provider.addFiles(count: 5000, in: big.identifier)
    try await h.startAndLoad(at: FolderLocation(domain: .local, identifier: big.identifier, path: big.path, name: "big"))
    try await h.waitForScreen(containing: "file0000")
    let list = h.state.browse.list
    let pageCount = 5000 / list.pageSize
    #expect(list.total == 5000)
    #expect(list.pages.count < pageCount)
    #expect(h.terminal.statusLine.contains("5,000 items"))
    #expect(!h.screen.contains("file4999"))

    // Page down past what the first pages hold: the rows under the cursor are asked for and arrive.
    let pagesBefore = Set(list.pages.keys)
    h.terminal.type(Array(repeating: .pageDown, count: 20))
    let viewport = h.state.listHeight
    try await waitUntil("the cursor on row \(20 * viewport), loaded") {
      h.state.browse.cursor == 20 * viewport && h.state.currentItem != nil
    }
    #expect(!Set(h.state.browse.list.pages.keys).subtracting(pagesBefore).isEmpty)
    try await h.waitForScreen(containing: Self.fileName(20 * viewport - 1))
    #expect(h.screen.contains(Self.fileName(20 * viewport)), "the cursor's row is drawn")

    // G: the last item.
    h.type(.character("G"))
    try await waitUntil("the last item under the cursor") {
      h.state.browse.cursor == 4999 && h.state.currentItem?.filename.displayString == "file4999"
    }
    try await h.waitForScreen(containing: "file4998")
    #expect(h.screen.contains("file4999"), "the cursor's row is drawn")
    #expect(h.terminal.statusLine.contains("5,000 items"))

    // gg: back to the first.
    h.type(.character("g"), .character("g"))
    try await waitUntil("the first item under the cursor, on screen") {
      h.state.currentItem?.filename.displayString == "file0000" && h.screen.contains("file0000")
    }
    // Never the whole folder in the state: pages far from the viewport are let go.
    #expect(h.maxPagesHeld < pageCount, "the list held \(h.maxPagesHeld) of \(pageCount) pages at some point")
    #expect(h.state.browse.list.pages.count < pageCount)
    try await h.quit()
  }

  static func fileName(_ i: Int) -> String { "file" + String(format: "%04d", i) }

  @Test func aResizeRedrawsAtTheNewSize() async throws {
    let h = try Harness()
    _ = await Fixture.populate(h.provider)
    try await h.startAndLoad()
    try await h.waitForScreen(containing: "Locations")
    h.type(.character("m"))
    try await waitUntil("the menu") { h.menu != nil }
    h.terminal.resize(width: 60, height: 16)
    try await waitUntil("a screen at 60x16") { h.terminal.lastScreen?.width == 60 && h.terminal.lastScreen?.height == 16 }
    #expect(h.state.width == 60 && h.state.height == 16)
    #expect(h.menu != nil)
    // Below 80 columns the sidebar collapses; the list keeps the whole width.
    #expect(!h.screen.contains("Locations"))
    #expect(h.screen.contains("Rename…"))
    try await h.quit()
  }
}

extension Harness {
  /// Waits until the Browse list shows `path` with exactly these names, loaded.
  func waitUntilListed(in path: ItemPath, _ names: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await waitUntil("\(path.displayString) listing \(names)", sourceLocation: sourceLocation) {
      browsePath == path && !state.browse.isLoading && listedNames == names
    }
  }
}
