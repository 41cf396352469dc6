import ProviderAPI

/// The current folder: a path bar, a column header and the rows of the viewport only.
enum BrowseView {
  struct Columns {
    var name: Int
    var size: Int
    var date: Int
    var kind: Int
  }

  /// Fewer columns as the terminal narrows: kind goes first, then the date, then the size.
  static func columns(width: Int) -> Columns {
    let fixed = 3  // marker + badge + space
    var c = Columns(name: 0, size: 9, date: 18, kind: 16)
    if width - fixed - c.size - c.date - c.kind < 24 { c.kind = 0 }
    if width - fixed - c.size - c.date - c.kind < 20 { c.date = 0 }
    if width - fixed - c.size - c.date - c.kind < 12 { c.size = 0 }
    c.name = max(1, width - fixed - c.size - c.date - c.kind)
    return c
  }

  static func draw(_ s: AppState, _ g: Glyphs, _ screen: inout Screen, x: Int, width: Int) {
    let b = s.browse
    // Path bar.
    screen.fill(x: x, y: 1, width: width, height: 1, role: .pathBar)
    let location: String
    switch b.location {
    case .folder(let f):
      let name = TerminalText.escape(s.sidebar.locations.first { $0.domain == f.domain }?.name ?? f.domain.rawValue)
      location = " " + LocationText.fitted(location: name, path: f.path.displayString, to: width - 1, ellipsis: g.ellipsis)
    case .trash(let d):
      // With several locations, whose Recently Deleted this is.
      let name = s.sidebar.locations.count > 1 ? s.sidebar.locations.first { $0.domain == d }?.name : nil
      location = " Recently Deleted" + (name.map { " on " + TerminalText.escape($0) } ?? "")
    }
    screen.put(location, x: x, y: 1, maxWidth: width, role: .pathBar, ascii: s.ascii)
    // Column header.
    let c = columns(width: width)
    screen.fill(x: x, y: 2, width: width, height: 1, role: .columnHeader)
    var cx = x + 3
    screen.put("Name", x: cx, y: 2, maxWidth: c.name, role: .columnHeader, ascii: s.ascii)
    cx += c.name
    if c.size > 0 { screen.put(DisplayWidth.pad("Size", to: c.size - 1, alignRight: true), x: cx, y: 2, role: .columnHeader); cx += c.size }
    if c.date > 0 { screen.put(isTrash(b) ? "  Deleted" : "  Modified", x: cx, y: 2, maxWidth: c.date, role: .columnHeader); cx += c.date }
    if c.kind > 0 { screen.put("  Kind", x: cx, y: 2, maxWidth: c.kind, role: .columnHeader) }
    // Rows.
    // Rows 3 … height-2: as many as the reducer scrolls by (listHeight), so the cursor is always drawn.
    let h = max(0, s.height - 4)
    if let error = b.error, b.list.isEmpty {
      // New files waiting to upload stay listed above the error: a listing fails (offline) just
      // when they pile up, and the cursor and the status line count them.
      let shown = b.filter == nil ? min(b.uploads.count, max(0, h - 2)) : 0
      for i in 0..<shown {
        drawListRow(s.visibleBrowseItem(at: i), index: i, s, g, &screen, x: x, y: 3 + i, width: width, columns: c)
      }
      screen.put(" " + TerminalText.escapeMessage(error.message), x: x, y: 3 + shown, maxWidth: width, role: .error, ascii: s.ascii)
      if let r = error.recoverySuggestion {
        screen.put(" " + r, x: x, y: 4 + shown, maxWidth: width, role: .dim, ascii: s.ascii)
      }
      return
    }
    if b.list.isEmpty && b.uploads.isEmpty && !b.isLoading && b.list.complete {
      screen.put(" (empty folder)", x: x, y: 3, maxWidth: width, role: .dim, ascii: s.ascii)
      return
    }
    if b.filter != nil && s.browseCount == 0 {
      screen.put(" (nothing matches)", x: x, y: 3, maxWidth: width, role: .dim, ascii: s.ascii)
      return
    }
    for row in 0..<h {
      let index = b.top + row
      guard index < s.browseCount else { break }
      drawListRow(s.visibleBrowseItem(at: index), index: index, s, g, &screen, x: x, y: 3 + row, width: width, columns: c)
    }
  }

  /// One row of the list: `item` at row `index` (an ellipsis while its page is on its way).
  static func drawListRow(
    _ item: Item?, index: Int, _ s: AppState, _ g: Glyphs, _ screen: inout Screen, x: Int, y: Int, width: Int,
    columns c: Columns
  ) {
    let b = s.browse
    guard let item else {
      screen.put("   " + g.ellipsis, x: x, y: y, maxWidth: width, role: .listDimmed, ascii: s.ascii)
      return
    }
    let selected = index == b.cursor && !s.sidebar.focused
    let marked = b.marked.contains(item.identifier)
    // Offline, a file with no copy here cannot be opened: dimmed, as the Files app greys it.
    let unavailable = b.offline != nil && !item.isFolder && !item.isDownloaded
    let base: StyleRole =
      selected ? (marked ? .listSelectedMarked : .listSelected) : (marked ? .listMarked : unavailable ? .listDimmed : .listRow)
    screen.fill(x: x, y: y, width: width, height: 1, role: base)
    drawRow(item, s, g, &screen, x: x, y: y, columns: c, base: base, selected: selected, marked: marked, trash: isTrash(b))
  }

  /// What follows a name: the transfer's percent (`42%` after the `↓` badge), the provider's
  /// decorations (Locked, Shared by …), the favorite star, tag dots and the shared mark.
  static func marks(_ item: Item, transfer: TransferState?, badge: Badge, _ s: AppState, _ g: Glyphs) -> [(String, StyleRole)] {
    var marks: [(String, StyleRole)] = []
    let decorations = item.decorations.isEmpty ? [] : DecorationStyle.shown(for: item, from: s.decorations[s.browse.location.domain] ?? [])
    for d in decorations { marks.append((d.glyph(ascii: s.ascii), d.category == .sharing ? .badgeShared : .badgeDecoration)) }
    if item.isFavorite { marks.append((g.favorite, .badgeFavorite)) }
    for t in item.tags.prefix(4) { marks.append((g.tagDot, Badge.tagRole(t))) }
    if item.isShared && !decorations.contains(where: { $0.category == .sharing }) { marks.append((g.shared, .badgeShared)) }
    // The percent first, a space between it and the marks.
    if let p = transfer?.percent { marks.insert(contentsOf: [("\(p)%", badge.role)] + (marks.isEmpty ? [] : [(" ", badge.role)]), at: 0) }
    return marks
  }

  static func isTrash(_ b: BrowseState) -> Bool {
    if case .trash = b.location { return true }
    return false
  }

  /// One row: marker, sync badge, name with folder suffix, favorite star and tag dots, then columns.
  static func drawRow(
    _ item: Item, _ s: AppState, _ g: Glyphs, _ screen: inout Screen, x: Int, y: Int, columns c: Columns,
    base: StyleRole, selected: Bool, marked: Bool, trash: Bool
  ) {
    if marked { screen.put(g.marked, x: x, y: y, role: base, ascii: s.ascii) }
    let transfer = s.transfer(of: item, in: s.browse.location.domain)
    let badge = Badge.of(item, transfer: transfer)
    // Badges and marks keep their colors on the row's background, selected or not.
    screen.put(badge.glyph(g), x: x + 1, y: y, role: badge == .none ? base : badge.role, background: base, ascii: s.ascii)
    var name = item.filename.displayString + (item.isFolder ? g.folderSuffix : "")
    // A symbolic link, as ls -F and ranger show one: `@` (`/` when it points to a folder) and
    // where it points.
    let linkToFolder = item.symlinkTargetPath != nil && s.linkTargets[item.identifier] == .folder
    if let target = item.symlinkTargetPath {
      name += (linkToFolder ? g.folderSuffix : "@") + " → " + target.displayString
    }
    let marks = self.marks(item, transfer: transfer, badge: badge, s, g)
    let marksWidth = marks.isEmpty ? 0 : marks.reduce(0) { $0 + DisplayWidth.width(of: $1.0) } + 1
    if trash, let o = item.originalPath {
      // Where it was: the folder's end, `…/Projects/alpha`, in what the name leaves.
      let room = c.name - marksWidth - 1 - DisplayWidth.width(of: name) - 2
      if room >= 8 { name += "  " + DisplayWidth.tail(ofPath: o.parent.displayString, to: room, ellipsis: g.ellipsis) }
    }
    let nameRole: StyleRole =
      selected || marked || base == .listDimmed ? base : (item.isFolder || linkToFolder ? .listFolder : .listRow)
    let used = screen.put(name, x: x + 3, y: y, maxWidth: max(1, c.name - marksWidth - 1), role: nameRole, ascii: s.ascii)
    var mx = x + 3 + used + 1
    for (glyph, role) in marks where mx < x + 3 + c.name {
      mx += screen.put(glyph, x: mx, y: y, maxWidth: x + 3 + c.name - mx, role: role, background: base, ascii: s.ascii)
    }
    var cx = x + 3 + c.name
    if c.size > 0 {
      let size = item.metadataError != nil ? "?" : item.isFolder ? "-" : SizeText.short(item.documentSize)
      screen.put(DisplayWidth.pad(size, to: c.size - 1, alignRight: true), x: cx, y: y, role: base)
      cx += c.size
    }
    if c.date > 0 {
      let date = item.metadataError != nil ? "?" : DateText.listed(trash ? item.trashedDate : item.contentModificationDate, s.timeZone)
      screen.put("  " + date, x: cx, y: y, maxWidth: c.date, role: base)
      cx += c.date
    }
    if c.kind > 0 { screen.put("  " + item.contentType.kindDescription, x: cx, y: y, maxWidth: c.kind, role: base, ascii: s.ascii) }
  }
}

/// "Location  /path" in a given width: the path keeps its end (the folder's own name,
/// `…/Projects/alpha`) and the location's name gives up columns first, down to a third of them.
enum LocationText {
  static func fitted(location: String, path: String, to columns: Int, ellipsis: String) -> String {
    let whole = location + "  " + path
    if DisplayWidth.width(of: whole) <= columns { return whole }
    let pathWidth = DisplayWidth.width(of: path)
    let nameRoom = max(min(DisplayWidth.width(of: location), columns / 3), columns - 2 - pathWidth)
    let name = DisplayWidth.truncate(location, to: nameRoom, ellipsis: ellipsis)
    return name + "  " + DisplayWidth.tail(ofPath: path, to: columns - 2 - DisplayWidth.width(of: name), ellipsis: ellipsis)
  }
}

public enum SizeText {
  public static func short(_ bytes: Int64?) -> String {
    guard let b = bytes else { return "-" }
    if b < 1000 { return "\(b) B" }
    let units = ["kB", "MB", "GB", "TB", "PB"]
    var v = Double(b) / 1000
    var i = 0
    while v >= 1000 && i < units.count - 1 {
      v /= 1000
      i += 1
    }
    let n = v < 10 ? (v * 10).rounded() / 10 : v.rounded()
    let text = v < 10 ? String(n) : String(Int(n))
    return text + " " + units[i]
  }
}
