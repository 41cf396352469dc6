import ProviderAPI

extension AppState {
  /// Rename in Editor (R, the menu): the marked items, in list order, or — nothing marked —
  /// every item of the folder (the app lists it whole: the loaded pages may be a part), as vidir,
  /// ranger's :bulkrename and lf's bulk rename users expect. Only in a folder's list: Recents
  /// and Recently Deleted mix folders or hold nothing to rename.
  mutating func bulkRename() -> [Effect] {
    overlay = nil
    guard tab == .browse, case .folder(let folder) = browse.location else {
      message = StatusMessage("Rename in Editor works in a folder (Browse)", isError: true)
      return []
    }
    let marked = browse.marked.isEmpty ? nil : selection
    if let pending = marked?.first(where: isPendingUpload) {
      refusePendingUpload(pending)
      return []
    }
    return [.bulkRename(marked, in: folder, sort: sort, includeHidden: showHidden)]
  }

  /// The rename's end: its status line; the list reloaded and the marks cleared when something
  /// was renamed (a marked item may now hold another's name), kept otherwise.
  mutating func bulkRenameEnded(_ status: StatusMessage, renamedAny: Bool) -> [Effect] {
    message = status
    guard renamedAny else { return [] }
    browse.marked = []
    return reload(keeping: currentItem?.identifier) + [.refreshSidebar, .loadRecents(tag: recents.tagFilter)]
  }
}
