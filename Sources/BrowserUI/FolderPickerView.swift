import ProviderAPI

/// Draws the Move To… picker: where we are, "Move here", and the folders, scrolled to the cursor.
enum FolderPickerView {
  static func draw(_ p: FolderPickerState, _ s: AppState, _ g: Glyphs, _ screen: inout Screen) {
    // What `box` draws on this screen, never what was asked for: every size below is at least 0.
    let w = max(4, min(s.width - 2, 60, s.width))
    let h = OverlayView.fitted(height: min(s.height - 2, max(8, p.folders.count + 5)), s)
    let what = p.items.count == 1 ? p.items[0].filename.displayString : "\(p.items.count) items"
    let (bx, by) = OverlayView.box(&screen, s, g, width: w, height: h, title: "Move " + what + " to", role: .menu)
    let inner = max(0, w - 4)
    screen.put(
      DisplayWidth.tail(ofPath: p.folder.path.displayString, to: inner, ellipsis: g.ellipsis), x: bx + 2, y: by + 1,
      maxWidth: inner, role: .menuHeading, ascii: s.ascii)
    // Rows between the path (row 1) and the footer (row h - 2).
    let rows = max(0, h - 4)
    let total = p.folders.count + 1
    let start = max(0, min(p.cursor - rows + 1, total - rows))
    for i in 0..<rows {
      let index = start + i
      guard index < total else { break }
      let y = by + 2 + i
      let role: StyleRole = index == p.cursor ? .menuSelected : .menu
      screen.fill(x: bx + 1, y: y, width: w - 2, height: 1, role: role)
      if index == 0 {
        screen.put(" Move here", x: bx + 1, y: y, maxWidth: w - 2, role: role, ascii: s.ascii)
      } else if let f = p.folders[safe: index - 1] {
        screen.put("   " + f.filename.displayString + g.folderSuffix, x: bx + 1, y: y, maxWidth: w - 2, role: role, ascii: s.ascii)
      }
    }
    OverlayView.scrollMarks(&screen, s, x: bx, y: by, width: w, height: h, above: start > 0, below: start + rows < total)
    guard h >= 4 else { return }
    let footer: String
    if let e = p.error { footer = e } else if p.isLoading { footer = "loading folders…" } else { footer = "enter choose · → open · ← up · esc cancel" }
    screen.put(footer, x: bx + 2, y: by + h - 2, maxWidth: inner, role: p.error == nil ? .menuDisabled : .error, ascii: s.ascii)
  }
}
