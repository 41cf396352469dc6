import Foundation
import ProviderAPI

@testable import BrowserUI

/// A remote location as the sync engine reports it: every badge of the vocabulary live (a
/// download at 42 %, an upload at 7 %, a queued upload, an upload stopped over quota, a conflict,
/// kept downloaded, not downloaded), the server's decorations (Locked by, Shared by) and a hostile
/// declaration whose glyph must not reach the terminal.
enum RemoteFixture {
  static let demo = DomainIdentifier(unchecked: "demo")
  static let work = DomainIdentifier(unchecked: "work")
  static let root = FolderLocation(domain: demo, identifier: .root, path: .root, name: "Demo")

  static let locations: [LocationEntry] = [
    Fixture.locations[0],
    LocationEntry(
      domain: demo, name: "Demo", root: root, isRemote: true, userName: "ana",
      signInHint: "folio demo: user ana, password demo-\u{1B}[31m7f3a"),
    LocationEntry(
      domain: work, name: "Work", root: FolderLocation(domain: work, identifier: .root, path: .root, name: "Work"),
      isRemote: true, userName: "ana"),
  ]

  /// What FolioServer declares, plus a hostile decoration.
  static let declarations: [DecorationDeclaration] = [
    DecorationDeclaration(
      identifier: DecorationIdentifier("locked"), category: .badge, label: "Locked by %@", labelKey: "lockedBy", glyph: "🔒",
      asciiGlyph: "L"),
    DecorationDeclaration(
      identifier: DecorationIdentifier("sharedBy"), category: .sharing, label: "Shared by %@", labelKey: "owner",
      glyph: "👥", asciiGlyph: "S"),
    DecorationDeclaration(
      identifier: DecorationIdentifier("conflict"), category: .badge, label: "Conflict", glyph: "⚠", asciiGlyph: "!"),
    DecorationDeclaration(
      identifier: DecorationIdentifier("evil"), category: .badge, label: "\u{1B}]0;pwned\u{07}evil %@", labelKey: "x",
      glyph: "\u{1B}[2J", asciiGlyph: "\u{07}"),
  ]

  /// A provider-declared action of the demo location.
  static let lock = CustomActionEntry(
    identifier: ActionIdentifier("lock"), name: "Lock",
    rule: try! ActivationRule(parsing: "isFolder == NO AND userInfo.locked != YES"), domain: demo)

  static func item(
    _ name: String, id: String, folder: Bool = false, size: Int64? = 1234, downloaded: Bool = true,
    _ tweak: (inout Item) -> Void = { _ in }
  ) -> Item {
    let n = ItemName(name)
    var item = Item(
      identifier: ItemIdentifier(id), parentIdentifier: .root, filename: n, path: ItemPath.root.appending(n),
      contentType: folder ? .folder : ContentType.forExtension(n.pathExtension), version: try! ItemVersion(content: "1", metadata: "1"),
      documentSize: folder ? nil : size, creationDate: Fixture.date(2026, 11, 1), contentModificationDate: Fixture.date(2026, 11, 21, 16, 5),
      isDownloaded: folder || downloaded, isMostRecentVersionDownloaded: folder || downloaded)
    tweak(&item)
    return item
  }

  static let items: [Item] = [
    item("Documents", id: "i2", folder: true) { $0.contentPolicy = .downloadEagerlyAndKeepDownloaded },
    item("Photos", id: "i3", folder: true),
    item("Big dataset.csv", id: "i4", size: 24_000_000, downloaded: false),
    item("Budget 2026.csv", id: "i5", size: 3_200) { $0.isUploaded = false },
    item("Notes.txt", id: "i6", size: 880),
    item("Project plan.md", id: "i7", size: 4_100) { $0.tags = ["Blue"] },
    item("Quota test.bin", id: "i8", size: 9_000_000),
    item("Release checklist.md", id: "i9", size: 1_500, downloaded: false) {
      $0.isShared = true
      $0.ownerName = "ben"
      $0.userInfo = ["locked": .bool(true), "lockedBy": .string("ben"), "owner": .string("ben")]
      $0.decorations = [DecorationIdentifier("locked"), DecorationIdentifier("sharedBy")]
    },
    item("Report (conflict, ana, 2026-11-22 10.31).md", id: "i11", size: 2_000) {
      $0.userInfo = ["conflictOf": .string("i10")]
      $0.decorations = [DecorationIdentifier("conflict")]
    },
    item("Report.md", id: "i10", size: 1_900) { $0.decorations = [DecorationIdentifier("conflict")] },
    item("Team handbook.md", id: "i12", size: 12_000, downloaded: false) {
      $0.isShared = true
      $0.ownerName = "ben"
      $0.userInfo = ["owner": .string("ben")]
      $0.decorations = [DecorationIdentifier("sharedBy")]
    },
    item("odd.txt", id: "i13", size: 10, downloaded: false) {
      $0.userInfo = ["x": .string("\u{1B}[31mx")]
      $0.decorations = [DecorationIdentifier("evil")]
    },
  ]

  static func key(_ id: String) -> ItemKey { ItemKey(demo, ItemIdentifier(id)) }

  static let quota = ProviderError(.insufficientQuota, "ana is over quota on demo: 9.0 MB would take them past 10 MB")

  /// The demo location's root, everything loaded, the engine's events applied.
  ///
  /// - Parameter detectsConflictingEdits: false: the demo server ignores conditional writes.
  static func state(width: Int = 80, height: Int = 24, detectsConflictingEdits: Bool = true) -> AppState {
    var located = locations
    located[1].detectsConflictingEdits = detectsConflictingEdits
    var s = AppState(width: width, height: height, start: root, locations: located)
    s.preview.visibility = .hidden  // (as Fixture.emptyState: these snapshots are of the list)
    s.timeZone = Fixture.utc
    s.customActions = [Fixture.compress]
    _ = s.start()
    _ = s.reduce(.sidebarChanged(favorites: [], tags: [("Blue", 1)]))
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: items, total: items.count, isComplete: true))
    _ = s.reduce(.declarationsLoaded(demo, actions: [lock], decorations: declarations))
    _ = s.reduce(.locationStatus(demo, .online))
    _ = s.reduce(.locationStatus(work, .needsSignIn("no password is known for work")))
    _ = s.reduce(.locationSyncing(demo, 3))
    _ = s.reduce(.transfer(key("i4"), TransferState(id: 1, direction: .download, phase: .running, completedBytes: 10_080_000, totalBytes: 24_000_000, name: "Big dataset.csv")))
    _ = s.reduce(.transfer(key("i5"), TransferState(id: 2, direction: .upload, phase: .queued, totalBytes: 3_200, name: "Budget 2026.csv")))
    _ = s.reduce(.transfer(key("i7"), TransferState(id: 3, direction: .upload, phase: .running, completedBytes: 300, totalBytes: 4_100, name: "Project plan.md")))
    _ = s.reduce(.transfer(key("i8"), TransferState(id: 4, direction: .upload, phase: .throttled, totalBytes: 9_000_000, error: quota, name: "Quota test.bin")))
    return s
  }
}
