import ProviderAPI

extension AppState {
  mutating func openFolderPicker(items: [Item], domain: DomainIdentifier) -> [Effect] {
    guard !items.isEmpty else { return [] }
    let start: FolderLocation
    if case .folder(let f) = browse.location, f.domain == domain {
      start = f
    } else if let root = sidebar.locations.first(where: { $0.domain == domain })?.root {
      start = root
    } else {
      return []
    }
    let ticket = nextTicket
    nextTicket += 1
    overlay = .folderPicker(FolderPickerState(items: items, domain: domain, folder: start, ticket: ticket))
    return [.enumerateFolders(ticket: ticket, start)]
  }

  mutating func pickerGo(_ p: FolderPickerState, to folder: FolderLocation) -> [Effect] {
    var p = p
    p.folder = folder
    p.folders = []
    p.cursor = 0
    p.isLoading = true
    p.error = nil
    p.ticket = nextTicket
    nextTicket += 1
    overlay = .folderPicker(p)
    return [.enumerateFolders(ticket: p.ticket, folder)]
  }

  mutating func handleFolderPickerKey(_ key: KeyEvent, _ p: FolderPickerState) -> [Effect] {
    var p = p
    switch key {
    case .escape, .character("q"):
      overlay = nil
    case .up, .character("k"): p.cursor = max(0, p.cursor - 1); overlay = .folderPicker(p)
    case .down, .character("j"): p.cursor = min(p.folders.count, p.cursor + 1); overlay = .folderPicker(p)
    case .pageDown: p.cursor = min(p.folders.count, p.cursor + 10); overlay = .folderPicker(p)
    case .pageUp: p.cursor = max(0, p.cursor - 10); overlay = .folderPicker(p)
    case .right, .character("l"):
      guard p.cursor > 0, let f = p.folders[safe: p.cursor - 1] else { return [] }
      return pickerGo(p, to: FolderLocation(domain: p.domain, identifier: f.identifier, path: f.path, name: f.filename.displayString))
    case .left, .backspace, .character("h"):
      let root = sidebar.locations.first { $0.domain == p.domain }?.root
      guard p.folder.path != root?.path, p.folder.path.lastComponent != nil else { return [] }
      let parent = p.folder.path.parent
      return pickerGo(p, to: FolderLocation(domain: p.domain, identifier: nil, path: parent, name: parent.lastComponent?.displayString ?? "/"))
    case .enter:
      if p.cursor == 0 {
        overlay = nil
        browse.marked = []
        return [.move(p.items, to: p.folder, p.domain)]
      }
      guard let f = p.folders[safe: p.cursor - 1] else { return [] }
      return pickerGo(p, to: FolderLocation(domain: p.domain, identifier: f.identifier, path: f.path, name: f.filename.displayString))
    default: break
    }
    return []
  }

  mutating func reduceFolderPicker(_ action: Action) -> [Effect] {
    guard case .folderPicker(var p) = overlay else { return [] }
    switch action {
    case .foldersLoaded(let t, let folders, let complete):
      guard t == p.ticket else { return [] }
      // Moving a folder into itself is not offered.
      let moving = Set(p.items.map(\.identifier))
      p.folders += folders.filter { !moving.contains($0.identifier) }
      p.isLoading = !complete
    case .foldersFailed(let t, let error):
      guard t == p.ticket else { return [] }
      p.isLoading = false
      p.error = TerminalText.escapeMessage(error.message)
    default: return []
    }
    overlay = .folderPicker(p)
    return []
  }
}
