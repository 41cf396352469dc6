import ProviderAPI

/// A row above the provider's pages of the folder on screen: a new file queued for upload into it
/// (a placeholder item, drawn with its transfer's badge: queued, `↑ n%`, error), or one whose
/// upload just finished (the server's item), kept in the same place until the folder's reload
/// lists it.
///
/// Why above the pages, in the queue's order, rather than sorted in among them: the provider's
/// pages are positions in a listing the server made (a folder can hold a million entries, of which
/// only pages near the viewport are here), so a row the server does not have yet has no position
/// in it. Above, its index is known without reading any page, and the pages keep their offsets.
public struct UploadRow: Sendable, Equatable {
  /// The transfer journal's id: the queue's order, and what a finished or vanished upload names.
  public var transferID: Int64
  public var item: Item
  /// The server has it: `item` is the provider's, no longer a placeholder.
  public var arrived: Bool
  /// The server's item, once it answered the create while the upload still finishes here.
  public var createdAs: ItemIdentifier?

  public init(transferID: Int64, item: Item, arrived: Bool = false, createdAs: ItemIdentifier? = nil) {
    self.transferID = transferID
    self.item = item
    self.arrived = arrived
    self.createdAs = createdAs
  }
}

/// New files on their way into the folder on screen (remote locations only): the rows come from
/// the transfer map (`TransferState.newFile`), so they appear the moment the engine journals a
/// create, move with its events, and go when it finishes, is found gone from the journal, or
/// the person leaves the folder.
///
/// Row indexes of the Browse list are the upload rows first (0 ..< `browse.uploads.count`), then
/// the provider's rows (`PagedList` offsets shifted by that count).
extension AppState {
  /// The remote folder on screen whose new files are listed, when its identifier is known.
  var uploadFolder: (domain: DomainIdentifier, identifier: ItemIdentifier, path: ItemPath)? {
    guard case .folder(let f) = browse.location, let id = f.identifier, isRemote(f.domain) else { return nil }
    return (f.domain, id, f.path)
  }

  /// Whether `item` is a new file the server does not have yet (a pending upload row): only Info
  /// and Retry make sense for it.
  public func isPendingUpload(_ item: Item) -> Bool {
    !browse.uploads.isEmpty && browse.uploads.contains { !$0.arrived && $0.item.identifier == item.identifier }
  }

  /// The Browse row at `index` (upload rows first, then the provider's), ignoring the filter.
  func browseRow(_ index: Int) -> Item? {
    let u = browse.uploads.count
    if index < u { return index >= 0 ? browse.uploads[index].item : nil }
    return browse.list.item(at: index - u)
  }

  /// The row index of the loaded row holding `id`, upload rows first.
  func browseIndex(of id: ItemIdentifier) -> Int? {
    if let i = browse.uploads.firstIndex(where: { $0.item.identifier == id }) { return i }
    return browse.list.index(of: id).map { $0 + browse.uploads.count }
  }

  /// The pending creates of the transfer map that go into the folder on screen, oldest first.
  func pendingUploadRows() -> [UploadRow] {
    guard let folder = uploadFolder, !transfers.isEmpty else { return [] }
    var rows: [UploadRow] = []
    for (key, t) in transfers where key.domain == folder.domain && t.direction == .upload {
      guard let new = t.newFile, new.parent == folder.identifier else { continue }
      // The server made it and a listing already shows it: one row, the listing's.
      if let made = new.createdAs, browse.list.index(of: made) != nil { continue }
      rows.append(
        UploadRow(
          transferID: t.id, item: Self.placeholder(key.identifier, new, in: folder.path, size: t.totalBytes),
          createdAs: new.createdAs))
    }
    return rows.sorted { $0.transferID < $1.transferID }
  }

  /// The item a pending row shows: the name and size the engine journaled, nothing the server
  /// would say (no version, no dates, no capabilities). The badge comes from its transfer.
  static func placeholder(_ id: ItemIdentifier, _ new: TransferState.NewFile, in folder: ItemPath, size: Int64?) -> Item {
    Item(
      identifier: id, parentIdentifier: new.parent, filename: new.name, path: folder.appending(new.name),
      contentType: ContentType.forExtension(new.name.pathExtension), capabilities: [], documentSize: size,
      isUploaded: false, isDownloaded: true)
  }

  /// Rebuilds the upload rows from the transfer map, keeping the arrived ones where they are.
  mutating func refreshUploadRows() {
    let arrived = browse.uploads.filter(\.arrived)
    setUploadRows((arrived + pendingUploadRows()).sorted { $0.transferID < $1.transferID })
  }

  /// Replaces the upload rows; the cursor stays on the row it was on (a provider row moves down or
  /// up by the change; an upload row is found again by identifier), and the view with it.
  mutating func setUploadRows(_ rows: [UploadRow]) {
    guard rows != browse.uploads else { return }
    let old = browse.uploads.count
    let delta = rows.count - old
    let onUpload = browse.cursor < old ? browse.uploads[browse.cursor].item.identifier : nil
    browse.uploads = rows
    if browse.filter == nil {
      if let onUpload {
        if let i = rows.firstIndex(where: { $0.item.identifier == onUpload }) { browse.cursor = i }
      } else if browse.list.count > 0 {
        browse.cursor += delta
        // Scrolled down: the same rows stay in view. At the top, the new rows show.
        if browse.top > 0 { browse.top = max(0, browse.top + delta) }
      }
    }
    clampCursors()
  }

  /// A pending row's upload finished and the list has no row for the server's item: the row
  /// becomes that item in place (no gap, no second row) until the reload lists it.
  mutating func arrive(transferID id: Int64, as item: Item) {
    guard let i = browse.uploads.firstIndex(where: { !$0.arrived && $0.transferID == id }) else { return }
    var row = item
    row.isDownloaded = true
    row.isMostRecentVersionDownloaded = true
    row.isDownloading = false
    row.isUploading = false
    row.downloadingError = nil
    browse.uploads[i] = UploadRow(transferID: id, item: row, arrived: true)
  }

  /// Pages of a newer listing came: it lists what arrived (its reload was asked for after the
  /// server had it), so those rows go; so do pending rows whose item the server made and the
  /// pages already hold (the upload's finish event comes a moment later).
  mutating func dropArrivedUploads() {
    // Every page load comes here, on the UI loop: nothing to look up unless a row could go.
    guard browse.uploads.contains(where: { $0.arrived || $0.createdAs != nil }) else { return }
    let kept = browse.uploads.filter { row in
      !row.arrived && (row.createdAs.map { browse.list.index(of: $0) == nil } ?? true)
    }
    setUploadRows(kept)
  }

  /// The journal no longer holds these transfers (finished by another process, or dropped): their
  /// rows and badges go. A transfer this process is running is left to its own finish event.
  mutating func forgetGoneUploads(_ ids: [Int64], of d: DomainIdentifier) {
    let gone = Set(ids)
    for (key, t) in transfers where key.domain == d && gone.contains(t.id) && t.phase != .running {
      transfers[key] = nil
    }
    refreshUploadRows()
  }

  /// Asks the app which of the shown pending rows the journal still holds (the transfer map only
  /// hears this process's queue).
  func checkUploadsEffect() -> [Effect] {
    guard let folder = uploadFolder else { return [] }
    let ids = browse.uploads.filter { !$0.arrived }.map(\.transferID)
    return ids.isEmpty ? [] : [.checkUploads(folder.domain, transferIDs: ids)]
  }

  /// The menu of a new file the server does not have yet: what can be done with it is to look at
  /// it (Info: its transfer's state and error) and, when stuck, ask for it again (Retry).
  func pendingUploadMenuEntries(_ items: [Item], domain d: DomainIdentifier) -> [MenuEntry] {
    var entries: [MenuEntry] = []
    if items.count == 1 { entries.append(MenuEntry("Info", key: "i", .info)) }
    if items.contains(where: { transfers[ItemKey(d, $0.identifier)]?.isStuck == true }) {
      entries.append(MenuEntry("Retry", .retry))
    }
    return entries
  }

  /// Whether a menu command applies to pending upload rows: Info and Retry on them, and the
  /// folder's own commands (Paste, New Folder) which ignore the selection.
  static func appliesToPendingUploads(_ command: MenuCommand) -> Bool {
    switch command {
    case .info, .retry, .paste, .newFolder: return true
    default: return false
    }
  }

  /// What the status line says to a command a pending row cannot take.
  mutating func refusePendingUpload(_ item: Item) {
    message = StatusMessage("“\(item.filename.displayString)” is not on the server yet: wait for its upload")
  }
}
