import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// Pending upload rows where things go wrong: the folder cannot be listed (offline, when they
/// pile up), the journal re-keys a transfer, and a launch restores thousands of them at once.
@Suite struct UploadRowsEdgeTests {
  typealias F = RemoteFixture
  typealias U = UploadRowsReduceTests

  func text(_ s: AppState) -> String {
    _ = Snapshots.setUp
    return AppView.render(s).textLines().joined(separator: "\n")
  }

  @Test func rowsStayListedAboveAFailedListing() {
    var s = AppState(width: 80, height: 24, start: F.root, locations: F.locations)
    _ = s.start()
    _ = s.reduce(.loadFailed(ticket: s.browse.ticket, ProviderError(.serverUnreachable, "cannot reach demo: connection refused")))
    _ = s.reduce(.transfer(U.key(20), U.create(20, "a.txt", .throttled)))
    let lines = AppView.render(s).textLines()
    let row = lines.firstIndex { $0.contains("a.txt") }
    let error = lines.firstIndex { $0.contains("cannot reach demo: connection refused") }
    #expect(row != nil && error != nil && row! < error!, "\(lines.joined(separator: "\n"))")
    #expect(s.browseCount == 1 && s.currentItem?.filename.displayString == "a.txt")
  }

  @Test func aTransferTheJournalReKeyedLeavesNoGhostRow() {
    var s = F.state()
    _ = s.reduce(.transfer(U.key(20), U.create(20, "a.txt")))
    #expect(s.browse.uploads.count == 1)
    // The server stored other bytes: the same transfer (id 20) now sends content to its item.
    let server = ItemKey(F.demo, ItemIdentifier("i40"))
    _ = s.reduce(
      .transfer(server, TransferState(id: 20, direction: .upload, phase: .retrying(at: Date()), totalBytes: 200, name: "a.txt")))
    #expect(s.transfers[U.key(20)] == nil)
    #expect(s.browse.uploads.isEmpty)
    #expect(s.transfers[server]?.id == 20)
  }

  @Test func aLaunchRestoresEveryRowInOneAction() {
    var s = F.state()
    var restored: [ItemKey: TransferState] = [:]
    for id in Int64(100)..<Int64(2100) { restored[U.key(id)] = U.create(id, "f\(id).txt") }
    // The queue already said something newer of one of them: it wins over the journal read.
    _ = s.reduce(.transfer(U.key(100), U.create(100, "f100.txt", .running, done: 100)))
    _ = s.reduce(.transfersRestored(restored))
    #expect(s.browse.uploads.count == 2000)
    #expect(s.browse.uploads.first?.item.filename.displayString == "f100.txt")
    #expect(s.transfers[U.key(100)]?.phase == .running)
    #expect(text(s).contains("\(F.items.count) items, 2,000 to upload"))
  }
}
