import ProviderAPI

/// Draws the Move To… picker: where we are, "Move here", and the folders, scrolled to the cursor.
enum FolderPickerView {
  static func draw(_ p: FolderPickerState, _ s: AppState, _ g: Glyphs, _ screen: inout Screen) {
    let w = min(s.width - 2, 60)
    let h = min(s.height - 2, max(8, p.folders.count + 5))
    let what = p.items.count == 1 ? p.items[0].filename.displayString : "\(p.items.count) items"
    let (bx, by) = OverlayView.box(&screen, s, g, width: w, height: h, title: "Move " + what + " to", role: .menu)
    screen.put(p.folder.path.displayString, x: bx + 2, y: by + 1, maxWidth: w - 4, role: .menuHeading, ascii: s.ascii)
    let rows = h - 4
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
    let footer: String
    if let e = p.error { footer = e } else if p.isLoading { footer = "loading folders…" } else { footer = "enter choose · → open · ← up · esc cancel" }
    screen.put(footer, x: bx + 2, y: by + h - 2, maxWidth: w - 4, role: p.error == nil ? .menuDisabled : .error, ascii: s.ascii)
  }
}
