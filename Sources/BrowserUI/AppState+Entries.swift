import ProviderAPI

/// Entries of the working set — Recents, a tag's list, search results, the sidebar's favorites —
/// name an item by identifier and its last known path. Nothing acts on the path until the app has
/// resolved the entry (`Effect.openEntry`): a file renamed in another shell is followed, one that
/// is gone is said to be gone, and no opener is ever started on a path that no longer exists.
extension AppState {
  /// Enter on an entry: ask the app where its item is now.
  mutating func openEntry(_ row: IndexedRow) -> [Effect] {
    if row.isDeleted {
      message = StatusMessage("“\(row.item.filename.displayString)” is in Recently Deleted: restore it first (m, then Restore)")
      return []
    }
    return [.openEntry(row)]
  }

  /// Whether a failed operation was asked on the Recents row under the cursor and says its item
  /// is gone: then the person is offered to remove the entry, as Enter on it does.
  func goneEntry(after error: ProviderError, from origin: Effect?) -> IndexedRow? {
    guard error.code == .noSuchItem, tab == .recents, let origin, let row = recentsRows[safe: recents.cursor] else { return nil }
    let items: [Item]
    switch origin {
    case .rename(let i, _, _), .setFavorite(let i, _, _), .openWith(let i, _, _): items = [i]
    case .setTags(let i, _, _, _), .trash(let i, _), .move(let i, _, _), .runAction(_, let i, _): items = i
    default: return nil
    }
    return items.contains { $0.identifier == row.item.identifier } ? row : nil
  }

  /// What the status line says of an entry found elsewhere: the new name when only the name
  /// changed (the common case: a rename in another shell), else the new folder.
  public static func followed(_ old: Item, to new: Item) -> String {
    let was = "“\(old.filename.displayString)”"
    if old.path.parent == new.path.parent { return "\(was) is now “\(new.filename.displayString)”: followed" }
    return "Followed \(was) to \(new.path.parent.displayString)"
  }

  mutating func reduceEntry(_ action: Action) -> [Effect] {
    switch action {
    case .entryFound(let row, let item):
      recents.missing.remove(ItemKey(row.domain, row.item.identifier))
      var effects: [Effect]
      if item.isFolder {
        tab = .browse
        effects = go(
          to: .folder(
            FolderLocation(domain: row.domain, identifier: item.identifier, path: item.path, name: item.filename.displayString)),
          pushBack: true)
      } else {
        effects = openFiles([item], in: row.domain)
      }
      if item.path != row.item.path { message = StatusMessage(Self.followed(row.item, to: item)) }
      return effects
    case .entryGone(let row, _):
      recents.missing.insert(ItemKey(row.domain, row.item.identifier))
      let name = row.item.filename.displayString
      let folder = row.item.path.parent.displayString
      overlay = .confirm(
        ConfirmState(
          message: "“\(name)” is no longer in \(folder): it was deleted, or moved where Folio cannot follow it. Remove it from Recents, Favorites and Tags?",
          confirmTitle: "Remove", effect: .forgetEntry(row), enterConfirms: false))
      return []
    case .entriesChecked(let followed, let missing):
      recents.missing = Set(missing)
      var parts: [String] = []
      if followed > 0 { parts.append("\(followed) followed to where \(followed == 1 ? "it is" : "they are") now") }
      if !missing.isEmpty {
        parts.append("\(missing.count) can no longer be found (marked missing: Enter on one offers to remove it)")
      }
      message = parts.isEmpty ? nil : StatusMessage("Recents checked: " + parts.joined(separator: "; "))
      return []
    default:
      return []
    }
  }
}
