import ProviderAPI

/// Recents: the working set of every location, from the index, most recently used first.
enum RecentsView {
  static func draw(_ s: AppState, _ g: Glyphs, _ screen: inout Screen, x: Int, width: Int) {
    screen.fill(x: x, y: 1, width: width, height: 1, role: .pathBar)
    var title = " Recents"
    if let t = s.recents.tagFilter { title += "  tagged " + TerminalText.escape(t) }
    if let q = s.recents.search { title = " Search: " + TerminalText.escape(q) }
    screen.put(title, x: x, y: 1, maxWidth: width, role: .pathBar, ascii: s.ascii)
    screen.fill(x: x, y: 2, width: width, height: 1, role: .columnHeader)
    let dateWidth = width >= 60 ? 18 : 0
    let nameWidth = max(10, (width - 3 - dateWidth) * 2 / 5)
    screen.put("Name", x: x + 3, y: 2, role: .columnHeader)
    screen.put("Where", x: x + 3 + nameWidth + 1, y: 2, role: .columnHeader)
    if dateWidth > 0 { screen.put("Last opened", x: x + width - dateWidth, y: 2, role: .columnHeader) }
    let rows = s.recentsRows
    if rows.isEmpty {
      let text = s.recents.search != nil ? " Nothing found." : " Nothing yet: files you open, tag or favorite show up here."
      screen.put(text, x: x, y: 3, maxWidth: width, role: .dim, ascii: s.ascii)
      return
    }
    for row in 0..<max(0, s.height - 4) {
      let i = s.recents.top + row
      guard let r = rows[safe: i] else { break }
      let y = 3 + row
      let selected = i == s.recents.cursor
      let base: StyleRole = selected ? .listSelected : .listRow
      screen.fill(x: x, y: y, width: width, height: 1, role: base)
      let badge = Badge.of(r.item, transfer: s.transfer(of: r.item, in: r.domain))
      screen.put(badge.glyph(g), x: x + 1, y: y, role: badge == .none ? base : badge.role, background: base, ascii: s.ascii)
      var name = r.item.filename.displayString + (r.item.isFolder ? g.folderSuffix : "")
      let isMissing = s.recents.missing.contains(ItemKey(r.domain, r.item.identifier))
      if r.isDeleted { name += " (deleted)" } else if isMissing { name += " (missing)" }
      var marks: [(String, StyleRole)] = r.item.isFavorite ? [(g.favorite, .badgeFavorite)] : []
      for t in r.item.tags.prefix(3) { marks.append((g.tagDot, Badge.tagRole(t))) }
      // The name leaves room for its marks and a space before the Where column.
      let marksWidth = marks.isEmpty ? 0 : marks.count + 1
      var used = screen.put(
        name, x: x + 3, y: y, maxWidth: max(1, nameWidth - 1 - marksWidth),
        role: selected ? base : (r.isDeleted || isMissing ? .listDimmed : (r.item.isFolder ? .listFolder : .listRow)), ascii: s.ascii)
      used += 1
      for (glyph, role) in marks {
        screen.put(glyph, x: x + 3 + used, y: y, role: role, background: base, ascii: s.ascii)
        used += 1
      }
      let location = TerminalText.escape(s.sidebar.locations.first { $0.domain == r.domain }?.name ?? r.domain.rawValue)
      let folder = (r.isDeleted ? (r.item.originalPath ?? r.item.path) : r.item.path).parent.displayString
      let whereX = x + 3 + nameWidth + 1
      let whereWidth = max(1, width - (whereX - x) - dateWidth - 1)
      // The folder keeps its end (its own name, `…/Projects/alpha`).
      let whereText = LocationText.fitted(location: location, path: folder, to: whereWidth, ellipsis: g.ellipsis)
      screen.put(whereText, x: whereX, y: y, maxWidth: whereWidth, role: selected ? base : .dim, ascii: s.ascii)
      if dateWidth > 0 {
        screen.put(DateText.listed(r.item.lastUsedDate, s.timeZone), x: x + width - dateWidth, y: y, role: base)
      }
    }
  }
}
