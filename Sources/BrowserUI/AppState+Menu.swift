import ProviderAPI

extension AppState {
  /// The context menu for the selection: built-in entries, then the custom actions whose rules
  /// match (evaluated on the items at hand, without calling a provider).
  mutating func openMenu() -> [Effect] {
    let items = selection
    let domain = currentDomain
    var entries: [MenuEntry] = []
    if tab == .browse, case .trash = browse.location {
      if !items.isEmpty {
        entries.append(MenuEntry("Restore", key: "u", .restore))
        entries.append(MenuEntry("Info", key: "i", .info))
        entries.append(MenuEntry("Delete Now…", key: "d", .deleteNow))
      }
      entries.append(MenuEntry("Empty Recently Deleted…", .emptyTrash))
      overlay = .menu(MenuState(title: items.count > 1 ? "\(items.count) items" : title(items), entries: entries, items: items, domain: domain))
      return []
    }
    guard !items.isEmpty else {
      if tab == .browse, case .folder = browse.location {
        overlay = .menu(MenuState(title: "This folder", entries: [MenuEntry("New Folder…", key: "n", .newFolder)] + pasteMenuEntries, items: [], domain: domain))
      }
      return []
    }
    if tab == .browse, items.contains(where: isPendingUpload) {
      let title = items.count > 1 ? "\(items.count) items" : title(items) + " (not uploaded yet)"
      overlay = .menu(MenuState(title: title, entries: pendingUploadMenuEntries(items, domain: domain), items: items, domain: domain))
      return []
    }
    let single = items.count == 1
    entries.append(MenuEntry("Open", key: "enter", .open))
    if single && !items[0].isFolder { entries.append(MenuEntry("Open With…", key: "o", .openWith)) }
    entries += remoteMenuEntries(items, domain: domain)
    if single { entries.append(MenuEntry("Info", key: "i", .info)) }
    if single { entries.append(MenuEntry("Rename…", key: "r", .rename)) }
    // The marked items, else the whole folder (as R): only changed lines are renamed.
    if tab == .browse, case .folder = browse.location { entries.append(MenuEntry("Rename in Editor…", key: "R", .bulkRename)) }
    entries.append(MenuEntry("Move To…", key: "M", .moveTo))
    entries.append(MenuEntry("Copy", key: "y", .copy))
    entries += pasteMenuEntries
    entries.append(MenuEntry("Tags…", key: "t", .tags))
    let allFavorite = items.allSatisfy(\.isFavorite)
    entries.append(MenuEntry(allFavorite ? "Unfavorite" : "Favorite", key: "f", .favorite(!allFavorite)))
    if tab == .browse, case .folder = browse.location { entries.append(MenuEntry("New Folder…", key: "n", .newFolder)) }
    // Where there is no trash (an SSH host), deleting is for good: said, and asked first.
    entries.append(hasTrash(domain) ? MenuEntry("Delete", key: "d", .delete) : MenuEntry("Delete Now…", key: "d", .deleteNow))
    let context = ActivationContext(selection: items)
    for a in customActions where (a.domain == nil || a.domain == domain) && a.rule.matches(context) {
      entries.append(MenuEntry(TerminalText.escape(a.name), .custom(a.identifier)))
    }
    overlay = .menu(MenuState(title: single ? title(items) : "\(items.count) items", entries: entries, items: items, domain: domain))
    return []
  }

  private func title(_ items: [Item]) -> String { items.first?.filename.displayString ?? "" }

  /// Runs a menu command on the selection (also reached by the direct keys r, t, f, d, i).
  mutating func menuCommand(_ command: MenuCommand, items givenItems: [Item]? = nil, domain givenDomain: DomainIdentifier? = nil) -> [Effect] {
    let items = givenItems ?? selection
    let d = givenDomain ?? currentDomain
    overlay = nil
    if tab == .browse, !Self.appliesToPendingUploads(command), let pending = items.first(where: isPendingUpload) {
      refusePendingUpload(pending)
      return []
    }
    switch command {
    case .open:
      if items.count == 1, items[0].isFolder { return openCurrent() }
      return openFiles(items.filter { !$0.isFolder }, in: d)
    case .info:
      guard let item = items.first else { return [] }
      overlay = .info(item, location: sidebar.locations.first { $0.domain == d }?.name ?? d.rawValue, domain: d)
      return []
    case .rename:
      guard let item = items.first, items.count == 1 else { return [] }
      overlay = .prompt(PromptState(title: "Rename", purpose: .rename(item, d), editor: LineEditor(item.filename.displayString)))
      return []
    case .tags:
      guard !items.isEmpty else { return [] }
      overlay = .tagPicker(tagPicker(for: items, domain: d))
      return []
    case .favorite(let on):
      guard let item = items.first else { return [] }
      return items.count == 1 ? [.setFavorite(item, on, d)] : items.map { .setFavorite($0, on, d) }
    case .delete:
      guard !items.isEmpty else { return [] }
      browse.marked = []
      return [.trash(items, d)]
    case .restore:
      guard !items.isEmpty else { return [] }
      browse.marked = []
      return [.restore(items, d)]
    case .restoreTaken(let choice):
      guard !items.isEmpty else { return [] }
      return [.restoreTaken(items, choice, d)]
    case .cancel:
      return []
    case .deleteNow:
      guard !items.isEmpty else { return [] }
      let what = items.count == 1 ? "“\(items[0].filename.displayString)”" : "\(items.count) items"
      overlay = .confirm(ConfirmState(message: "Delete \(what) forever? This cannot be undone.", confirmTitle: "Delete", effect: .deleteForever(items, d)))
      return []
    case .emptyTrash:
      overlay = .confirm(ConfirmState(message: "Delete everything in Recently Deleted forever?", confirmTitle: "Empty", effect: .emptyTrash(d)))
      return []
    case .newFolder:
      guard case .folder(let f) = browse.location else { return [] }
      overlay = .prompt(PromptState(title: "New folder", purpose: .newFolder(f), editor: LineEditor(proposing: "untitled folder")))
      return []
    case .moveTo:
      return openFolderPicker(items: items, domain: d)
    case .bulkRename:
      return bulkRename()
    case .openWith:
      guard let item = items.first, items.count == 1, !item.isFolder else { return [] }
      overlay = .prompt(PromptState(title: Self.openWithTitle, purpose: .openWith(item, d), editor: LineEditor("")))
      return []
    case .copy:
      return copyToClipboard(items, domain: d)
    case .cut:
      return copyToClipboard(items, domain: d, cut: true)
    case .paste:
      return pasteClipboard()
    case .custom(let id):
      return [.runAction(id, items, d)]
    case .download, .removeDownload, .keepDownloaded, .retry, .resolveConflict, .resolve, .cancelDownload:
      return remoteMenuCommand(command, items: items, domain: d)
    }
  }

  func tagPicker(for items: [Item], domain: DomainIdentifier) -> TagPickerState {
    var names = TagPickerState.finderColors
    // One row per tag whatever its case ("Green" and "green" are one tag).
    for t in sidebar.tags.map(\.name) + items.flatMap(\.tags) where !names.contains(where: { TagName.same($0, t) }) {
      names.append(t)
    }
    let tags = names.map { name -> (String, TagPickerState.Mark) in
      let n = items.filter { $0.tags.contains { TagName.same($0, name) } }.count
      return (name, n == 0 ? .none : n == items.count ? .all : .some)
    }
    return TagPickerState(items: items, domain: domain, tags: tags)
  }

  // MARK: - Overlay keys

  mutating func handleOverlayKey(_ key: KeyEvent) -> [Effect] {
    guard let o = overlay else { return [] }
    switch o {
    case .auth(let a):
      return handleAuthKey(key, a)
    case .folderPicker(let p):
      return handleFolderPickerKey(key, p)
    case .menu(var m):
      switch key {
      case .escape, .character("q"), .character("m"), .menu: overlay = nil
      case .up, .character("k"): m.cursor = max(0, m.cursor - 1); overlay = .menu(m)
      case .down, .character("j"): m.cursor = min(m.entries.count - 1, m.cursor + 1); overlay = .menu(m)
      case .enter, .right, .character("l"):
        guard let e = m.entries[safe: m.cursor] else { overlay = nil; return [] }
        return menuCommand(e.command, items: m.items, domain: m.domain)
      case .character(let c):
        if let e = m.entries.first(where: { $0.key == String(c) }) { return menuCommand(e.command, items: m.items, domain: m.domain) }
      default: break
      }
      return []
    case .prompt(var p):
      switch key {
      case .tab where p.purpose == .goTo:
        return completeGoTo(p)
      case .escape:
        overlay = nil
        if p.purpose == .goTo { goTo = nil }
        if p.purpose == .search {
          recents.search = nil
          recents.searchResults = nil
        }
        return []
      case .enter: return submitPrompt(p)
      case .up, .down:
        // Open With… remembers its last commands: Up goes back through them, Down forward.
        guard case .openWith = p.purpose, recallOpenWith(key == .up, in: &p) else { return [] }
        overlay = .prompt(p)
        return []
      default:
        if p.editor.apply(key) {
          p.error = nil
          if p.purpose == .goTo { p.note = nil }
          overlay = .prompt(p)
          if p.purpose == .search {
            recents.search = p.editor.string
            return p.editor.string.isEmpty ? [] : [.search(p.editor.string)]
          }
        }
        return []
      }
    case .confirm(let c):
      switch key {
      case .enter where c.enterConfirms, .character("y"), .character("Y"):
        overlay = nil
        browse.marked = []
        return [c.effect]
      case .escape, .character("n"), .character("N"), .character("q"): overlay = nil
      default: break
      }
      return []
    case .info(let item, _, let domain, _) where key == .character("z") && item.isFolder:
      return countFolderSize(item, domain: domain ?? currentDomain)
    case .info where key == .escape && folderSize?.phase == .counting:
      // Esc stops the count first; the next Esc closes Info.
      return stopFolderCount()
    case .info, .help, .messageLog:
      // They scroll by a line (j/k, arrows) or a box (PgDn/PgUp, Space); any other key closes.
      let step: Int? =
        switch key {
        case .down, .character("j"): 1
        case .up, .character("k"): -1
        case .pageDown, .character(" "), .control("f"): max(1, height - 6)
        case .pageUp, .control("b"): -max(1, height - 6)
        default: nil
        }
      if let step {
        if case .help(let top) = o { overlay = .help(top: max(0, top + step)) }
        if case .messageLog(let top) = o {
          // Not past the last line: the key back up acts at once.
          let last = max(0, MessageLogView.lines(self, width: MessageLogView.textWidth(self)).count - 1)
          overlay = .messageLog(top: min(last, max(0, top + step)))
        }
        if case .info(let item, let location, let domain, let top) = o {
          // Not past the last field: the view clamps what it draws, and the key back up must act at once.
          let last = max(0, InfoRows.rows(item, location: location, domain: domain, self).count - 1)
          overlay = .info(item, location: location, domain: domain, top: min(last, max(0, top + step)))
        }
        return []
      }
      overlay = nil
      // Leaving Info stops a count of its folder.
      return stopFolderCount()
    case .sortPicker(var cursor):
      let options = AppState.sortOptions
      switch key {
      case .escape, .character("q"): overlay = nil
      case .up, .character("k"): cursor = max(0, cursor - 1); overlay = .sortPicker(cursor: cursor)
      case .down, .character("j"): cursor = min(options.count - 1, cursor + 1); overlay = .sortPicker(cursor: cursor)
      case .enter, .character(" "):
        overlay = nil
        switch options[cursor].1 {
        case .key(let k):
          if sort.key == k { sort.ascending.toggle() } else {
            sort.key = k
            sort.ascending = k == .name || k == .kind
          }
        case .reverse: sort.ascending.toggle()
        case .foldersFirst: sort.foldersFirst.toggle()
        }
        message = StatusMessage("Sorted by \(sort)")
        return reload(keeping: currentItem?.identifier, keepRows: false) + [.saveViewChoices(viewChoices)]
      default: break
      }
      return []
    case .tagPicker(var t):
      switch key {
      case .escape, .character("q"): overlay = nil
      case .up, .character("k"): t.cursor = max(0, t.cursor - 1); overlay = .tagPicker(t)
      case .down, .character("j"): t.cursor = min(t.tags.count, t.cursor + 1); overlay = .tagPicker(t)
      case .enter, .character(" "):
        if t.cursor == t.tags.count {
          overlay = .prompt(PromptState(title: "New tag", purpose: .newTag(t.items, t.domain), editor: LineEditor("")))
          return []
        }
        let (name, mark) = t.tags[t.cursor]
        let on = mark != .all
        t.tags[t.cursor].mark = on ? .all : .none
        for i in t.items.indices {
          if on, !t.items[i].tags.contains(where: { TagName.same($0, name) }) { t.items[i].tags.append(name) }
          if !on { t.items[i].tags.removeAll { TagName.same($0, name) } }
        }
        overlay = .tagPicker(t)
        return [.setTags(t.items, add: on ? [name] : [], remove: on ? [] : [name], t.domain)]
      default: break
      }
      return []
    }
  }

  enum SortOption { case key(ItemSort.Key), reverse, foldersFirst }
  static let sortOptions: [(String, SortOption)] = [
    ("Name", .key(.name)), ("Date modified", .key(.date)), ("Size", .key(.size)), ("Kind", .key(.kind)),
    ("Reverse order", .reverse), ("Folders first", .foldersFirst),
  ]

  mutating func submitPrompt(_ p: PromptState) -> [Effect] {
    let text = p.editor.string
    switch p.purpose {
    case .rename(let item, let d):
      guard !text.isEmpty else { return [] }
      // A name that had to be shown escaped is edited escaped: its escapes stand for its bytes.
      // Any other name is taken as typed (a backslash the user types stays a backslash).
      let shownEscaped = item.filename.utf8String != item.filename.displayString
      let bytes = shownEscaped ? LineEditor.unescapedBytes(text) : Array(text.utf8)
      if bytes == item.filename.bytes {
        overlay = nil
        return []
      }
      // The prompt stays open until the rename succeeds, so a collision can be fixed in place.
      return [.rename(item, ItemName(bytes: bytes), d)]
    case .newFolder(let f):
      guard !text.isEmpty else { return [] }
      return [.makeFolder(ItemName(text), in: f)]
    case .newTag(let items, let d):
      overlay = nil
      let name = String(text.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
      guard !name.isEmpty else { return [] }
      return [.setTags(items, add: [name], remove: [], d)]
    case .openWith(let item, let d):
      return submitOpenWith(text, item: item, domain: d, prompt: p)
    case .shellCommand(let folder, let arguments):
      return submitShellCommand(text, in: folder, arguments: arguments)
    case .goTo:
      return submitGoTo(p)
    case .filter:
      overlay = nil
      return []
    case .search:
      overlay = nil
      recents.search = text.isEmpty ? nil : text
      if text.isEmpty { recents.searchResults = nil }
      return text.isEmpty ? [] : [.search(text)]
    }
  }
}

extension AppState {
  /// Whether a location keeps what is deleted (`LocationEntry.hasTrash`; unknown ones do).
  func hasTrash(_ domain: DomainIdentifier) -> Bool {
    sidebar.locations.first { $0.domain == domain }?.hasTrash ?? true
  }
}
