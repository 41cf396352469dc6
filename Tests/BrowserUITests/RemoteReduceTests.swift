import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// The reducer's side of remote locations: the transfer map, the locations' states, the sign-in
/// prompt for held work, and the menu entries of remote items.
@Suite struct RemoteReduceTests {
  typealias F = RemoteFixture

  func row(_ s: AppState, _ name: String) -> Item? {
    s.browse.list.loadedItems.first { $0.filename.displayString == name }
  }

  func select(_ s: inout AppState, _ name: String) {
    s.press(.home)
    while s.currentItem?.filename.displayString != name, s.browse.cursor < s.browseCount - 1 { s.press(.down) }
  }

  @Test func startChecksTheRemoteLocationsOnly() {
    var s = AppState(width: 80, height: 24, start: F.root, locations: F.locations)
    let effects = s.start()
    #expect(effects.contains(.checkLocations([F.demo, F.work])))
    var local = AppState(width: 80, height: 24, start: Fixture.start, locations: Fixture.locations)
    #expect(!local.start().contains { if case .checkLocations = $0 { return true } else { return false } })
  }

  @Test func progressMovesTheBadgeAndFinishingMarksTheRowDownloaded() {
    var s = F.state()
    let key = F.key("i4")
    let item = row(s, "Big dataset.csv")!
    #expect(Badge.of(item, transfer: s.transfer(of: item, in: F.demo)) == .downloading)
    #expect(s.transfers[key]?.percent == 42)
    _ = s.reduce(.transfer(key, TransferState(id: 1, direction: .download, phase: .running, completedBytes: 23_000_000, totalBytes: 24_000_000)))
    #expect(s.transfers[key]?.percent == 95)
    // A late event of an older transfer does not clear a newer one.
    _ = s.reduce(.transferFinished(key, .download, transferID: 99, item: nil))
    #expect(s.transfers[key] != nil)
    _ = s.reduce(.transferFinished(key, .download, transferID: 1, item: item))
    #expect(s.transfers[key] == nil)
    let after = row(s, "Big dataset.csv")!
    #expect(after.isDownloaded)
    #expect(Badge.of(after, transfer: nil) == .none)
  }

  /// A new file's upload that ends in the folder on screen, where the listing has no row for it
  /// yet, reads the folder again (it appears without a manual reload); one whose row is there
  /// is updated in place.
  @Test func aNewFileUploadedIntoTheVisibleFolderReloadsIt() {
    var s = F.state()
    var made = F.item("hello.txt", id: "i99", size: 6)
    made.parentIdentifier = .root
    let effects = s.reduce(.transferFinished(F.key("#upload-1"), .upload, transferID: 8, item: made))
    #expect(effects.contains { if case .enumerate = $0 { true } else { false } })
    var elsewhere = made
    elsewhere.parentIdentifier = ItemIdentifier("i1")
    var t = F.state()
    #expect(t.reduce(.transferFinished(F.key("#upload-2"), .upload, transferID: 9, item: elsewhere)).isEmpty)
    var existing = row(t, "Project plan.md")!
    existing.isDownloaded = false
    #expect(t.reduce(.transferFinished(F.key(existing.identifier.rawValue), .upload, transferID: 3, item: existing)).isEmpty)
  }

  @Test func anUploadAnsweredWithAConflictShowsTheConflictBadge() {
    var s = F.state()
    var server = row(s, "Project plan.md")!
    server.uploadingError = ProviderError(.localVersionConflictingWithServer, "kept as a conflict copy")
    server.decorations = [DecorationIdentifier("conflict")]
    _ = s.reduce(.transferFinished(F.key("i7"), .upload, transferID: 3, item: server))
    let after = row(s, "Project plan.md")!
    #expect(Badge.of(after, transfer: s.transfer(of: after, in: F.demo)) == .conflict)
  }

  @Test func aStoppedUploadSaysWhyAndWhatToDo() {
    let s = F.state()
    #expect(s.message?.isError == true)
    #expect(s.message?.text.contains("Upload of Quota test.bin stopped") == true)
    #expect(s.message?.text.contains("Free space on the server, then retry.") == true)
    let quota = row(s, "Quota test.bin")!
    #expect(Badge.of(quota, transfer: s.transfer(of: quota, in: F.demo)) == .error)
  }

  @Test func theSidebarSaysHowEachLocationIs() {
    var s = F.state()
    let demo = s.sidebar.locations.first { $0.domain == F.demo }!
    #expect(demo.state == "syncing 3")
    #expect(s.sidebar.locations.first { $0.domain == F.work }?.state == "needs sign-in")
    _ = s.reduce(.locationSyncing(F.demo, 0))
    #expect(s.sidebar.locations.first { $0.domain == F.demo }?.state == "online")
    _ = s.reduce(.locationStatus(F.demo, .offline("no route")))
    _ = s.reduce(.locationSyncing(F.demo, 2))
    #expect(s.sidebar.locations.first { $0.domain == F.demo }?.state == "offline, 2 waiting")
    _ = s.reduce(.locationThrottled(F.demo, F.quota))
    #expect(s.sidebar.locations.first { $0.domain == F.demo }?.state == "over quota, 2 waiting")
    // A local location never gets a state.
    _ = s.reduce(.locationStatus(.local, .offline("?")))
    #expect(s.sidebar.locations.first { $0.domain == .local }?.state == nil)
  }

  @Test func heldWorkOpensTheSignInPromptWithTheUserAndRemembersByDefault() {
    var s = F.state()
    _ = s.reduce(.locationThrottled(F.demo, ProviderError(.notAuthenticated, "demo refused the password")))
    guard case .auth(let a) = s.overlay else {
      Issue.record("no prompt: \(String(describing: s.overlay))")
      return
    }
    #expect(a.user.string == "ana")
    #expect(a.field == 1, "the user is known: the password is asked")
    #expect(a.remember)
    #expect(a.hint == "folio demo: user ana, password demo-\\e[31m7f3a", "the hint is sanitised")
    #expect(s.sidebar.locations.first { $0.domain == F.demo }?.state?.hasPrefix("needs sign-in") == true)
    s.type("pw")
    #expect(s.press(.enter) == [.authenticate(F.demo, user: "ana", secret: "pw", remember: true)])
    _ = s.reduce(.authenticationFailed(F.demo, ProviderError(.notAuthenticated, "wrong password")))
    // Tab to "remember", Space turns it off.
    s.press(.tab, .character(" "))
    guard case .auth(let b) = s.overlay else { return }
    #expect(!b.remember && b.field == 2)
    s.press(.backTab)
    s.type("pw2")
    #expect(s.press(.enter) == [.authenticate(F.demo, user: "ana", secret: "pw2", remember: false)])
    let resumed = s.reduce(.authenticated(F.demo))
    #expect(s.overlay == nil)
    #expect(resumed.contains(.checkLocations([F.demo])))
    #expect(s.sidebar.locations.first { $0.domain == F.demo }?.status == .online)
  }

  @Test func theMenuOfRemoteItemsOffersWhatApplies() {
    var s = F.state()
    func titles(_ name: String) -> [String] {
      select(&s, name)
      s.press(.character("m"))
      defer { s.press(.escape) }
      guard case .menu(let m) = s.overlay else { return [] }
      return m.entries.map(\.title)
    }
    let cloud = titles("Team handbook.md")
    #expect(cloud.contains("Download") && cloud.contains("Keep Downloaded") && !cloud.contains("Remove Download"))
    let here = titles("Notes.txt")
    #expect(here.contains("Remove Download") && !here.contains("Download") && !here.contains("Retry"))
    let downloading = titles("Big dataset.csv")
    #expect(!downloading.contains("Download"), "already downloading")
    let stopped = titles("Quota test.bin")
    #expect(stopped.contains("Retry"))
    #expect(stopped.contains("Lock"), "the server's declared action")
    let pinned = titles("Documents")
    // Kept downloaded, its download cannot be removed (the engine refuses): only the way out.
    #expect(pinned.contains("Don't Keep Downloaded") && !pinned.contains("Remove Download"))
    let conflict = titles("Report.md")
    #expect(conflict.contains("Resolve Conflict…"))
    #expect(!titles("Notes.txt").contains("Resolve Conflict…"))
    // Nothing of this on a local location.
    var local = Fixture.state()
    local.press(.end, .up, .up, .character("m"))
    guard case .menu(let m) = local.overlay else { return }
    #expect(!m.entries.contains { ["Download", "Remove Download", "Keep Downloaded", "Retry"].contains($0.title) })
  }

  @Test func menuEntriesAskForTheirEffects() {
    var s = F.state()
    select(&s, "Team handbook.md")
    let item = s.currentItem!
    s.press(.character("m"))
    guard case .menu(let m) = s.overlay else { return }
    let download = m.entries.firstIndex { $0.title == "Download" }!
    for _ in 0..<download { s.press(.down) }
    #expect(s.press(.enter) == [.download([item], F.demo)])
    s.press(.character("m"))
    guard case .menu(let m2) = s.overlay else { return }
    let keep = m2.entries.firstIndex { $0.title == "Keep Downloaded" }!
    for _ in 0..<keep { s.press(.down) }
    #expect(s.press(.enter) == [.keepDownloaded([item], true, F.demo)])
    select(&s, "Quota test.bin")
    let quota = s.currentItem!
    s.press(.character("m"))
    guard case .menu(let m3) = s.overlay else { return }
    for _ in 0..<m3.entries.firstIndex(where: { $0.title == "Retry" })! { s.press(.down) }
    #expect(s.press(.enter) == [.retryTransfers([quota], F.demo)])
  }

  @Test func resolveConflictOffersThreeChoicesAndFindsTheCopy() {
    var s = F.state()
    select(&s, "Report.md")
    let original = s.currentItem!
    s.press(.character("m"))
    guard case .menu(let m) = s.overlay else { return }
    for _ in 0..<m.entries.firstIndex(where: { $0.title == "Resolve Conflict…" })! { s.press(.down) }
    s.press(.enter)
    guard case .menu(let chooser) = s.overlay else {
      Issue.record("no chooser")
      return
    }
    #expect(chooser.entries.map(\.title) == ConflictChoice.allCases.map(\.title))
    s.press(.down, .down)
    #expect(s.press(.enter) == [.resolveConflict(original, copy: ItemIdentifier("i11"), .keepBoth, F.demo)])
    // From the copy itself: the copy is the item.
    select(&s, "Report (conflict, ana, 2026-11-22 10.31).md")
    let copy = s.currentItem!
    s.press(.character("m"))
    guard case .menu(let m2) = s.overlay else { return }
    for _ in 0..<m2.entries.firstIndex(where: { $0.title == "Resolve Conflict…" })! { s.press(.down) }
    s.press(.enter, .enter)
    #expect(s.overlay == nil)
    _ = copy
  }

  @Test func remoteChangesReloadOnlyTheirLocationsFolder() {
    var s = F.state()
    let ticket = s.browse.ticket
    #expect(s.reduce(.remoteItemsChanged(F.work)).isEmpty)
    let effects = s.reduce(.remoteItemsChanged(F.demo))
    #expect(effects.contains(.closeEnumeration(ticket: ticket)))
    #expect(s.browse.ticket != ticket)
  }

  @Test func declarationsReplaceTheLocationsActionsAndSanitiseDecorations() {
    var s = F.state()
    #expect(s.customActions.map(\.identifier.rawValue) == ["lock", "compress"])
    let unlock = CustomActionEntry(
      identifier: ActionIdentifier("unlock"), name: "Unlock", rule: try! ActivationRule(parsing: "TRUEPREDICATE"), domain: F.demo)
    _ = s.reduce(.declarationsLoaded(F.demo, actions: [unlock], decorations: F.declarations))
    #expect(s.customActions.map(\.identifier.rawValue) == ["unlock", "compress"])
    let evil = s.decorations[F.demo]!.first { $0.identifier.rawValue == "evil" }!
    #expect(evil.glyph == "*" && evil.asciiGlyph == "*")
    let item = row(s, "odd.txt")!
    #expect(!evil.label(for: item).contains("\u{1B}"))
    #expect(s.decorations[F.demo]!.first { $0.identifier.rawValue == "locked" }!.glyph == "🔒")
  }

  @Test func infoShowsTheTransferItsErrorAndTheMarks() {
    var s = F.state()
    select(&s, "Quota test.bin")
    s.press(.character("i"))
    guard case .info(let item, let location, let domain, _) = s.overlay else { return }
    let rows = Dictionary(uniqueKeysWithValues: InfoRows.rows(item, location: location, domain: domain, s).map { ($0.0, $0.1) })
    #expect(rows["Sync"]?.hasPrefix("upload waiting") == true)
    #expect(rows["Recovery"] == "Free space on the server, then retry.")
    s.press(.escape)
    select(&s, "Release checklist.md")
    s.press(.character("i"))
    guard case .info(let locked, let l2, let d2, _) = s.overlay else { return }
    let rows2 = Dictionary(uniqueKeysWithValues: InfoRows.rows(locked, location: l2, domain: d2, s).map { ($0.0, $0.1) })
    #expect(rows2["Marks"] == "Locked by ben, Shared by ben")
    #expect(rows2["Owner"] == "ben")
    #expect(rows2["Sync"] == "not downloaded")
  }

  /// A server that ignores conditional writes (nginx, `rclone serve`: the probe's finding) makes
  /// its location's Info say that conflicting edits cannot be detected; one that honours them
  /// says nothing of it (issue 11 §1: not only `folio domain list`).
  @Test func infoOfALocationThatIgnoresConditionalWritesSaysItCannotDetectConflictingEdits() {
    func infoRows(_ s: inout AppState) -> [String: String] {
      select(&s, "Notes.txt")
      s.press(.character("i"))
      guard case .info(let item, let location, let domain, _) = s.overlay else { return [:] }
      s.press(.escape)
      return Dictionary(uniqueKeysWithValues: InfoRows.rows(item, location: location, domain: domain, s).map { ($0.0, $0.1) })
    }
    var guarded = F.state()
    #expect(infoRows(&guarded)["Conflicts"] == nil)
    var unguarded = F.state(detectsConflictingEdits: false)
    let rows = infoRows(&unguarded)
    #expect(rows["Conflicts"] == "cannot detect conflicting edits")
    #expect(rows["Why"] == "the server ignores conditional writes")
  }

  /// A file that does not fit holds the uploads while the account is still under its quota: a
  /// status check then finds the server online, and the sidebar must keep saying why they wait.
  @Test func overQuotaStaysInTheSidebarUntilTheUploadsAreReleased() {
    var s = F.state()
    let demo = { s.sidebar.locations.first { $0.domain == F.demo }?.state }
    _ = s.reduce(.locationSyncing(F.demo, 1))
    _ = s.reduce(.locationThrottled(F.demo, F.quota))
    #expect(demo() == "over quota, 1 waiting")
    _ = s.reduce(.locationStatus(F.demo, .online))
    #expect(demo() == "over quota, 1 waiting", "a status check does not hide the held uploads")
    _ = s.reduce(.locationStatus(F.demo, .offline("no route")))
    #expect(demo() == "offline, 1 waiting", "a worse state still shows")
    _ = s.reduce(.locationResumed(F.demo))
    _ = s.reduce(.locationStatus(F.demo, .online))
    #expect(demo() == "syncing 1")
  }

  @Test func theLocationResumingPutsHeldTransfersBackInTheQueue() {
    var s = F.state()
    let effects = s.reduce(.locationResumed(F.demo))
    #expect(s.transfers[F.key("i8")]?.phase == .queued)
    #expect(effects == [.checkLocations([F.demo])])
  }
}
