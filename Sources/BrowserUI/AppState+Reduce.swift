import ProviderAPI

extension AppState {
  /// The rows of the list area (between the path bar/column header and the status line).
  /// (As the list has them with the preview beside it: the preview taking the screen for a
  /// moment does not scroll the list.)
  public var listHeight: Int {
    max(1, Layout(width: width, height: height, sidebar: tab == .browse, pane: false, paneFull: false).listRows.height)
  }

  /// Starts the app: the first enumeration, Recents and the sidebar.
  public mutating func start() -> [Effect] {
    let remote = sidebar.locations.filter(\.isRemote).map(\.domain)
    // Rows shown at launch (``showLaunchPage(_:total:isComplete:)``) stay until the enumeration's
    // own first page replaces them.
    return enumerateCurrent(keepingRows: !browse.list.isEmpty) + [.loadRecents(tag: nil), .refreshSidebar]
      + (remote.isEmpty ? [] : [.checkLocations(remote)])
  }

  /// The start folder's first page as the provider read it, on screen before the app runs: the
  /// index (tags, last use) may still be opening — a new one is created and migrated, with its
  /// `fdatasync`s — and the first screen does not wait for it (issue 13). ``start()`` keeps
  /// these rows until the enumeration's first page, annotated from the index, replaces them.
  public mutating func showLaunchPage(_ items: [Item], total: Int?, isComplete: Bool) {
    browse.list = PagedList(pageSize: browse.list.pageSize)
    browse.list.store(offset: 0, items: items, total: total, isComplete: isComplete)
    browse.isLoading = !isComplete && total == nil
  }

  /// The reducer: applies an action and returns the effects to perform. Pure: no I/O here.
  public mutating func reduce(_ action: Action) -> [Effect] {
    let said = message
    let effects = reduceAction(action)
    // Each message said goes to the log (`W`): the status line keeps it only until the next key.
    if let m = message, m != said { messageLog.record(m) }
    refreshFilterMatches()
    return effects + followCursorWithPreview()
  }

  /// The filter's matches, brought up to date once per action (``FilterMatches``): what a frame
  /// draws reads them instead of searching the rows again for each row.
  mutating func refreshFilterMatches() {
    guard let f = browse.filter, !f.isEmpty else {
      if !browse.filterMatches.rows.isEmpty || !browse.filterMatches.needle.isEmpty { browse.filterMatches = FilterMatches() }
      return
    }
    browse.filterMatches.update(needle: FilterMatches.needle(f), uploads: browse.uploads, list: browse.list)
  }

  private mutating func reduceAction(_ action: Action) -> [Effect] {
    switch action {
    case .key(let key):
      let effects = handleKey(key)
      return allowQuestions(after: effects)
    case .previewed, .previewLate:
      return reducePreview(action)
    case .resized(let w, let h):
      width = w
      height = h
      clampCursors()
      return requestVisiblePages()
    case .undoRecorded(let record):
      undo.record(record)
      return []
    case .undoEnded(let outcome):
      return undoEnded(outcome)
    case .folderCounted(let ticket, let tally, let finished):
      return folderCounted(ticket: ticket, tally, finished: finished)
    case .linkTargetsResolved(let kinds):
      linkTargets.merge(kinds) { $1 }
      return []
    case .loadProgress(let t, let p):
      guard t == browse.ticket else { return [] }
      browse.loading = p
      return []
    case .pageLoaded(let t, let offset, let items, let total, let complete):
      guard t == browse.ticket else { return [] }
      let replaced = browse.replaceOnFirstPage
      if replaced {
        browse.list = PagedList(pageSize: browse.list.pageSize)
        browse.replaceOnFirstPage = false
      }
      browse.offline = nil
      // The location answered: a sidebar that still says offline asks again (it said so until a
      // status check, up to a minute later, even with the folder listed).
      let d = browse.location.domain
      var checks: [Effect] = []
      if let i = sidebar.locations.firstIndex(where: { $0.domain == d }), sidebar.locations[i].isRemote,
        case .offline = sidebar.locations[i].status
      {
        setStatus(.checking, of: d)
        checks = [.checkLocations([d])]
      }
      browse.list.store(offset: offset, items: items, total: total, isComplete: complete)
      // Entries listed by name only (a folder without search permission): say why, once per page.
      if let first = items.first(where: { $0.metadataError != nil })?.metadataError {
        message = StatusMessage(TerminalText.escapeMessage("Listed by name only: \(first.message)"), isError: true)
      }
      browse.isLoading = !complete && browse.list.count > 0 && browse.list.total == nil
      browse.loading = nil
      if complete || browse.list.total != nil { browse.isLoading = false }
      // A listing of this ticket was asked for after the server had what arrived: it lists them.
      dropArrivedUploads()
      if let i = browse.pendingSelection.flatMap({ browseIndex(of: $0) })
        ?? browse.pendingSelectionPath.flatMap({ browse.list.index(ofPath: $0).map { $0 + browse.uploads.count } })
      {
        browse.cursor = i
        browse.pendingSelection = nil
        browse.pendingSelectionPath = nil
        scrollToCursor()
      }
      var effects: [Effect] = []
      // A filter reading the folder: the next chunk once this one is here (or the list ended).
      if let chunk = browse.filterChunk, browse.filter != nil,
        complete || browse.list.missingPages(for: chunk.lowerBound * browse.list.pageSize..<(chunk.upperBound + 1) * browse.list.pageSize) == nil
          || (browse.list.total.map { $0 <= offset + items.count } ?? false)
      {
        effects += readForFilter()
      }
      if browse.bulkMarking != nil { effects += bulkMarkingPageArrived(offset: offset) }
      if browse.pendingBottom, browse.filter == nil, let total = browse.list.total {
        browse.pendingBottom = false
        browse.cursor = max(0, browse.uploads.count + total - 1)
        scrollToCursor()
        effects = requestVisiblePages()
      }
      clampCursors()
      // Pages far from the cursor (answers to requests it has moved away from) are not kept.
      if browse.filter == nil { browse.list.evict(around: listCursor, radius: keptPageRadius) }
      // The rows kept during a reload were replaced: the pages around the cursor, again, or the
      // whole new listing for a filter (a change came in while it was on: it searches anew).
      if replaced && effects.isEmpty { effects = browse.filter?.isEmpty == false ? readForFilter() : requestVisiblePages() }
      return effects + checks
    case .loadRestarted(let t):
      guard t == browse.ticket else { return [] }
      browse.replaceOnFirstPage = false
      browse.list = PagedList(pageSize: browse.list.pageSize)
      return browse.filter?.isEmpty == false ? readForFilter() : requestVisiblePages()
    case .loadFailed(let t, let error):
      guard t == browse.ticket else { return [] }
      if error.code == .notAuthenticated {
        browse.isLoading = false
        browse.error = error
        return reduceAuthentication(
          .authenticationRequired(
            browse.location.domain,
            retry: [.enumerate(ticket: t, location: browse.location, sort: sort, includeHidden: showHidden, pageSize: browse.list.pageSize)],
            reason: error.message))
      }
      if browse.replaceOnFirstPage {
        // The reload failed: what was shown may be gone, so the error shows instead (as before).
        browse.replaceOnFirstPage = false
        browse.list = PagedList(pageSize: browse.list.pageSize)
      }
      browse.error = error
      browse.isLoading = false
      browse.loading = nil
      browse.offline = nil
      let d = browse.location.domain
      if mayAnnounce(error, of: d) { message = StatusMessage(TerminalText.escapeMessage(error.message), isError: true) }
      guard isRemote(d), let status = LocationStatus.implied(by: error) else { return [] }
      // The listing is news about the location too: the sidebar says offline at once.
      setStatus(status, of: d)
      // Offline, a folder shows what this computer knows of it, as the Files app does.
      guard error.code == .serverUnreachable, case .folder(let f) = browse.location else { return [] }
      return [.listKnownItems(ticket: t, f, sort: sort, includeHidden: showHidden)]
    case .folderChanged(let t):
      guard t == browse.ticket else { return [] }
      return reload(keeping: currentItem?.identifier)
    case .recentsChanged(let rows):
      recents.rows = rows
      recents.cursor = min(recents.cursor, max(0, rows.count - 1))
      return []
    case .searchResults(let q, let rows):
      guard recents.search == q else { return [] }
      recents.searchResults = rows
      recents.cursor = 0
      recents.top = 0
      return []
    case .indexChangedElsewhere:
      return [.refreshSidebar, .loadRecents(tag: recents.tagFilter)]
    case .sidebarChanged(let favorites, let tags):
      sidebar.favorites = favorites
      sidebar.tags = tags
      sidebar.cursor = min(sidebar.cursor, max(0, sidebar.entries.count - 1))
      return []
    case .operationSucceeded(let text, let reloadList, let select, let origin):
      if let text { message = StatusMessage(text) }
      if let hidden = origin.flatMap(hiddenResult) { message = StatusMessage(hidden) }
      // Only the prompt the operation came from closes: not a rename box opened meanwhile.
      if case .prompt(let p) = overlay, let origin, p.purpose.asked(for: origin) { overlay = nil }
      var effects: [Effect] = [.refreshSidebar, .loadRecents(tag: recents.tagFilter)]
      if reloadList { effects = reload(keeping: select ?? currentItem?.identifier) + effects }
      return effects
    case .bulkRenameEnded(let status, let renamedAny):
      return bulkRenameEnded(status, renamedAny: renamedAny)
    case .restoreNameTaken(let taken, let restored, let d):
      return restoreNameTaken(taken, restored: restored, in: d)
    case .operationFailed(let error, let origin):
      message = StatusMessage(TerminalText.escapeMessage(error.message), isError: true)
      if overlay == nil, let row = goneEntry(after: error, from: origin) {
        return reduceEntry(.entryGone(row, error)) + [.refreshSidebar]
      }
      if case .prompt(var p) = overlay, let origin, p.purpose.asked(for: origin) {
        // Whatever went wrong (a name taken, refused, no permission): the reason in the box and
        // the editor open, so the name can be fixed or the box closed.
        p.error = TerminalText.escapeMessage(error.message)
        overlay = .prompt(p)
      }
      return [.refreshSidebar]
    case .entryFound, .entryGone, .entriesChecked:
      return reduceEntry(action)
    case .showFolder(let folder, let select):
      tab = .browse
      return go(to: .folder(folder), select: select, pushBack: true)
    case .tick:
      spinnerPhase &+= 1
      return []
    case .authenticationRequired, .authenticated, .authenticationFailed:
      return reduceAuthentication(action)
    case .signInQuestion(let q):
      return reduceSignInQuestion(q)
    case .foldersLoaded, .foldersFailed:
      return reduceFolderPicker(action)
    case .transfer, .transfersRestored, .transferFinished, .locationStatus, .locationSyncing, .locationThrottled, .locationResumed,
      .locationReachable, .knownItemsListed, .remoteItemsChanged, .declarationsLoaded, .opening, .notice, .folderResolved, .uploadsGone:
      return reduceRemote(action)
    case .goToResolved(let request, let result):
      return goToResolved(request, result)
    case .completionsListed(let ticket, let domain, let folder, let result):
      return completionsListed(ticket: ticket, domain: domain, folder: folder, result)
    }
  }

  /// What to say when an operation made or renamed an item to a hidden name while hidden items
  /// are not shown: the row would otherwise vanish (or never appear) with no trace.
  func hiddenResult(of origin: Effect) -> String? {
    guard !showHidden else { return nil }
    let name: ItemName
    switch origin {
    case .makeFolder(let n, _): name = n
    case .rename(_, let n, _): name = n
    default: return nil
    }
    guard name.isHidden else { return nil }
    let how = keyMap.keys(for: .hidden).first.map { "press \($0) to show hidden items" } ?? "show hidden items to see it"
    return "\(name.displayString) is hidden (its name starts with '.'): \(how)"
  }

  // MARK: - Navigation

  /// The item under the cursor in the active list.
  public var currentItem: Item? {
    switch tab {
    case .browse: return visibleBrowseItem(at: browse.cursor)
    case .recents: return recentsRows[safe: recents.cursor]?.item
    }
  }

  var currentDomain: DomainIdentifier {
    switch tab {
    case .browse: return browse.location.domain
    case .recents: return recentsRows[safe: recents.cursor]?.domain ?? .local
    }
  }

  /// Recents, or the search results when a search is active.
  public var recentsRows: [IndexedRow] { recents.searchResults ?? recents.rows }

  /// Rows of the Browse list, filtered when a filter is active (over the loaded rows): new files
  /// on their way up first, then the provider's.
  public var browseCount: Int { filteredIndexes?.count ?? browse.uploads.count + browse.list.count }

  /// The filtered rows' indexes (upload rows first, then the provider's loaded rows): the
  /// matches kept since the last action (``FilterMatches``), or those brought up to date from
  /// them when the state changed since (searching only what changed).
  var filteredIndexes: [Int]? {
    guard let f = browse.filter, !f.isEmpty else { return nil }
    let needle = FilterMatches.needle(f)
    if browse.filterMatches.isCurrent(needle: needle, uploads: browse.uploads, list: browse.list) {
      return browse.filterMatches.rows
    }
    var matches = browse.filterMatches
    matches.update(needle: needle, uploads: browse.uploads, list: browse.list)
    return matches.rows
  }

  public func visibleBrowseItem(at row: Int) -> Item? {
    if let idx = filteredIndexes { return idx[safe: row].flatMap { browseRow($0) } }
    return browseRow(row)
  }

  /// The cursor as a row of the provider's listing (the upload rows above it left out).
  var listCursor: Int { max(0, browse.cursor - browse.uploads.count) }

  /// The selection an operation applies to: the marked items, else the one under the cursor.
  var selection: [Item] {
    if tab == .browse && !browse.marked.isEmpty {
      // Loaded ones as listed, then those whose pages were evicted.
      let loaded = browse.list.loadedItems.filter { browse.marked.contains($0.identifier) }
      let seen = Set(loaded.map(\.identifier))
      let evicted = browse.markedItems.values.filter { browse.marked.contains($0.identifier) && !seen.contains($0.identifier) }
      return loaded + evicted.sorted { $0.filename < $1.filename }
    }
    return currentItem.map { [$0] } ?? []
  }

  /// - Parameter keepingRows: the rows on screen stay until the new listing's first page (a
  ///   reload of the same folder); otherwise the list starts empty (another folder, another sort).
  mutating func enumerateCurrent(keepingRows: Bool = false) -> [Effect] {
    browse.ticket = nextTicket
    nextTicket += 1
    browse.replaceOnFirstPage = keepingRows
    if !keepingRows { browse.list = PagedList(pageSize: browse.list.pageSize) }
    browse.isLoading = true
    browse.loading = nil
    browse.error = nil
    if !keepingRows { browse.offline = nil }
    return [
      .enumerate(
        ticket: browse.ticket, location: browse.location, sort: sort, includeHidden: showHidden,
        pageSize: browse.list.pageSize)
    ] + checkUploadsEffect()
  }

  /// Reads the folder on screen again, the cursor back on `id` once it is listed.
  ///
  /// - Parameter keepRows: show the rows until the new first page replaces them (the same
  ///   listing, refreshed); false when the listing itself changes (another sort, hidden files).
  mutating func reload(keeping id: ItemIdentifier?, keepRows: Bool = true) -> [Effect] {
    let old = browse.ticket
    browse.pendingSelection = id
    let keep = keepRows && !browse.list.isEmpty && browse.error == nil
    return [.closeEnumeration(ticket: old)] + enumerateCurrent(keepingRows: keep)
  }

  /// - Parameter record: push the folder left on the history (`H` / `L` going through it do not).
  mutating func go(to location: BrowseLocation, select: ItemIdentifier? = nil, pushBack: Bool, record: Bool = true) -> [Effect] {
    if record, location != browse.location {
      history.visit(leaving: NavigationHistory.Entry(location: browse.location, item: visibleBrowseItem(at: browse.cursor)?.identifier))
    }
    if case .folder(let f) = browse.location {
      if pushBack { browse.back.append(f) }
      if let id = currentItem?.identifier { browse.cursorMemory[f.path] = id }
    }
    let old = browse.ticket
    browse.location = location
    browse.cursor = 0
    browse.top = 0
    browse.marked = []
    browse.filter = nil
    browse.pendingSelection = nil
    browse.pendingSelectionPath = nil
    browse.pendingBottom = false
    browse.bulkMarking = nil
    browse.lastMarked = nil
    if case .folder(let f) = location { browse.pendingSelection = select ?? browse.cursorMemory[f.path] }
    // The other folder's new files, if any; what arrived in the one left is listed there now.
    browse.uploads = pendingUploadRows()
    return [.closeEnumeration(ticket: old)] + enumerateCurrent()
  }

  mutating func goToParent() -> [Effect] {
    guard case .folder(let f) = browse.location else {
      // Recently Deleted has no parent: back to the folder it was opened from (the cursor where
      // it was), else the first location's root.
      if let previous = browse.back.popLast() { return go(to: .folder(previous), pushBack: false) }
      if let root = sidebar.locations.first?.root { return go(to: .folder(root), pushBack: false) }
      return []
    }
    let root = sidebar.locations.first { $0.domain == f.domain }?.root
    guard f.identifier != .root, f.path != root?.path, f.path.lastComponent != nil else { return [] }
    let parentPath = f.path.parent
    // The parent's identifier is not known here: the app resolves the folder by its path.
    let parent = FolderLocation(
      domain: f.domain, identifier: nil, path: parentPath,
      name: parentPath.lastComponent?.displayString ?? (root?.name ?? "/"))
    // The cursor goes back to the folder we leave: by its identifier, else by its path.
    let effects = go(to: .folder(parent), select: f.identifier, pushBack: false)
    if f.identifier == nil {
      browse.pendingSelection = nil
      browse.pendingSelectionPath = f.path
    }
    return effects
  }

  mutating func clampCursors() {
    let n = browseCount
    browse.cursor = n == 0 ? 0 : min(max(0, browse.cursor), n - 1)
    let r = recentsRows.count
    recents.cursor = r == 0 ? 0 : min(max(0, recents.cursor), r - 1)
    scrollToCursor()
  }

  mutating func scrollToCursor() {
    let h = listHeight
    if browse.cursor < browse.top { browse.top = browse.cursor }
    if browse.cursor >= browse.top + h { browse.top = browse.cursor - h + 1 }
    browse.top = max(0, min(browse.top, max(0, browseCount - h)))
    if recents.cursor < recents.top { recents.top = recents.cursor }
    if recents.cursor >= recents.top + h { recents.top = recents.cursor - h + 1 }
  }

  /// Pages kept on each side of the cursor's: `PagedList.keptPages`, or more when the viewport
  /// and the screen beyond it span more pages (a tall terminal, small pages).
  var keptPageRadius: Int { max(PagedList.keptPages, 2 * listHeight / browse.list.pageSize + 1) }

  /// Pages the viewport (and one screen beyond) needs; evicts far ones.
  mutating func requestVisiblePages() -> [Effect] {
    // An offline list is whole, and no enumeration could give back an evicted page.
    guard tab == .browse, browse.filter == nil, browse.offline == nil else { return [] }
    browse.list.evict(around: listCursor, radius: keptPageRadius)
    // The viewport in the provider's rows: the upload rows above them take no page.
    let u = browse.uploads.count
    let top = max(0, browse.top - u)
    let total = browse.list.total ?? (browse.list.count + browse.list.pageSize)
    let upper = min(total, browse.top + 2 * listHeight - u)
    guard let missing = browse.list.missingPages(for: top..<max(top, upper)) else { return [] }
    return [.requestPages(ticket: browse.ticket, pages: missing)]
  }

  mutating func moveCursor(to row: Int) -> [Effect] {
    switch tab {
    case .browse:
      // The user moved: a remembered position arriving late must not take the cursor away.
      browse.pendingSelection = nil
      browse.pendingSelectionPath = nil
      browse.pendingBottom = false
      let n = browseCount
      browse.cursor = n == 0 ? 0 : min(max(0, row), n - 1)
      if row >= n, browse.list.total == nil, !browse.list.complete { browse.cursor = max(0, n - 1) }
      scrollToCursor()
      return requestVisiblePages()
    case .recents:
      let n = recentsRows.count
      recents.cursor = n == 0 ? 0 : min(max(0, row), n - 1)
      scrollToCursor()
      return []
    }
  }

  var cursor: Int { tab == .browse ? browse.cursor : recents.cursor }
}

extension Array {
  subscript(safe i: Int) -> Element? { i >= 0 && i < count ? self[i] : nil }
}
