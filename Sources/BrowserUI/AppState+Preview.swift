import PreviewKit
import ProviderAPI

extension AppState {
  /// The item the pane should show now: the one under the cursor of the list on screen, when the
  /// pane is shown and the cursor is on a loaded row.
  var wantedPreviewSubject: PreviewSubject? {
    guard isPreviewShown, overlay == nil || preview.full else { return nil }
    let area = layout.paneContent
    // Two rows for the header line and the line under it.
    let columns = max(1, area.width)
    let rows = max(1, area.height - 2)
    switch tab {
    case .browse:
      guard let item = visibleBrowseItem(at: browse.cursor) else { return nil }
      return PreviewSubject(item: item, domain: browse.location.domain, columns: columns, rows: rows)
    case .recents:
      guard let row = recentsRows[safe: recents.cursor] else { return nil }
      return PreviewSubject(item: row.item, domain: row.domain, columns: columns, rows: rows)
    }
  }

  /// Run after every action: when the item under the cursor (or the pane's size) changed, the
  /// pane asks for its preview under a new ticket, and the app drops the job of the one before.
  mutating func followCursorWithPreview() -> [Effect] {
    let wanted = wantedPreviewSubject
    guard wanted != preview.subject else { return [] }
    let sameItem = wanted.map { w in preview.subject.map { $0.item.id == w.item.id && $0.domain == w.domain } ?? false } ?? false
    preview.subject = wanted
    if !sameItem { preview.scroll = 0 }
    guard let wanted else {
      if !isPreviewShown { preview.full = false }
      preview.ticket = 0
      preview.shown = nil
      preview.shownSubject = nil
      preview.shownTicket = 0
      preview.loadingVisible = false
      return [.cancelPreview]
    }
    preview.ticket = nextTicket
    nextTicket += 1
    preview.loadingVisible = false
    return [.preview(ticket: preview.ticket, wanted)]
  }

  /// The app's answers about previews.
  mutating func reducePreview(_ action: Action) -> [Effect] {
    switch action {
    case .previewed(let ticket, let result):
      guard ticket == preview.ticket, let subject = preview.subject else { return [] }
      preview.shown = result
      preview.shownTicket = ticket
      preview.shownSubject = subject
      preview.loadingVisible = false
      preview.scroll = min(preview.scroll, maxPreviewScroll)
    case .previewLate(let ticket):
      guard ticket == preview.ticket, preview.shownTicket != ticket else { return [] }
      preview.loadingVisible = true
    default: break
    }
    return []
  }

  /// Lines of the body below the top one that can be scrolled to.
  var maxPreviewScroll: Int {
    guard let shown = preview.shown, case .lines(let lines) = shown.body else { return 0 }
    return max(0, lines.count - max(1, layout.paneContent.height - 2))
  }

  /// `v`: the pane on or off (from 120 columns it is on unless turned off).
  mutating func togglePreviewPane() -> [Effect] {
    if isPreviewShown {
      preview.visibility = .hidden
      preview.full = false
    } else {
      preview.visibility = .shown
    }
    return requestVisiblePages()
  }

  /// `V`: the preview takes the whole screen for reading, or gives it back.
  mutating func togglePreviewFull() -> [Effect] {
    if preview.full {
      preview.full = false
      return []
    }
    if !isPreviewShown { preview.visibility = .shown }
    preview.full = true
    return []
  }

  /// Keys while the preview has the screen: they scroll it; Esc, q or V give the screen back.
  mutating func handleFullPreviewKey(_ key: KeyEvent) -> [Effect]? {
    guard preview.full, isPreviewShown else { return nil }
    let page = max(1, layout.paneContent.height - 3)
    func scroll(to line: Int) -> [Effect] {
      preview.scroll = max(0, min(line, maxPreviewScroll))
      return []
    }
    if key == .escape || key == .character("q") { preview.full = false; return [] }
    if case .scrollUp = key { return scroll(to: preview.scroll - 3) }
    if case .scrollDown = key { return scroll(to: preview.scroll + 3) }
    switch keyMap.command(for: key) {
    case .previewFull?: preview.full = false; return []
    case .preview?: preview.full = false; return togglePreviewPane()
    case .down?: return scroll(to: preview.scroll + 1)
    case .up?: return scroll(to: preview.scroll - 1)
    case .pageDown?: return scroll(to: preview.scroll + page)
    case .pageUp?: return scroll(to: preview.scroll - page)
    case .top?: return scroll(to: 0)
    case .bottom?: return scroll(to: maxPreviewScroll)
    case .quit?: preview.full = false; return []
    case .open?:
      // Enter opens what is being read.
      preview.full = false
      return nil
    default:
      if key == .character("g") { return scroll(to: 0) }
      if key == .character(" ") { return scroll(to: preview.scroll + page) }
      // Nothing else acts on an item nobody sees in a list (a d here must not delete).
      return []
    }
  }
}
