import ProviderAPI

/// Undo (`u`) and Redo (`U`) of the last renames, moves and deletions (UndoHistory.swift). The
/// reducer only picks the record and says what runs; the app checks the world and acts
/// (`BrowserApp+Undo.swift`), answering `undoEnded`.
extension AppState {
  mutating func undoLast(redo: Bool) -> [Effect] {
    // In Recently Deleted, u is the menu's Restore (the key it had there before Undo existed):
    // taking the selection back out is what undoing a deletion means where one looks at it.
    if !redo, tab == .browse, case .trash = browse.location, !selection.isEmpty { return menuCommand(.restore) }
    if undo.isRunning {
      message = StatusMessage("\(redo ? "Redo" : "Undo") waits: the last one is still running")
      return []
    }
    guard let record = redo ? undo.undone.popLast() : undo.done.popLast() else {
      message = StatusMessage(redo ? "Nothing to redo" : "Nothing to undo")
      return []
    }
    undo.isRunning = true
    message = StatusMessage("\(redo ? "Redoing" : "Undoing") \(record.title)…")
    return [.undo(record, redo: redo)]
  }

  /// An undo or redo ended. Done: its inverse goes on the other list. Refused because the world
  /// changed since: the record is dropped (it can never apply again) and nothing was touched.
  /// Failed otherwise (a server out of reach): the record goes back, to be tried again.
  mutating func undoEnded(_ outcome: UndoOutcome) -> [Effect] {
    undo.isRunning = false
    switch outcome {
    case .done(let inverse, let redo, let text):
      if redo { undo.done.append(inverse) } else { undo.undone.append(inverse) }
      message = StatusMessage(text)
    case .refused(let text):
      message = StatusMessage(text, isError: true)
    case .failed(let record, let redo, let text):
      if redo { undo.undone.append(record) } else { undo.done.append(record) }
      message = StatusMessage(text, isError: true)
    }
    return reload(keeping: currentItem?.identifier) + [.refreshSidebar, .loadRecents(tag: recents.tagFilter)]
  }
}

/// How an undo or redo ended (`Action.undoEnded`).
public enum UndoOutcome: Sendable, Equatable {
  /// Done; `inverse` takes it back again.
  case done(inverse: UndoRecord, redo: Bool, String)
  /// The world changed since: nothing was touched, and the record is dropped.
  case refused(String)
  /// Something failed on the way (unreachable, refused by the storage): the record is kept.
  case failed(UndoRecord, redo: Bool, String)
}
