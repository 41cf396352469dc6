import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// Issue 13 §5 in the reducer: Cancel Download in the menu, and Restore when the name is taken.
@Suite struct EdgesReduceTests {
  typealias F = RemoteFixture

  func select(_ s: inout AppState, _ name: String) {
    s.press(.home)
    while s.currentItem?.filename.displayString != name, s.browse.cursor < s.browseCount - 1 { s.press(.down) }
  }

  func titles(_ s: inout AppState, _ name: String) -> [String] {
    select(&s, name)
    s.press(.character("m"))
    defer { s.press(.escape) }
    return s.menu?.entries.map(\.title) ?? []
  }

  @Test func cancelDownloadIsOfferedForADownloadAndStopsItsBadge() {
    var s = F.state()
    #expect(titles(&s, "Big dataset.csv").contains("Cancel Download"))
    #expect(!titles(&s, "Notes.txt").contains("Cancel Download"))
    #expect(!titles(&s, "Quota test.bin").contains("Cancel Download"), "an upload is not a download")
    // A download waiting (queued, or retrying) can be cancelled too, and its placeholder row (a
    // file not downloaded) offers it.
    _ = s.reduce(.transfer(F.key("i12"), TransferState(id: 7, direction: .download, phase: .queued, name: "Team handbook.md")))
    #expect(titles(&s, "Team handbook.md").contains("Cancel Download"))

    select(&s, "Big dataset.csv")
    let item = s.currentItem!
    s.press(.character("m"))
    let index = s.menu!.entries.firstIndex { $0.title == "Cancel Download" }!
    for _ in 0..<index { s.press(.down) }
    #expect(s.press(.enter) == [.cancelDownload([item], F.demo)])
    // The badge goes at once; the row is not downloaded.
    #expect(s.transfers[F.key("i4")] == nil)
    let row = s.browse.list.loadedItems.first { $0.identifier == item.identifier }!
    #expect(Badge.of(row, transfer: s.transfer(of: row, in: F.demo)) == .notDownloaded)
    // A last progress event of the cancelled transfer, still on its way, does not bring it back.
    _ = s.reduce(.transfer(F.key("i4"), TransferState(id: 1, direction: .download, phase: .running, completedBytes: 11_000_000, totalBytes: 24_000_000)))
    #expect(s.transfers[F.key("i4")] == nil)
    // A new download of it later shows again.
    _ = s.reduce(.transfer(F.key("i4"), TransferState(id: 12, direction: .download, phase: .running, completedBytes: 1, totalBytes: 24_000_000)))
    #expect(s.transfers[F.key("i4")] != nil)
  }

  @Test func restoreWhenTheNameIsTakenOffersKeepBothReplaceAndCancel() {
    var s = Fixture.trashState()
    s.press(.down)
    let item = Fixture.trashed[1]
    #expect(s.press(.character("m"), .character("u")) == [.restore([item], .local)])
    _ = s.reduce(.restoreNameTaken([item], restored: 0, .local))
    #expect(s.menu?.entries.map(\.title) == ["Keep Both", "Replace", "Cancel"])
    #expect(s.menu?.title.contains("already exists there") == true)
    #expect(s.press(.enter) == [.restoreTaken([item], .keepBoth, .local)])
    _ = s.reduce(.restoreNameTaken([item], restored: 2, .local))
    #expect(s.message?.text.hasPrefix("Restored 2; ") == true)
    #expect(s.press(.character("r")) == [.restoreTaken([item], .replace, .local)])
    _ = s.reduce(.restoreNameTaken([item], restored: 0, .local))
    #expect(s.press(.character("c")).isEmpty)
    #expect(s.overlay == nil)
    _ = s.reduce(.restoreNameTaken([item], restored: 0, .local))
    #expect(s.press(.escape).isEmpty)
    #expect(s.overlay == nil)
  }
}
