import Foundation
import ProviderAPI

@testable import BrowserUI

/// Deterministic data for the views and the reducer: fixed dates in UTC, fixed identifiers, and
/// the hostile names of the test plan (§4.1): wide CJK, emoji, combining marks, C0/C1 controls and
/// escape sequences, invalid UTF-8, bidi overrides, 255-byte names.
enum Fixture {
  static let utc = TimeZone(identifier: "UTC")!
  static let work = DomainIdentifier(unchecked: "work-dav")
  static let photos = DomainIdentifier(unchecked: "photos")
  static let home = ItemPath("/home/ana")

  /// A date in UTC: `date(2026, 11, 20, 9, 41)`.
  static func date(_ y: Int, _ mo: Int, _ d: Int, _ h: Int = 12, _ mi: Int = 0) -> Date {
    var cal = Calendar(identifier: .gregorian)
    cal.timeZone = utc
    return cal.date(from: DateComponents(year: y, month: mo, day: d, hour: h, minute: mi))!
  }

  static let locations: [LocationEntry] = [
    LocationEntry(
      domain: .local, name: "This Computer",
      root: FolderLocation(domain: .local, identifier: .root, path: .root, name: "This Computer")),
    LocationEntry(
      domain: work, name: "Work (WebDAV)",
      root: FolderLocation(domain: work, identifier: .root, path: .root, name: "Work (WebDAV)"), state: "online"),
    LocationEntry(
      domain: photos, name: "Photos \u{1B}[31mcloud\u{202E}",
      root: FolderLocation(domain: photos, identifier: .root, path: .root, name: "Photos"), state: "needs sign-in"),
  ]

  static let start = FolderLocation(domain: .local, identifier: ItemIdentifier("home"), path: home, name: "ana")

  /// An item in `parent` named by raw bytes.
  static func item(
    bytes: [UInt8], id: String, folder: Bool = false, in parent: ItemPath = home, size: Int64? = 1234,
    modified: Date = date(2026, 11, 20, 9, 41), _ tweak: (inout Item) -> Void = { _ in }
  ) -> Item {
    let name = ItemName(bytes: bytes)
    var item = Item(
      identifier: ItemIdentifier(id), parentIdentifier: ItemIdentifier("home"), filename: name,
      path: parent.appending(name), contentType: folder ? .folder : ContentType.forExtension(name.pathExtension),
      documentSize: folder ? nil : size, creationDate: date(2025, 1, 2, 3, 4), contentModificationDate: modified)
    tweak(&item)
    return item
  }

  static func item(
    _ name: String, id: String, folder: Bool = false, in parent: ItemPath = home, size: Int64? = 1234,
    modified: Date = date(2026, 11, 20, 9, 41), _ tweak: (inout Item) -> Void = { _ in }
  ) -> Item {
    item(bytes: Array(name.utf8), id: id, folder: folder, in: parent, size: size, modified: modified, tweak)
  }

  static let unreachable = ProviderError(
    .serverUnreachable, "could not reach dav.example.com: \u{1B}[31mconnection refused\u{1B}[0m")

  /// The folder every Browse snapshot shows: three folders and the hostile names, with every badge.
  static let corpus: [Item] = [
    item("Documents", id: "f-docs", folder: true, modified: date(2026, 10, 1, 8, 0)) {
      $0.favoriteRank = 1
      $0.tags = ["Blue"]
    },
    item("Photos 写真", id: "f-photos", folder: true, modified: date(2026, 9, 2, 7, 30)) { $0.isShared = true },
    item("Projects", id: "f-proj", folder: true) { $0.contentPolicy = .downloadEagerlyAndKeepDownloaded },
    item("測試_Русский___ě_áñ.txt", id: "cjk", size: 2_048) { $0.tags = ["Red", "Green"] },
    item("漢字のファイル名がとても長い場合の表示テスト資料.pdf", id: "cjk-long", size: 3_500_000),
    item("👸🏼 party 🧝🏾‍♀️ 🧑🏻‍🔧 🧑‍🌾 🇯🇵.png", id: "emoji", size: 12_000_000) { $0.isDownloaded = false },
    item("e\u{301}cole Fa\u{308}lder Z" + String(repeating: "\u{301}", count: 50) + ".txt", id: "combining") {
      $0.isDownloading = true
      $0.isDownloaded = false
    },
    item("line\nbreak\ttab\r.txt", id: "c0") { $0.isUploading = true },
    item("\u{1B}[31mred\u{1B}[0m \u{1B}]0;pwn\u{07} \u{1B}]8;;http://x\u{1B}\\y.txt", id: "esc") { $0.isUploaded = false },
    item("\u{1B}[2J\u{1B}[1A\rharmless", id: "esc2", size: 0),
    item(bytes: Array("caf".utf8) + [0xE9, 0x20, 0xFE, 0x20, 0x9B] + Array("[31m.txt".utf8), id: "invalid") {
      $0.uploadingError = unreachable
    },
    item("invoice\u{202E}fdp.exe", id: "bidi") { $0.decorations = [DecorationIdentifier("conflict")] },
    item("C1 \u{85}\u{9B} and \u{2066}isolate\u{2069}", id: "c1") {
      $0.uploadingError = ProviderError(.excludedFromSync, "excluded from sync by a rule")
    },
    item(String(repeating: "a", count: 251) + ".txt", id: "long-ascii", size: 999),
    item(String(repeating: "漢", count: 85), id: "long-cjk", size: 1_000_000_000_000),
    item("fi\u{200B}le\u{FEFF} with ZWSP and BOM", id: "invisible", size: nil),
    item("／？fullwidth.txt", id: "fullwidth", size: 5),
    item("plain.txt", id: "plain", size: 10_500) {
      $0.favoriteRank = 2
      $0.tags = ["Red", "Orange", "Yellow", "Green", "Blue", "work"]
      $0.isShared = true
    },
    item("-rf $(touch x) `id` a'b\"c %s%n;|&<>.sh", id: "shell", size: 77),
    item("\u{7F}del and \u{01}soh and \u{1F}us", id: "del", size: 1),
  ]

  static let trashed: [Item] = [
    item("old report.pdf", id: "t-report", in: ItemPath("/home/ana/.local/share/Trash/files")) {
      $0.parentIdentifier = .trash
      $0.originalPath = ItemPath("/home/ana/Documents/old report.pdf")
      $0.trashedDate = date(2026, 11, 19, 18, 5)
    },
    item("\u{1B}[31mevil\u{202E}txt.exe", id: "t-evil", in: ItemPath("/home/ana/.local/share/Trash/files")) {
      $0.parentIdentifier = .trash
      $0.originalPath = ItemPath("/home/ana/Downloads/\u{1B}[31mevil\u{202E}txt.exe")
      $0.trashedDate = date(2026, 11, 18, 7, 0)
    },
    item("写真アルバム", id: "t-album", folder: true, in: ItemPath("/home/ana/.local/share/Trash/files")) {
      $0.parentIdentifier = .trash
      $0.originalPath = ItemPath("/home/ana/Pictures/写真アルバム")
      $0.trashedDate = date(2026, 11, 1, 23, 59)
    },
  ]

  static let favorites: [IndexedRow] = [
    IndexedRow(item: corpus[0], domain: .local),
    IndexedRow(item: corpus[1], domain: .local),
    IndexedRow(item: item("Ünïcödé ファイル with a long name.md", id: "fav-remote") { $0.favoriteRank = 3 }, domain: work),
  ]

  static let tags: [(name: String, count: Int)] = [
    ("Red", 3), ("Green", 1), ("Blue", 2), ("work", 1), ("\u{1B}]0;x\u{07}evil", 1),
    ("a very long custom tag name indeed", 12),
  ]

  static let recents: [IndexedRow] = [
    IndexedRow(item: corpus[17].with { $0.lastUsedDate = date(2026, 11, 21, 22, 10) }, domain: .local),
    IndexedRow(item: corpus[3].with { $0.lastUsedDate = date(2026, 11, 21, 9, 0) }, domain: .local),
    IndexedRow(
      item: item("Quarterly report 2026.docx", id: "r-q", in: ItemPath("/Shared/Finance")) {
        $0.lastUsedDate = date(2026, 11, 20, 17, 45)
        $0.isDownloaded = false
        $0.tags = ["Red"]
      }, domain: work),
    IndexedRow(item: corpus[8].with { $0.lastUsedDate = date(2026, 11, 19, 8, 0) }, domain: .local),
    IndexedRow(item: trashed[0].with { $0.lastUsedDate = date(2026, 11, 18, 8, 0) }, domain: .local, isDeleted: true),
    IndexedRow(item: corpus[0].with { $0.lastUsedDate = date(2026, 11, 17, 8, 0) }, domain: .local),
    IndexedRow(item: corpus[5].with { $0.lastUsedDate = date(2026, 11, 16, 8, 0) }, domain: photos),
  ]

  /// A custom action from config whose rule matches text files.
  static let compress = CustomActionEntry(
    identifier: ActionIdentifier("compress"), name: "Compress with \u{1B}[1mzstd",
    rule: try! ActivationRule(parsing: "extension == 'txt'"), domain: nil)
  /// One that never matches a file (folders only).
  static let folderAction = CustomActionEntry(
    identifier: ActionIdentifier("count"), name: "Count files", rule: try! ActivationRule(parsing: "isFolder == YES"),
    domain: nil)
  /// One of another domain: never offered in the local domain.
  static let remoteAction = CustomActionEntry(
    identifier: ActionIdentifier("share-link"), name: "Copy share link", rule: try! ActivationRule(parsing: "TRUEPREDICATE"),
    domain: work)

  /// A started app at `width`x`height` in /home/ana, sidebar filled, times in UTC; no page yet.
  static func emptyState(width: Int = 80, height: Int = 24) -> AppState {
    var s = AppState(width: width, height: height, start: start, locations: locations)
    s.timeZone = utc
    s.customActions = [compress, folderAction, remoteAction]
    // The list's snapshots are of the list: the preview pane (shown from 120 columns) has its
    // own (PreviewPaneTests), which turn it back on.
    s.preview.visibility = .hidden
    _ = s.start()
    _ = s.reduce(.sidebarChanged(favorites: favorites, tags: tags))
    return s
  }

  /// `emptyState` with `items` loaded as one complete page.
  static func state(width: Int = 80, height: Int = 24, items: [Item] = corpus) -> AppState {
    var s = emptyState(width: width, height: height)
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: items, total: items.count, isComplete: true))
    return s
  }

  /// Recently Deleted of This Computer, chosen from the sidebar, with `trashed` loaded.
  static func trashState(width: Int = 80, height: Int = 24) -> AppState {
    var s = state(width: width, height: height)
    s.sidebar.focused = true
    s.sidebar.cursor = s.sidebar.entries.firstIndex(of: .trash(.local))!
    _ = s.reduce(.key(.enter))
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: trashed, total: trashed.count, isComplete: true))
    return s
  }

  /// Numbered plain files `file-000000` …, for paging.
  static func numbered(_ range: Range<Int>) -> [Item] {
    range.map { i in
      let name = "file-" + String(repeating: "0", count: max(0, 6 - String(i).count)) + String(i)
      return item(name, id: "n\(i)", size: Int64(i))
    }
  }
}

extension Item {
  func with(_ change: (inout Item) -> Void) -> Item {
    var copy = self
    change(&copy)
    return copy
  }
}

extension AppState {
  /// Sends keys one by one; returns every effect, in order.
  @discardableResult
  mutating func press(_ keys: KeyEvent...) -> [Effect] {
    keys.flatMap { reduce(.key($0)) }
  }

  /// Types a string character by character.
  @discardableResult
  mutating func type(_ text: String) -> [Effect] {
    text.flatMap { reduce(.key(.character($0))) }
  }
}
