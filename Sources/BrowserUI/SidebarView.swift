import ProviderAPI

/// Locations, Favorites, Tags (in their colors) and Recently Deleted.
enum SidebarView {
  static func draw(_ s: AppState, _ g: Glyphs, _ screen: inout Screen, width: Int) {
    let top = 1
    let bottom = s.height - 1
    screen.fill(x: 0, y: top, width: width, height: bottom - top, role: .sidebar)
    for y in top..<bottom { screen.put(g.separator, x: width, y: y, role: .sidebar, ascii: s.ascii) }
    var y = top
    for (i, entry) in s.sidebar.entries.enumerated() {
      guard y < bottom else { break }
      let selected = s.sidebar.focused && i == s.sidebar.cursor
      let role: StyleRole = selected ? .sidebarFocused : .sidebar
      switch entry {
      case .heading(let h):
        if !h.isEmpty { screen.put(" " + h, x: 0, y: y, maxWidth: width, role: .sidebarHeading, ascii: s.ascii) }
      case .location(let l):
        let current = s.browse.location.domain == l.domain && isRoot(s, l)
        let r: StyleRole = selected ? .sidebarFocused : current ? .sidebarSelected : role
        screen.fill(x: 0, y: y, width: width, height: 1, role: r)
        if let status = l.status, let state = l.state {
          // A remote location's state, in the error color when it needs a person; the name gives
          // way to it on a narrow sidebar.
          // The name keeps a few columns; the state gets the rest (cut with an ellipsis).
          let name = "  " + TerminalText.escape(l.name)
          // At 80 columns the sidebar has 20: "offline, 1 waiting" became "(offline, 1 wa…". The
          // count then goes as the list's own queued mark: "(offline ◷1)".
          var label = " (" + state + ")"
          if DisplayWidth.width(of: name) + DisplayWidth.width(of: label) > width, l.syncing > 0 {
            let compact = status.text(syncing: 0)
            label = " (" + (compact == "online" || compact == "checking" ? "" : compact + " ") + g.queued + "\(l.syncing))"
          }
          let nameRoom = max(min(DisplayWidth.width(of: name), 8), width - DisplayWidth.width(of: label))
          let used = screen.put(name, x: 0, y: y, maxWidth: min(width, nameRoom), role: r, ascii: s.ascii)
          if used < width {
            screen.put(
              label, x: used, y: y, maxWidth: width - used, role: status.isProblem ? .badgeError : r, background: r,
              ascii: s.ascii)
          }
        } else {
          screen.put("  " + TerminalText.escape(l.name) + (l.state.map { " (\($0))" } ?? ""), x: 0, y: y, maxWidth: width, role: r, ascii: s.ascii)
        }
      case .favorite(let row):
        // The star and the dots keep their colors on the row's background, selected or not.
        screen.fill(x: 0, y: y, width: width, height: 1, role: role)
        let used = screen.put("  " + g.favorite + " ", x: 0, y: y, role: .badgeFavorite, background: role, ascii: s.ascii)
        screen.put(row.item.filename.displayString, x: used, y: y, maxWidth: width - used, role: role, ascii: s.ascii)
      case .tag(let name, let count):
        screen.fill(x: 0, y: y, width: width, height: 1, role: role)
        let used = screen.put("  " + g.tagDot + " ", x: 0, y: y, role: Badge.tagRole(name), background: role, ascii: s.ascii)
        let n = " \(count) "  // a column clear of the separator
        screen.put(TerminalText.escape(name), x: used, y: y, maxWidth: width - used - n.count, role: role, ascii: s.ascii)
        screen.put(n, x: width - n.count, y: y, role: role, ascii: s.ascii)
      case .trash(let d):
        let inTrash: Bool = { if case .trash(let t) = s.browse.location { return t == d } else { return false } }()
        let r: StyleRole = selected ? .sidebarFocused : inTrash ? .sidebarSelected : role
        screen.fill(x: 0, y: y, width: width, height: 1, role: r)
        // Under the "Recently Deleted" heading (several locations), the location's name.
        let name = s.sidebar.locations.count > 1 ? s.sidebar.locations.first { $0.domain == d }?.name : nil
        screen.put("  " + (name.map(TerminalText.escape) ?? "Recently Deleted"), x: 0, y: y, maxWidth: width, role: r, ascii: s.ascii)
      }
      y += 1
    }
  }

  static func isRoot(_ s: AppState, _ l: LocationEntry) -> Bool {
    if case .folder(let f) = s.browse.location { return f.path == l.root.path }
    return false
  }
}
