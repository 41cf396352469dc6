import ProviderAPI

extension AppState {
  mutating func handleKey(_ key: KeyEvent) -> [Effect] {
    if case .resize(let w, let h) = key { return reduce(.resized(width: w, height: h)) }
    // Ctrl-C quits from anywhere, a prompt or a menu included, whatever `[keys]` says.
    if key == KeyMap.alwaysQuits { return perform(.quit) }
    // A location's question (ssh's password, host key) is above everything and takes the keys.
    if !signInQuestions.isEmpty { return handleSignInQuestionKey(key) }
    if overlay != nil { return handleOverlayKey(key) }
    if let effects = handleFullPreviewKey(key) { return effects }
    if tab == .browse, browse.filter != nil, let effects = handleFilterKey(key) { return effects }
    if sidebar.focused { return handleSidebarKey(key) }
    if case .mouseRightClick = key { return openMenu() }
    if case .scrollUp = key { return moveCursor(to: cursor - 3) }
    if case .scrollDown = key { return moveCursor(to: cursor + 3) }
    // "gg": the first g waits for the second.
    if key == .character("g") {
      if pendingKey == "g" {
        pendingKey = nil
        return moveCursor(to: 0)
      }
      pendingKey = "g"
      return []
    }
    pendingKey = nil
    if message != nil { message = nil }
    if key == .escape {
      // Esc steps back out of a state: a tag filter or a search in Recents, marks in Browse.
      if tab == .recents, recents.tagFilter != nil || recents.search != nil {
        recents.tagFilter = nil
        recents.search = nil
        recents.searchResults = nil
        recents.cursor = 0
        recents.top = 0
        return [.loadRecents(tag: nil)]
      }
      if tab == .browse, !browse.marked.isEmpty {
        browse.marked = []
        return []
      }
    }
    if let id = keyMap.action(for: key) { return runBoundAction(id) }
    guard let command = keyMap.command(for: key) else { return menuShortcut(key) }
    return perform(command)
  }

  /// A custom action bound to a key in `[keys]`: it runs on the selection when the menu would
  /// offer it there, else the status line says why not.
  mutating func runBoundAction(_ id: ActionIdentifier) -> [Effect] {
    let items = selection
    let domain = currentDomain
    guard let action = customActions.first(where: { $0.identifier == id && ($0.domain == nil || $0.domain == domain) })
    else {
      message = StatusMessage("No custom action \"\(TerminalText.escape(id.rawValue))\" here (see [[action]] in config.toml)", isError: true)
      return []
    }
    guard !items.isEmpty, action.rule.matches(ActivationContext(selection: items)) else {
      message = StatusMessage("\(TerminalText.escape(action.name)) does not apply to the selection", isError: true)
      return []
    }
    return menuCommand(.custom(id), items: items, domain: domain)
  }

  /// Keys the context menu shows beside its entries and the key map does not bind (o Open With…,
  /// M Move To…, u Restore), from the list: the menu of the selection is built and its entry with
  /// that key runs, so a key works wherever the menu would offer it. They did nothing before.
  static let menuShortcuts: [(key: Character, help: String)] = [
    ("o", "Open With…"), ("M", "Move To…"), ("u", "Restore (in Recently Deleted)"),
  ]

  mutating func menuShortcut(_ key: KeyEvent) -> [Effect] {
    guard case .character(let c) = key, Self.menuShortcuts.contains(where: { $0.key == c }) else { return [] }
    _ = openMenu()
    guard case .menu(let m) = overlay else { return [] }
    overlay = nil
    guard let entry = m.entries.first(where: { $0.key == String(c) }) else { return [] }
    return menuCommand(entry.command, items: m.items, domain: m.domain)
  }

  mutating func perform(_ command: Command) -> [Effect] {
    switch command {
    case .up: return moveCursor(to: cursor - 1)
    case .down: return moveCursor(to: cursor + 1)
    case .pageUp: return moveCursor(to: cursor - listHeight)
    case .pageDown: return moveCursor(to: cursor + listHeight)
    case .top: return moveCursor(to: 0)
    case .bottom:
      if tab == .browse, browse.list.total == nil, !browse.list.complete {
        // Unknown length: ask for the rest; the cursor follows once the end is known.
        browse.pendingBottom = true
        return [.requestPages(ticket: browse.ticket, pages: browse.list.count / browse.list.pageSize...Int.max / 1024)]
      }
      return moveCursor(to: (tab == .browse ? browseCount : recentsRows.count) - 1)
    case .open: return openCurrent()
    case .parent:
      if tab == .browse { return goToParent() }
      return []
    case .nextTab, .previousTab:
      tab = tab == .browse ? .recents : .browse
      return tab == .recents ? [.loadRecents(tag: recents.tagFilter)] : requestVisiblePages()
    case .browseTab:
      tab = .browse
      return requestVisiblePages()
    case .recentsTab:
      tab = .recents
      return [.loadRecents(tag: recents.tagFilter)]
    case .sidebar:
      guard sidebarWidth > 0, tab == .browse else { return [] }
      sidebar.focused.toggle()
      if sidebar.focused { sidebar.cursor = max(1, sidebar.cursor) }
      return []
    case .filter:
      if tab == .recents {
        overlay = .prompt(PromptState(title: "Search every location", purpose: .search, editor: LineEditor(recents.search ?? "")))
      } else {
        browse.filter = ""
      }
      return []
    case .sort:
      overlay = .sortPicker(cursor: 0)
      return []
    case .hidden:
      showHidden.toggle()
      message = StatusMessage(showHidden ? "Showing hidden files" : "Hiding hidden files")
      return (tab == .browse ? reload(keeping: currentItem?.identifier, keepRows: false) : []) + [.saveViewChoices(viewChoices)]
    case .mark:
      guard tab == .browse, let item = currentItem else { return [] }
      // A new file not on the server yet takes no operation a mark is for.
      if isPendingUpload(item) {
        refusePendingUpload(item)
        return []
      }
      if browse.marked.contains(item.identifier) {
        browse.marked.remove(item.identifier)
      } else {
        browse.markedItems[item.identifier] = item
        browse.marked.insert(item.identifier)
        browse.lastMarked = item.identifier
      }
      return moveCursor(to: cursor + 1)
    case .help:
      overlay = .help(top: 0)
      return []
    case .quit:
      isQuitting = true
      return [.quit]
    case .menu: return openMenu()
    case .rename: return menuCommand(.rename)
    case .tags: return menuCommand(.tags)
    case .favorite:
      guard let item = selection.first else { return [] }
      return menuCommand(.favorite(!item.isFavorite))
    case .delete:
      if case .trash = browse.location, tab == .browse { return menuCommand(.deleteNow) }
      return menuCommand(hasTrash(currentDomain) ? .delete : .deleteNow)
    case .info: return menuCommand(.info)
    case .newFolder: return menuCommand(.newFolder)
    case .copy: return menuCommand(.copy)
    case .paste: return menuCommand(.paste)
    case .preview: return togglePreviewPane()
    case .previewFull: return togglePreviewFull()
    case .shellCommand: return promptForShellCommand()
    case .shell: return openShell()
    case .copyPaths: return copyPaths()
    case .bulkRename: return bulkRename()
    case .goTo: return promptForGoTo()
    case .home: return goHome()
    case .historyBack: return goInHistory(forward: false)
    case .historyForward: return goInHistory(forward: true)
    case .markAll: return markAll(.all)
    case .invertMarks: return markAll(.invert)
    case .clearMarks: return clearMarks()
    case .markRange: return markRange()
    case .cut: return menuCommand(.cut)
    case .undo: return undoLast(redo: false)
    case .redo: return undoLast(redo: true)
    case .openWith: return menuCommand(.openWith)
    case .messageLog:
      overlay = .messageLog(top: 0)
      return []
    case .refresh:
      guard tab == .browse else { return [.loadRecents(tag: recents.tagFilter), .checkEntries(recentsRows)] }
      // The location's own retry first (listFolderNow), so the reload finds it trying again.
      var effects: [Effect] = []
      if case .folder(let f) = browse.location, f.identifier != nil { effects.append(.listFolderNow(f)) }
      return effects + reload(keeping: currentItem?.identifier) + [.refreshSidebar]
    }
  }

  mutating func openCurrent() -> [Effect] {
    guard let item = currentItem else { return [] }
    let domain = currentDomain
    if tab == .browse, isPendingUpload(item) {
      refusePendingUpload(item)
      return []
    }
    if tab == .browse, case .trash = browse.location {
      message = StatusMessage("Restore it first (m, then Restore)")
      return []
    }
    // Recents, a tag's list and search results come from the index: resolved before opening.
    if tab == .recents, let row = recentsRows[safe: recents.cursor] { return openEntry(row) }
    // A picker with marks chooses them, wherever the cursor is (yazi, ranger --choosefiles).
    if isPicker, tab == .browse, !browse.marked.isEmpty { return choose(selection, in: domain) }
    if item.isFolder {
      tab = .browse
      return go(
        to: .folder(FolderLocation(domain: domain, identifier: item.identifier, path: item.path, name: item.filename.displayString)),
        pushBack: true)
    }
    return openFiles([item], in: domain)
  }

  // MARK: - Filter

  mutating func handleFilterKey(_ key: KeyEvent) -> [Effect]? {
    guard var f = browse.filter else { return nil }
    switch key {
    case .escape:
      browse.filter = nil
      browse.cursor = 0
      scrollToCursor()
      return requestVisiblePages()
    case .enter:
      // Keep the filter; move on the filtered rows.
      let item = currentItem
      browse.filter = nil
      if let item, let i = browseIndex(of: item.identifier) { browse.cursor = i }
      scrollToCursor()
      return requestVisiblePages()
    case .backspace:
      if f.isEmpty {
        browse.filter = nil
        return []
      }
      f.removeLast()
    case .character(let c):
      let first = f.isEmpty
      f.append(c)
      browse.filter = f
      browse.cursor = 0
      browse.top = 0
      return first ? readForFilter() : []
    case .control("u"):
      // Clears the text and keeps the filter open, as in every line editor here.
      f = ""
    case .up, .down, .pageUp, .pageDown: return nil
    default: return []
    }
    browse.filter = f
    browse.cursor = 0
    browse.top = 0
    return []
  }

  /// Rows a filter reads at most: past them the status line says how many it searched.
  static let filterReadLimit = 100_000
  /// Pages asked for at a time: what the enumeration service delivers of one request (it gives a
  /// longer one only its last pages, for End).
  static let filterChunkPages = 8

  /// Once a filter has text, the rest of the folder is read, a chunk at a time, so it searches
  /// every row and not only the pages around the viewport: in a folder of 1,000 files, "/f0999"
  /// found nothing. Up to ``filterReadLimit`` rows, a few MiB per 10,000. The pages read are
  /// kept until the listing is replaced (another folder, a reload): a filter typed again, or
  /// another one, searches them without asking the provider for anything.
  mutating func readForFilter() -> [Effect] {
    guard tab == .browse, browse.filter?.isEmpty == false else { return [] }
    let limit = browse.list.total.map { min($0, Self.filterReadLimit) } ?? Self.filterReadLimit
    guard let missing = browse.list.missingPages(for: 0..<max(1, limit)) else {
      browse.filterChunk = nil
      return []
    }
    let chunk = missing.lowerBound...min(missing.upperBound, missing.lowerBound + Self.filterChunkPages - 1)
    browse.filterChunk = chunk
    // What it reads stays for as long as this listing does: the next filter searches it as it
    // is, instead of reading the folder from its provider again.
    browse.list.keepPages(through: (limit - 1) / browse.list.pageSize)
    return [.requestPages(ticket: browse.ticket, pages: chunk)]
  }

  /// How far a filter has read: the rows loaded, and whether that is all it will search.
  public var filterCoverage: (read: Int, total: Int?, isWhole: Bool) {
    let read = browse.list.pages.values.reduce(0) { $0 + $1.count }
    let whole = (browse.list.complete || browse.list.total != nil) && read >= browse.list.count
    return (read, browse.list.total, whole)
  }

  // MARK: - Sidebar

  /// Keys while the sidebar has the focus. They act on the sidebar, or on the app as a whole
  /// (quit, help, tabs); a key that means something only in the list (G on the list, m, r, d, …)
  /// does nothing here rather than act on a list the person is not looking at.
  mutating func handleSidebarKey(_ key: KeyEvent) -> [Effect] {
    let entries = sidebar.entries
    func step(_ d: Int, times: Int = 1) {
      var c = sidebar.cursor
      for _ in 0..<times {
        var next = c
        repeat { next += d } while next >= 0 && next < entries.count && isHeading(entries[next])
        guard next >= 0 && next < entries.count else { break }
        c = next
      }
      sidebar.cursor = c
    }
    func first() -> Int? { entries.indices.first { !isHeading(entries[$0]) } }
    func last() -> Int? { entries.indices.last { !isHeading(entries[$0]) } }
    // "gg": the first entry.
    if key == .character("g") {
      if pendingKey == "g" {
        pendingKey = nil
        if let f = first() { sidebar.cursor = f }
      } else {
        pendingKey = "g"
      }
      return []
    }
    pendingKey = nil
    if message != nil { message = nil }
    switch key {
    case .escape:
      sidebar.focused = false
      return []
    case .scrollUp: step(-1, times: 3); return []
    case .scrollDown: step(1, times: 3); return []
    default: break
    }
    switch keyMap.command(for: key) {
    case .up: step(-1)
    case .down: step(1)
    case .pageUp: step(-1, times: max(1, listHeight))
    case .pageDown: step(1, times: max(1, listHeight))
    case .top: if let f = first() { sidebar.cursor = f }
    case .bottom: if let l = last() { sidebar.cursor = l }
    case .open:
      sidebar.focused = false
      guard let entry = entries[safe: sidebar.cursor] else { return [] }
      switch entry {
      case .heading: return []
      case .location(let l): return go(to: .folder(l.root), pushBack: true)
      case .favorite(let row): return openEntry(row)
      case .tag(let name, _):
        tab = .recents
        recents.tagFilter = name
        recents.search = nil
        recents.searchResults = nil
        recents.cursor = 0
        return [.loadRecents(tag: name)]
      case .trash(let d): return go(to: .trash(d), pushBack: true)
      }
    case .sidebar, .parent:
      sidebar.focused = false
    case .quit, .help, .messageLog:
      return perform(keyMap.command(for: key)!)
    case .nextTab, .previousTab, .browseTab, .recentsTab:
      // Recents has no sidebar: leave it, then switch.
      sidebar.focused = false
      return perform(keyMap.command(for: key)!)
    case .refresh:
      return [.refreshSidebar]
    default:
      // Filter, sort, hidden, marks, the menu and the item commands belong to the list.
      break
    }
    return []
  }

  private func isHeading(_ e: SidebarEntry) -> Bool {
    if case .heading = e { return true }
    return false
  }
}
