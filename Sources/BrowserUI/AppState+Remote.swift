import ProviderAPI

/// Remote locations in the reducer: the live transfer map behind the badges, the locations'
/// states in the sidebar, the sign-in prompt for work held by `notAuthenticated`, and the menu
/// entries of remote items (Download, Remove Download, Keep Downloaded, Retry, Resolve Conflict…).
extension AppState {
  mutating func reduceRemote(_ action: Action) -> [Effect] {
    switch action {
    case .transfer(let key, let t):
      if let t, cancelledDownloads.contains(t.id) { return [] }
      let before = transfers[key]
      transfers[key] = t
      // The journal re-keyed this transfer (a create the server answered with other bytes is
      // sent again as new content of the server's item): its old entry, a pending row perhaps,
      // would otherwise linger until a reload. Only a key seen for the first time can be one
      // (progress events, the bulk, skip the scan).
      if let t, before == nil {
        for (k, other) in transfers where k != key && k.domain == key.domain && other.id == t.id {
          transfers[k] = nil
          if other.newFile != nil, key.domain == browse.location.domain { refreshUploadRows() }
        }
      }
      if let t, before?.phase != t.phase { announce(t, key) }
      // A new file's upload journaled (or gone): the folder it goes into lists it (or not).
      if before?.newFile != t?.newFile, key.domain == browse.location.domain { refreshUploadRows() }
      return []
    case .transfersRestored(let restored):
      // The queue's own events are newer than the journal read: they win.
      transfers.merge(restored) { current, _ in current }
      if restored.values.contains(where: { $0.newFile != nil }) { refreshUploadRows() }
      return []
    case .transferFinished(let key, let direction, let id, let item):
      let hadRow = transfers[key]?.newFile != nil || browse.uploads.contains { $0.transferID == id }
      if transfers[key] == nil || transfers[key]?.id == id { transfers[key] = nil }
      if opening?.key == key, direction == .download { opening = nil }
      // The row shows what is true now: the content is here (downloaded, or uploaded from here),
      // and after an upload the server's item (its new version, or its conflict).
      if browse.location.domain == key.domain {
        browse.list.update(key.identifier) { row in
          if let item {
            // The server's fields, with what this computer knows (kept downloaded, the index's
            // favorite, last use and tags when the provider has none).
            let known = row
            row = item
            row.contentPolicy = known.contentPolicy
            row.favoriteRank = item.favoriteRank ?? known.favoriteRank
            row.lastUsedDate = item.lastUsedDate ?? known.lastUsedDate
            if row.tags.isEmpty { row.tags = known.tags }
          }
          row.isDownloaded = true
          row.isMostRecentVersionDownloaded = true
          row.isDownloading = false
          row.isUploading = false
          row.downloadingError = nil
          if direction == .upload {
            row.isUploaded = item?.isUploaded ?? true
            row.uploadingError = item?.uploadingError
          }
        }
        // A new file's upload finished in the folder on screen but its row is not there (the
        // listing was read before the server had it, or while the content was not recorded yet):
        // read the folder again, so it appears, downloaded, without a manual reload.
        if direction == .upload, let item, case .folder(let f) = browse.location, item.parentIdentifier == f.identifier,
          browse.list.index(of: item.identifier) == nil
        {
          // Its pending row, if shown, becomes the server's item in place until the reload
          // lists it (then it is dropped there). Already listed (a reload that read the folder
          // after the server had it): the pending row just goes, below.
          arrive(transferID: id, as: item)
          refreshUploadRows()
          return reload(keeping: currentItem?.identifier)
        }
        if hadRow { refreshUploadRows() }
      }
      return []
    case .locationStatus(let d, let status):
      let held = sidebar.locations.first { $0.domain == d }?.isHeldOverQuota == true
      let was = sidebar.locations.first { $0.domain == d }?.status
      setStatus(status == .online && held ? .overQuota : status, of: d)
      // The "cannot reach" said while it was away is no longer true: the status line says so.
      if status == .online, was == .checking || { if case .offline = was { true } else { false } }(), message?.isError == true {
        message = StatusMessage(locationName(d) + " is back online")
      }
      // Back online: a folder of it that could not be listed (or shows only what this computer
      // knows) is read again, with no key.
      guard status == .online || status == .overQuota, tab == .browse, browse.location.domain == d,
        browse.offline != nil || browse.error?.code == .serverUnreachable
      else { return [] }
      return reload(keeping: currentItem?.identifier)
    case .locationReachable(let d):
      return isRemote(d) ? [.checkLocations([d])] : []
    case .knownItemsListed(let t, let items):
      guard t == browse.ticket, let error = browse.error, error.code == .serverUnreachable, !items.isEmpty else { return [] }
      browse.offline = error
      browse.error = nil
      browse.list = PagedList(pageSize: browse.list.pageSize)
      let size = browse.list.pageSize
      for start in stride(from: 0, to: items.count, by: size) {
        let end = min(items.count, start + size)
        browse.list.store(offset: start, items: Array(items[start..<end]), total: items.count, isComplete: end == items.count)
      }
      if let i = browse.pendingSelection.flatMap({ browseIndex(of: $0) }) {
        browse.cursor = i
        browse.pendingSelection = nil
      }
      clampCursors()
      scrollToCursor()
      return []
    case .locationSyncing(let d, let n):
      guard let i = sidebar.locations.firstIndex(where: { $0.domain == d }) else { return [] }
      sidebar.locations[i].syncing = n
      sidebar.locations[i].state = sidebar.locations[i].status.map { $0.text(syncing: n) } ?? (n > 0 ? "syncing \(n)" : nil)
      return []
    case .locationThrottled(let d, let error):
      let announce = mayAnnounce(error, of: d)
      if let status = LocationStatus.implied(by: error) { setStatus(status, of: d) }
      if error.code == .insufficientQuota, let i = sidebar.locations.firstIndex(where: { $0.domain == d }) {
        sidebar.locations[i].isHeldOverQuota = true
      }
      if error.code == .notAuthenticated {
        // The engine resumes the held work by itself once the sign-in succeeds: nothing to retry here.
        return reduceAuthentication(.authenticationRequired(d, retry: [], reason: error.message))
      }
      if announce { message = StatusMessage(locationName(d) + ": " + Self.explained(error), isError: true) }
      return []
    case .locationResumed(let d):
      if let i = sidebar.locations.firstIndex(where: { $0.domain == d }) { sidebar.locations[i].isHeldOverQuota = false }
      for (k, t) in transfers where k.domain == d && t.phase == .throttled {
        transfers[k]?.phase = .queued
        transfers[k]?.error = nil
      }
      return [.checkLocations([d])]
    case .remoteItemsChanged(let d):
      guard tab == .browse, browse.location.domain == d else { return [] }
      return reload(keeping: currentItem?.identifier)
    case .declarationsLoaded(let d, let actions, let declarations):
      decorations[d] = declarations.map(DecorationStyle.init)
      // The domain's own actions are replaced; the user's (any domain) stay.
      let kept = customActions.filter { $0.domain != d }
      var seen = Set(kept.map(\.identifier))
      customActions = actions.filter { $0.domain == d && seen.insert($0.identifier).inserted } + kept
      return []
    case .opening(let o):
      opening = o
      return []
    case .notice(let m):
      message = m
      return []
    case .folderResolved(let t, let id):
      guard t == browse.ticket, case .folder(var f) = browse.location, f.identifier == nil else { return [] }
      f.identifier = id
      browse.location = .folder(f)
      refreshUploadRows()
      return []
    case .uploadsGone(let d, let ids):
      forgetGoneUploads(ids, of: d)
      return []
    default:
      return []
    }
  }

  /// A message once a transfer stops on an error: the reason and what to do.
  private mutating func announce(_ t: TransferState, _ key: ItemKey) {
    guard t.phase == .failed || t.phase == .throttled, let error = t.error else { return }
    // Signing in is asked by the prompt, which says why.
    if error.code == .notAuthenticated || !mayAnnounce(error, of: key.domain) { return }
    let noun = t.direction == .download ? "Download" : "Upload"
    let name = t.name ?? browse.list.index(of: key.identifier).flatMap { browse.list.item(at: $0) }?.filename.displayString
    let what = key.domain == browse.location.domain || t.name != nil ? name.map { " of \($0)" } ?? "" : ""
    message = StatusMessage("\(noun)\(what) stopped: " + Self.explained(error), isError: true)
  }

  /// "message — what to do", sanitised.
  static func explained(_ error: ProviderError) -> String {
    TerminalText.escapeMessage(error.message) + (error.recoverySuggestion.map { " — " + $0 } ?? "")
  }

  func locationName(_ d: DomainIdentifier) -> String {
    TerminalText.escape(sidebar.locations.first { $0.domain == d }?.name ?? d.rawValue)
  }

  func isRemote(_ d: DomainIdentifier) -> Bool { sidebar.locations.first { $0.domain == d }?.isRemote ?? false }

  /// Whether a background failure (a reload, a held transfer, a held queue) may take the status
  /// line. "Cannot reach X" is said once, when X goes offline; after that the sidebar and the
  /// list's banner carry it, and what the user's own command said (a paste queued while offline,
  /// a rename) stays on screen instead of being replaced by the same news again.
  func mayAnnounce(_ error: ProviderError, of d: DomainIdentifier) -> Bool {
    guard error.code == .serverUnreachable,
      case .offline = sidebar.locations.first(where: { $0.domain == d })?.status
    else { return true }
    return false
  }

  /// Sets a remote location's state and the text the sidebar shows; local ones have none.
  mutating func setStatus(_ status: LocationStatus, of d: DomainIdentifier) {
    guard let i = sidebar.locations.firstIndex(where: { $0.domain == d }), sidebar.locations[i].isRemote else { return }
    sidebar.locations[i].status = status
    sidebar.locations[i].state = status.text(syncing: sidebar.locations[i].syncing)
  }

  /// The transfer of an item of the Browse list, if any.
  public func transfer(of item: Item, in domain: DomainIdentifier) -> TransferState? {
    transfers.isEmpty ? nil : transfers[ItemKey(domain, item.identifier)]
  }

  // MARK: - The menu

  /// The entries remote items add to the context menu: Download or Remove Download, Keep
  /// Downloaded (a toggle), Retry for what failed or waits, Resolve Conflict… for a conflict.
  func remoteMenuEntries(_ items: [Item], domain d: DomainIdentifier) -> [MenuEntry] {
    guard isRemote(d), !items.isEmpty else { return [] }
    var entries: [MenuEntry] = []
    let files = items.filter { !$0.isFolder }
    let downloading = { (item: Item) -> Bool in
      guard let t = transfers[ItemKey(d, item.identifier)] else { return false }
      return t.direction == .download && !t.isStuck
    }
    if files.contains(where: { (!$0.isDownloaded || !$0.isMostRecentVersionDownloaded) && !downloading($0) }) {
      entries.append(MenuEntry("Download", .download))
    }
    // A download under way, or waiting (queued, retrying, held): it can be stopped.
    if files.contains(where: { transfers[ItemKey(d, $0.identifier)]?.direction == .download }) {
      entries.append(MenuEntry("Cancel Download", .cancelDownload))
    }
    let allPinned = items.allSatisfy { $0.contentPolicy == .downloadEagerlyAndKeepDownloaded }
    // Kept downloaded, a download cannot be removed (the engine refuses): the menu offers to stop
    // keeping it instead.
    if items.contains(where: { ($0.isFolder || $0.isDownloaded) && $0.contentPolicy != .downloadEagerlyAndKeepDownloaded }) {
      entries.append(MenuEntry("Remove Download", .removeDownload))
    }
    entries.append(MenuEntry(allPinned ? "Don't Keep Downloaded" : "Keep Downloaded", .keepDownloaded(!allPinned)))
    let stuck = items.contains { item in
      if transfers[ItemKey(d, item.identifier)]?.isStuck == true { return true }
      let e = item.uploadingError ?? item.downloadingError
      return e.map { $0.code != .excludedFromSync && $0.code != .localVersionConflictingWithServer } ?? false
    }
    if stuck { entries.append(MenuEntry("Retry", .retry)) }
    if items.count == 1, Self.isInConflict(items[0]) { entries.append(MenuEntry("Resolve Conflict…", .resolveConflict)) }
    return entries
  }

  /// A conflict copy, or an original with an unresolved copy.
  static func isInConflict(_ item: Item) -> Bool {
    item.decorations.contains(DecorationStyle.conflict) || item.userInfo["conflictOf"] != nil
      || item.uploadingError?.code == .localVersionConflictingWithServer
  }

  /// Runs a remote menu command on `items`.
  mutating func remoteMenuCommand(_ command: MenuCommand, items: [Item], domain d: DomainIdentifier) -> [Effect] {
    switch command {
    case .download:
      let files = items.filter { !$0.isFolder }
      guard !files.isEmpty else { return [] }
      message = StatusMessage(files.count == 1 ? "Downloading \(files[0].filename.displayString)…" : "Downloading \(files.count) files…")
      return [.download(files, d)]
    case .removeDownload:
      return [.removeDownload(items, d)]
    case .keepDownloaded(let on):
      return [.keepDownloaded(items, on, d)]
    case .retry:
      return [.retryTransfers(items, d)]
    case .cancelDownload:
      let files = items.filter { transfers[ItemKey(d, $0.identifier)]?.direction == .download }
      guard !files.isEmpty else { return [] }
      // The badge goes at once (the engine confirms; an opener waiting for the file is told).
      for f in files {
        if let id = transfers[ItemKey(d, f.identifier)]?.id { cancelledDownloads.insert(id) }
        transfers[ItemKey(d, f.identifier)] = nil
        if opening?.key == ItemKey(d, f.identifier) { opening = nil }
        if browse.location.domain == d {
          browse.list.update(f.identifier) { row in
            row.isDownloading = false
            row.downloadingError = nil
          }
        }
      }
      return [.cancelDownload(files, d)]
    case .resolveConflict:
      guard let item = items.first else { return [] }
      // The original's copy sits next to it: found among the rows loaded (the engine also looks
      // in the index, where the conflicts this computer made are recorded).
      let copy = item.userInfo["conflictOf"] == nil
        ? browse.list.loadedItems.first { $0.userInfo["conflictOf"]?.description == item.identifier.rawValue }?.identifier
        : nil
      let entries = ConflictChoice.allCases.map {
        MenuEntry($0.title(hasTrash: hasTrash(d)), .resolve($0, copy: copy))
      }
      overlay = .menu(
        MenuState(title: "Resolve Conflict: " + item.filename.displayString, entries: entries, items: [item], domain: d))
      return []
    case .resolve(let choice, let copy):
      guard let item = items.first else { return [] }
      return [.resolveConflict(item, copy: copy, choice, d)]
    default:
      return []
    }
  }
}
