import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// Issue 9 items 4 and 5: a remote location that stops answering is offline in the sidebar as
/// soon as anything says so, shows what this computer knows of its folder meanwhile, and is read
/// again — sidebar and folder — as soon as it answers, with no key.
@Suite struct OfflineReduceTests {
  typealias F = RemoteFixture
  static let unreachable = ProviderError(.serverUnreachable, "cannot reach 127.0.0.1:1: connection refused")

  func status(_ s: AppState, _ d: DomainIdentifier = F.demo) -> LocationStatus? {
    s.sidebar.locations.first { $0.domain == d }?.status
  }

  /// A listing that cannot reach the server: the sidebar says offline (it said online until the
  /// next minute's check), and the index is asked for what it knows of the folder.
  @Test func aListingThatCannotReachTheServerSaysOfflineAndAsksTheIndex() {
    var s = F.state()
    #expect(status(s) == .online)
    let reload = s.reduce(.key(.control("r")))
    #expect(reload.contains { if case .enumerate = $0 { true } else { false } })
    let effects = s.reduce(.loadFailed(ticket: s.browse.ticket, Self.unreachable))
    #expect(status(s) == .offline(Self.unreachable.message))
    #expect(effects == [.listKnownItems(ticket: s.browse.ticket, F.root, sort: s.sort, includeHidden: s.showHidden)])
  }

  /// What the index knows is listed, marked offline; files with no copy here are dimmed.
  @Test func theKnownItemsAreListedAndMarkedOffline() throws {
    var s = F.state(width: 100)
    _ = s.reduce(.key(.control("r")))
    _ = s.reduce(.loadFailed(ticket: s.browse.ticket, Self.unreachable))
    let known = [F.item("Notes.txt", id: "i6"), F.item("Team handbook.md", id: "i12", downloaded: false)]
    _ = s.reduce(.knownItemsListed(ticket: s.browse.ticket, items: known))
    #expect(s.browse.list.loadedItems.map(\.filename.displayString) == ["Notes.txt", "Team handbook.md"])
    #expect(s.browse.offline == Self.unreachable && s.browse.error == nil)
    let screen = AppView.render(s)
    let lines = screen.textLines()
    #expect(lines.last?.contains("2 items known here (offline)") == true, "\(lines.joined(separator: "\n"))")
    let handbook = try #require(lines.firstIndex { $0.contains("Team handbook.md") })
    let x = try #require(lines[handbook].range(of: "Team handbook.md")).lowerBound.utf16Offset(in: lines[handbook])
    #expect(screen[x, handbook].role == .listDimmed)
    // A late answer for an older listing changes nothing.
    #expect(s.reduce(.knownItemsListed(ticket: s.browse.ticket - 1, items: [])).isEmpty)
    #expect(s.browse.list.count == 2)
  }

  /// "Cannot reach" is said once, when the location goes offline. A later background failure
  /// saying the same (a reload, a held upload, the held queue) leaves what a command said on the
  /// status line: CI once saw a paste's "Queued 1 upload …" replaced by its own reload's error.
  @Test func cannotReachIsSaidOnceAndThenLeavesTheCommandsMessage() {
    var s = F.state()
    _ = s.reduce(.key(.control("r")))
    _ = s.reduce(.loadFailed(ticket: s.browse.ticket, Self.unreachable))
    #expect(s.message?.text == Self.unreachable.message, "the first time, it is news")
    // The paste's own reload is under way when it says what it did (BrowserApp.report).
    _ = s.reduce(.operationSucceeded(message: nil, reload: true, select: nil))
    _ = s.reduce(.notice(StatusMessage("Queued 1 upload (the server cannot be reached: they go when it is back)")))
    _ = s.reduce(.loadFailed(ticket: s.browse.ticket, Self.unreachable))
    _ = s.reduce(.locationThrottled(F.demo, Self.unreachable))
    let upload = TransferState(id: 1, direction: .upload, phase: .throttled, completedBytes: 0, totalBytes: 5, error: Self.unreachable, name: "a.txt", newFile: nil)
    _ = s.reduce(.transfer(ItemKey(F.demo, ItemIdentifier("i6")), upload))
    #expect(s.message?.text.hasPrefix("Queued 1 upload") == true, "\(s.message?.text ?? "")")
    #expect(status(s) == .offline(Self.unreachable.message))
    // Another kind of failure is still said.
    _ = s.reduce(.locationThrottled(F.demo, ProviderError(.insufficientQuota, "over quota")))
    #expect(s.message?.text.contains("over quota") == true)
  }

  /// Nothing known: the error stays, as before.
  @Test func nothingKnownKeepsTheError() {
    var s = F.state()
    _ = s.reduce(.key(.control("r")))
    _ = s.reduce(.loadFailed(ticket: s.browse.ticket, Self.unreachable))
    _ = s.reduce(.knownItemsListed(ticket: s.browse.ticket, items: []))
    #expect(s.browse.error == Self.unreachable && s.browse.offline == nil)
  }

  /// The server answers again: the engine says so, the location is asked how it is, and once it
  /// is online the folder is read again by itself.
  @Test func backOnlineTheSidebarAndTheFolderAreReadAgain() {
    var s = F.state()
    _ = s.reduce(.key(.control("r")))
    _ = s.reduce(.loadFailed(ticket: s.browse.ticket, Self.unreachable))
    _ = s.reduce(.knownItemsListed(ticket: s.browse.ticket, items: [F.item("Notes.txt", id: "i6")]))
    #expect(s.reduce(.locationReachable(F.demo)) == [.checkLocations([F.demo])])
    let old = s.browse.ticket
    let effects = s.reduce(.locationStatus(F.demo, .online))
    #expect(effects.contains { if case .enumerate = $0 { true } else { false } })
    #expect(s.browse.ticket != old)
    #expect(s.message?.text == "Demo is back online")
    // The server's first page replaces the known rows.
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: F.items, total: F.items.count, isComplete: true))
    #expect(s.browse.offline == nil && s.browse.list.count == F.items.count)
  }

  /// A listing that works while the sidebar still says offline (Ctrl-R after the server came
  /// back): the location is asked again rather than left offline for up to a minute.
  @Test func aListingThatWorksWhileTheSidebarSaysOfflineAsksAgain() {
    var s = F.state()
    _ = s.reduce(.locationStatus(F.demo, .offline("cannot reach")))
    _ = s.reduce(.key(.control("r")))
    let effects = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: F.items, total: F.items.count, isComplete: true))
    #expect(effects.contains(.checkLocations([F.demo])))
    #expect(status(s) == .checking)
    _ = s.reduce(.locationStatus(F.demo, .online))
    #expect(status(s) == .online)
  }
}
