import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// New files queued for upload into the remote folder on screen: listed above the provider's
/// rows at once, badged from their transfers, turned into the server's item when they arrive
/// (one row, never two), gone when their transfer is; only Info and Retry apply to them.
@Suite struct UploadRowsReduceTests {
  typealias F = RemoteFixture

  static let folder = ItemIdentifier("i2")

  /// A create's transfer as the engine reports it.
  static func create(
    _ id: Int64, _ name: String, into parent: ItemIdentifier = .root, _ phase: TransferState.Phase = .queued,
    done: Int64 = 0, error: ProviderError? = nil
  ) -> TransferState {
    TransferState(
      id: id, direction: .upload, phase: phase, completedBytes: done, totalBytes: 200, error: error,
      name: TerminalText.escape(name), newFile: TransferState.NewFile(parent: parent, name: ItemName(name)))
  }

  static func key(_ id: Int64) -> ItemKey { F.key("#upload-\(id)") }

  /// The demo root with two new files queued into it (b first in the list's order of arrival, a
  /// journaled first), one into Documents and one into another location.
  static func state() -> AppState {
    var s = F.state()
    _ = s.reduce(.transfer(key(21), create(21, "b.txt")))
    _ = s.reduce(.transfer(key(20), create(20, "a.txt")))
    _ = s.reduce(.transfer(key(22), create(22, "deep.txt", into: folder)))
    _ = s.reduce(.transfer(ItemKey(F.work, ItemIdentifier("#upload-23")), create(23, "work.txt")))
    return s
  }

  func names(_ s: AppState) -> [String] {
    (0..<s.browseCount).compactMap { s.visibleBrowseItem(at: $0)?.filename.displayString }
  }

  func text(_ s: AppState) -> String {
    _ = Snapshots.setUp
    return AppView.render(s).textLines().joined(separator: "\n")
  }

  @Test func queuedNewFilesAreListedAtOnceAboveTheFolderInQueueOrder() {
    let s = Self.state()
    #expect(s.browse.uploads.map(\.item.filename.displayString) == ["a.txt", "b.txt"])
    #expect(s.browseCount == 2 + F.items.count)
    #expect(names(s) == ["a.txt", "b.txt"] + F.items.map(\.filename.displayString))
    // The cursor stays on the row it was on; the new rows show above it.
    #expect(s.currentItem?.filename.displayString == "Documents")
    #expect(s.browse.cursor == 2 && s.browse.top == 0)
    let a = s.visibleBrowseItem(at: 0)!
    #expect(Badge.of(a, transfer: s.transfer(of: a, in: F.demo)) == .queued)
    #expect(a.path == ItemPath("/a.txt") && a.documentSize == 200)
    let screen = text(s)
    #expect(screen.contains("a.txt"))
    #expect(screen.contains("\(F.items.count) items, 2 to upload"))
  }

  @Test func theBadgeFollowsTheUploadAndAFailureSaysWhy() {
    var s = Self.state()
    _ = s.reduce(.transfer(Self.key(20), Self.create(20, "a.txt", .running, done: 84)))
    let a = s.visibleBrowseItem(at: 0)!
    #expect(Badge.of(a, transfer: s.transfer(of: a, in: F.demo)) == .uploading)
    #expect(text(s).contains("a.txt 42%"))
    // A progress event is not a new row: the list is the same.
    #expect(s.browse.uploads.count == 2)
    let refused = ProviderError(.insufficientQuota, "over quota")
    _ = s.reduce(.transfer(Self.key(20), Self.create(20, "a.txt", .failed, error: refused)))
    #expect(Badge.of(a, transfer: s.transfer(of: a, in: F.demo)) == .error)
    #expect(s.message?.text.contains("Upload of a.txt stopped: over quota") == true)
  }

  @Test func aPendingRowOffersInfoAndRetryOnly() {
    var s = Self.state()
    s.press(.home)
    #expect(s.currentItem?.filename.displayString == "a.txt")
    s.press(.character("m"))
    guard case .menu(let queued) = s.overlay else {
      Issue.record("no menu")
      return
    }
    #expect(queued.entries.map(\.title) == ["Info"])
    s.press(.escape)
    _ = s.reduce(.transfer(Self.key(20), Self.create(20, "a.txt", .failed, error: ProviderError(.cannotSynchronize, "no"))))
    s.press(.character("m"))
    guard case .menu(let failed) = s.overlay else {
      Issue.record("no menu")
      return
    }
    #expect(failed.entries.map(\.title) == ["Info", "Retry"])
    let pending = s.currentItem!
    #expect(s.press(.down, .enter) == [.retryTransfers([pending], F.demo)])
    s.press(.character("i"))
    guard case .info(let shown, _, _, _) = s.overlay else {
      Issue.record("no info")
      return
    }
    #expect(shown.identifier == pending.identifier)
    #expect(text(s).contains("upload failed: no"))
    #expect(text(s).contains("none yet (not on the server)") && !text(s).contains("#upload-"))
  }

  /// Rename, Tags, Delete, Favorite, Copy, Open and marking would name an item the server
  /// does not have: each is refused with the reason, and asks nothing of the app.
  @Test(arguments: ["r", "t", "d", "f", "y", " "] as [Character])
  func aPendingRowRefusesWhatTheServerCannotDoYet(_ key: Character) {
    var s = Self.state()
    s.press(.home)
    #expect(s.press(.character(key)).isEmpty)
    #expect(s.overlay == nil)
    #expect(s.browse.marked.isEmpty)
    #expect(s.message?.text.contains("“a.txt” is not on the server yet") == true)
    #expect(s.press(.enter).isEmpty)
  }

  @Test func anArrivedUploadBecomesTheServersItemInPlaceAndTheReloadListsItOnce() {
    var s = Self.state()
    s.press(.home)
    let made = F.item("a.txt", id: "i99", size: 200) { $0.parentIdentifier = .root }
    let effects = s.reduce(.transferFinished(Self.key(20), .upload, transferID: 20, item: made))
    #expect(effects.contains { if case .enumerate = $0 { true } else { false } }, "the folder reads again")
    #expect(s.transfers[Self.key(20)] == nil)
    // The same row, now the server's item: no gap, no second row while the reload runs.
    #expect(s.browse.uploads.map(\.arrived) == [true, false])
    #expect(s.currentItem?.identifier == made.identifier)
    #expect(Badge.of(s.currentItem!, transfer: s.transfer(of: s.currentItem!, in: F.demo)) == .none)
    #expect(text(s).contains("a.txt"))
    // The reload lists it (sorted among the others): the arrived row goes, the cursor follows.
    var listed = F.items
    listed.insert(made, at: 2)
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: listed, total: listed.count, isComplete: true))
    #expect(names(s).filter { $0 == "a.txt" }.count == 1)
    #expect(s.browse.uploads.map(\.item.filename.displayString) == ["b.txt"])
    #expect(s.browseCount == 1 + listed.count)
    #expect(s.currentItem?.identifier == made.identifier)
    #expect(text(s).contains("\(listed.count) items, 1 to upload"))
  }

  @Test func anUploadTheListingAlreadyHasLeavesOnlyThatRow() {
    var s = Self.state()
    let made = F.item("a.txt", id: "i99", size: 200) { $0.parentIdentifier = .root }
    var listed = F.items
    listed.append(made)
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: listed, total: listed.count, isComplete: true))
    #expect(s.reduce(.transferFinished(Self.key(20), .upload, transferID: 20, item: made)).isEmpty)
    #expect(names(s).filter { $0 == "a.txt" }.count == 1)
    #expect(s.browse.uploads.map(\.item.filename.displayString) == ["b.txt"])
  }

  /// The server answered the create (the engine says which item it made) and a reload lists it
  /// before the upload's finish event: one row at once, the listing's.
  @Test func aListingThatShowsTheCreatedItemBeforeTheFinishEventReplacesItsPendingRow() {
    var s = Self.state()
    let made = F.item("a.txt", id: "i99", size: 200) { $0.parentIdentifier = .root }
    var answered = Self.create(20, "a.txt", .running, done: 200)
    answered.newFile?.createdAs = made.identifier
    _ = s.reduce(.transfer(Self.key(20), answered))
    // Not listed yet: the pending row stays.
    #expect(s.browse.uploads.map(\.item.filename.displayString) == ["a.txt", "b.txt"])
    var listed = F.items
    listed.append(made)
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: listed, total: listed.count, isComplete: true))
    #expect(names(s).filter { $0 == "a.txt" }.count == 1)
    #expect(s.browse.uploads.map(\.item.filename.displayString) == ["b.txt"])
    // A progress event after that does not bring the row back; the finish event changes nothing.
    _ = s.reduce(.transfer(Self.key(20), answered))
    #expect(names(s).filter { $0 == "a.txt" }.count == 1)
    _ = s.reduce(.transferFinished(Self.key(20), .upload, transferID: 20, item: made))
    #expect(names(s).filter { $0 == "a.txt" }.count == 1)
    #expect(s.browse.uploads.map(\.item.filename.displayString) == ["b.txt"])
  }

  @Test func aTransferThatIsGoneTakesItsRowAndTheCursorStaysOnItsRow() {
    var s = Self.state()
    s.press(.down)
    #expect(s.currentItem?.filename.displayString == "Photos")
    _ = s.reduce(.transfer(Self.key(21), nil))
    #expect(s.browse.uploads.map(\.item.filename.displayString) == ["a.txt"])
    #expect(s.currentItem?.filename.displayString == "Photos")
    // A reload asks the journal about the rows shown; what it no longer holds goes, except a
    // transfer this process is running (its own finish event will come).
    let reload = s.press(.control("r"))
    #expect(reload.contains(.checkUploads(F.demo, transferIDs: [20])))
    _ = s.reduce(.transfer(Self.key(24), Self.create(24, "c.txt", .running, done: 10)))
    _ = s.reduce(.uploadsGone(F.demo, transferIDs: [20, 24]))
    #expect(s.browse.uploads.map(\.item.filename.displayString) == ["c.txt"])
    #expect(s.transfers[Self.key(20)] == nil)
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: F.items, total: F.items.count, isComplete: true))
    #expect(s.currentItem?.filename.displayString == "Photos")
    #expect(s.browse.cursor == 2)
  }

  /// A million-entry folder keeps its paging: the rows above take no page, G goes to the
  /// provider's last row, and the page asked for is the one holding it.
  @Test func pagingCountsTheRowsAboveThePages() {
    var s = AppState(width: 80, height: 24, start: F.root, locations: F.locations)
    _ = s.start()
    let total = 1_000_000
    let first = (0..<200).map { F.item(String(format: "f%07d", $0), id: "f\($0)") }
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: first, total: total, isComplete: false))
    _ = s.reduce(.transfer(Self.key(20), Self.create(20, "a.txt")))
    _ = s.reduce(.transfer(Self.key(21), Self.create(21, "b.txt")))
    #expect(s.browseCount == total + 2)
    #expect(s.currentItem?.filename.displayString == "f0000000")
    let effects = s.press(.character("G"))
    #expect(s.browse.cursor == total + 1)
    let lastPage = (total - 1) / 200
    #expect(effects.contains(.requestPages(ticket: s.browse.ticket, pages: lastPage...lastPage)))
    let last = (total - 200..<total).map { F.item(String(format: "f%07d", $0), id: "f\($0)") }
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: total - 200, items: last, total: total, isComplete: false))
    #expect(s.currentItem?.filename.displayString == "f0999999")
    #expect(s.browse.list.pages.count <= 2 * s.keptPageRadius + 1)
    s.press(.character("g"), .character("g"))
    #expect(s.currentItem?.filename.displayString == "a.txt")
    #expect(text(s).contains("1,000,000 items, 2 to upload"))
  }

  @Test func eachFolderListsItsOwnNewFiles() {
    var s = Self.state()
    s.press(.home, .down, .down)
    #expect(s.currentItem?.filename.displayString == "Documents")
    s.press(.enter)
    #expect(s.browse.uploads.map(\.item.filename.displayString) == ["deep.txt"])
    #expect(s.visibleBrowseItem(at: 0)?.path == ItemPath("/Documents/deep.txt"))
    // Back by Backspace: the parent is known by its path until the app resolves it.
    s.press(.backspace)
    #expect(s.browse.uploads.isEmpty)
    _ = s.reduce(.folderResolved(ticket: s.browse.ticket, .root))
    #expect(s.browse.uploads.map(\.item.filename.displayString) == ["a.txt", "b.txt"])
    // A local folder lists no uploads.
    var local = AppState(width: 80, height: 24, start: Fixture.start, locations: Fixture.locations + [F.locations[1]])
    _ = local.start()
    _ = local.reduce(.transfer(ItemKey(Fixture.start.domain, ItemIdentifier("#upload-1")), Self.create(1, "x.txt", into: Fixture.start.identifier!)))
    #expect(local.browse.uploads.isEmpty)
  }

  @Test func theFilterFindsNewFilesToo() {
    var s = Self.state()
    s.press(.character("/"))
    s.type("b.t")
    #expect(names(s) == ["b.txt"])
    s.press(.enter)
    #expect(s.currentItem?.filename.displayString == "b.txt")
  }

  @Test func aHostileNameIsEscapedOnItsRowAndInItsMenu() {
    var s = Self.state()
    let evil = "\u{1B}]0;pwned\u{07}\u{1B}[2Jevil.txt"
    _ = s.reduce(.transfer(Self.key(30), Self.create(30, evil)))
    s.press(.home, .down, .down)
    #expect(s.currentItem?.filename.bytes == Array(evil.utf8))
    s.press(.character("m"))
    let screen = text(s)
    #expect(screen.contains("evil.txt"))
    #expect(!screen.contains("\u{1B}") && !screen.contains("\u{07}"))
  }
}
