import ProviderAPI

/// Menus, prompts, confirmations, Info, help and pickers: boxes drawn over the screen.
enum OverlayView {
  static func draw(_ o: Overlay, _ s: AppState, _ g: Glyphs, _ screen: inout Screen) {
    switch o {
    case .folderPicker(let p):
      FolderPickerView.draw(p, s, g, &screen)
    case .auth(let a):
      // Wide enough for the keys line with "space remember" (60 columns) inside the border.
      let w = min(s.width - 2, a.canRemember || a.hint != nil ? 64 : 52)
      // Rows: user, password, remember, then the keys, the location's hint and the error.
      let extra = (a.hint == nil ? 0 : 1) + (a.error == nil ? 0 : 1) + (a.canRemember ? 1 : 0)
      let h = fitted(height: 7 + extra, s)
      let (bx, by) = box(&screen, s, g, width: w, height: h, title: "Sign in to " + TerminalText.escape(a.locationName), role: .prompt)
      let field = w - 16
      for (i, label) in [a.labels.user, a.labels.secret].enumerated() {
        let y = by + 1 + i * 2
        guard y < by + h - 1 else { break }
        screen.put(label, x: bx + 2, y: y, role: .promptLabel)
        screen.fill(x: bx + 13, y: y, width: field, height: 1, role: .promptInput)
        let editor = i == 0 ? a.user : a.secret
        // The secret is shown masked, one dot per character typed.
        let shown = i == 0 ? editor.string : String(repeating: s.ascii ? "*" : "•", count: editor.text.count)
        let used = screen.put(shown, x: bx + 13, y: y, maxWidth: field - 1, role: .promptInput, ascii: s.ascii)
        if a.field == i && !a.isSigningIn && used < field {
          screen[bx + 13 + used, y] = Cell(" ", role: .menuSelected)
        }
      }
      var line = 5
      if a.canRemember, line < h - 1 {
        // Saved only once the server accepts it, in the credentials file (mode 0600).
        let box = a.remember ? "[x]" : "[ ]"
        let used = screen.put(box, x: bx + 2, y: by + line, role: a.field == 2 && !a.isSigningIn ? .menuSelected : .promptLabel)
        screen.put(
          " Remember the \(a.labels.secret.lowercased()) (credentials file)", x: bx + 2 + used, y: by + line, maxWidth: w - 4 - used,
          role: .promptLabel, ascii: s.ascii)
        line += 1
      }
      let keys =
        a.isSigningIn
        ? "signing in…" : "tab next field · " + (a.canRemember ? "space remember · " : "") + "enter sign in · esc cancel"
      if line < h - 1 { screen.put(keys, x: bx + 2, y: by + line, maxWidth: w - 4, role: .promptLabel, ascii: s.ascii) }
      line += 1
      if let hint = a.hint, line < h - 1 {
        screen.put(hint, x: bx + 2, y: by + line, maxWidth: w - 4, role: .promptLabel, ascii: s.ascii)
        line += 1
      }
      if let e = a.error, line < h - 1 { screen.put(e, x: bx + 2, y: by + line, maxWidth: w - 4, role: .error, ascii: s.ascii) }
    case .menu(let m):
      let lines = m.entries.map { e -> (String, String?) in (e.title, e.key) }
      let w = min(s.width - 2, max(24, DisplayWidth.width(of: m.title) + 4, (lines.map { DisplayWidth.width(of: $0.0) + ($0.1?.count ?? 0) + 6 }.max() ?? 0)))
      let h = fitted(height: min(s.height - 2, lines.count + 2), s)
      let (bx, by) = box(&screen, s, g, width: w, height: h, title: m.title)
      // A menu taller than the screen scrolls with its cursor; arrows on the border say so.
      let visible = h - 2
      let start = max(0, min(m.cursor - visible + 1, lines.count - visible))
      for (row, (title, key)) in lines.dropFirst(start).prefix(visible).enumerated() {
        let i = start + row
        let role: StyleRole = i == m.cursor ? .menuSelected : .menu
        screen.fill(x: bx + 1, y: by + 1 + row, width: w - 2, height: 1, role: role)
        screen.put(" " + title, x: bx + 1, y: by + 1 + row, maxWidth: w - 2 - (key.map { $0.count + 2 } ?? 0), role: role, ascii: s.ascii)
        if let key { screen.put(key, x: bx + w - 2 - key.count, y: by + 1 + row, role: i == m.cursor ? role : .menuDisabled) }
      }
      scrollMarks(&screen, s, x: bx, y: by, width: w, height: h, above: start > 0, below: start + visible < lines.count)
    case .prompt(let p):
      let w = min(s.width - 2, max(p.purpose == .goTo ? 60 : 40, DisplayWidth.width(of: p.editor.string) + 6))
      // An error (a name already taken, a refused name) gets as many lines as it needs.
      let errorLines = p.error.map { DisplayWidth.wrap($0, to: max(1, w - 4)) } ?? []
      // A note (Go to's candidates) under the error, in the label's color, at most 6 lines.
      let noteLines = Array((p.note.map { DisplayWidth.wrap($0, to: max(1, w - 4)) } ?? []).prefix(6))
      let h = fitted(height: 4 + errorLines.count + noteLines.count, s)
      let (bx, by) = box(&screen, s, g, width: w, height: h, title: p.title, role: .prompt)
      let field = w - 4
      screen.fill(x: bx + 2, y: by + 1, width: field, height: 1, role: .promptInput)
      // Keep the cursor visible: show the tail of long input.
      let before = String(p.editor.text.prefix(p.editor.cursor))
      var shown = p.editor.string
      var offset = 0
      while DisplayWidth.width(of: String(shown.prefix(p.editor.cursor - offset))) >= field - 1, !shown.isEmpty {
        shown.removeFirst()
        offset += 1
      }
      let role: StyleRole = p.editor.isProposal ? .menuSelected : .promptInput
      let used = screen.put(shown, x: bx + 2, y: by + 1, maxWidth: field, role: role, ascii: s.ascii)
      _ = used
      let cx = bx + 2 + DisplayWidth.width(of: String(before.dropFirst(offset)))
      if cx < bx + 2 + field {
        var cell = screen[cx, by + 1]
        cell.role = .menuSelected
        if cell.text.isEmpty || cell.text == " " { cell.text = " " }
        screen[cx, by + 1] = cell
      }
      let keys = p.purpose == .goTo ? "tab completes · enter goes · esc cancel" : "enter ok · esc cancel"
      if 2 < h - 1 { screen.put(keys, x: bx + 2, y: by + 2, maxWidth: field, role: .promptLabel) }
      // On a screen too short for all of it, the last line that fits ends with an ellipsis.
      let room = max(0, h - 4)
      var shownLines = Array(errorLines.prefix(room))
      if errorLines.count > room, room > 0 {
        shownLines[room - 1] = errorLines[(room - 1)...].joined(separator: " ")
      }
      for (k, line) in shownLines.enumerated() {
        screen.put(line, x: bx + 2, y: by + 3 + k, maxWidth: field, role: .error, ascii: s.ascii)
      }
      for (k, line) in noteLines.enumerated() where shownLines.count + k < max(0, h - 4) {
        screen.put(line, x: bx + 2, y: by + 3 + shownLines.count + k, maxWidth: field, role: .promptLabel, ascii: s.ascii)
      }
    case .confirm(let c):
      // A long question wraps (in a box at most 76 columns wide) instead of losing its end.
      let w = min(s.width - 2, max(36, min(76, DisplayWidth.width(of: c.message) + 4)))
      let lines = DisplayWidth.wrap(c.message, to: max(1, w - 4))
      let h = fitted(height: 3 + lines.count, s)
      let (bx, by) = box(&screen, s, g, width: w, height: h, title: "Confirm", role: .prompt)
      let room = max(1, h - 3)
      for (k, line) in lines.prefix(room).enumerated() {
        screen.put(line, x: bx + 2, y: by + 1 + k, maxWidth: w - 4, role: .prompt, ascii: s.ascii)
      }
      let keys = by + 1 + min(room, lines.count)
      let confirmKeys = c.enterConfirms ? "enter/y" : "y"
      if keys < by + h - 1 { screen.put("\(confirmKeys) \(c.confirmTitle) · esc/n Cancel", x: bx + 2, y: keys, maxWidth: w - 4, role: .promptLabel) }
    case .info(let item, let location, let domain, let top):
      let rows = InfoRows.rows(item, location: location, domain: domain, s)
      let w = min(s.width - 2, max(44, (rows.map { DisplayWidth.width(of: $0.1) }.max() ?? 0) + 18))
      let h = fitted(height: min(s.height - 2, rows.count + 3), s)
      let (bx, by) = box(&screen, s, g, width: w, height: h, title: "Info", role: .menu)
      // The footer only when there is a row for it below the fields.
      let footer = h >= 4
      let visible = max(1, h - (footer ? 3 : 2))
      // On a small terminal the fields scroll (j/k) instead of losing the ones below the box.
      let start = min(top, max(0, rows.count - visible))
      for (i, (k, v)) in rows.dropFirst(start).prefix(visible).enumerated() {
        screen.put(DisplayWidth.pad(k, to: 14), x: bx + 2, y: by + 1 + i, maxWidth: w - 3, role: .menuHeading)
        // A path keeps its end (the item's own folder) when the box is too narrow for it.
        let value = InfoRows.pathKeys.contains(k) ? DisplayWidth.tail(ofPath: v, to: w - 18, ellipsis: g.ellipsis) : v
        screen.put(value, x: bx + 16, y: by + 1 + i, maxWidth: w - 18, role: .menu, ascii: s.ascii)
      }
      scrollMarks(&screen, s, x: bx, y: by, width: w, height: h, above: start > 0, below: start + visible < rows.count)
      let scrolls = rows.count > visible
      if footer {
        screen.put(
          scrolls ? "j/k scroll · any other key closes" : "any key closes", x: bx + 2, y: by + h - 2, maxWidth: w - 4,
          role: .menuDisabled)
      }
    case .help(let top):
      let keys = KeyHelp.rows(for: s.keyMap).map { ($0.keys, $0.help) }
      // After the keys, the legend of the marks beside names (BadgeLegend.swift) under a heading.
      let legend = BadgeLegend.rows(g)
      let rows = keys.count + 2 + legend.count
      let w = min(s.width - 2, 64)
      let h = fitted(height: min(s.height - 2, rows + 3), s)
      let (bx, by) = box(&screen, s, g, width: w, height: h, title: "Keys", role: .help)
      let footer = h >= 4
      let visible = h - (footer ? 3 : 2)
      let start = min(top, max(0, rows - visible))
      // Narrow boxes give the keys less room; the descriptions follow them.
      let keyWidth = min(22, max(1, (w - 5) / 2))
      for i in 0..<min(visible, rows - start) {
        let row = start + i
        let y = by + 1 + i
        if row < keys.count {
          let (k, v) = keys[row]
          screen.put(DisplayWidth.pad(k, to: keyWidth), x: bx + 2, y: y, maxWidth: keyWidth, role: .helpKey, ascii: s.ascii)
          screen.put(v, x: bx + 3 + keyWidth, y: y, maxWidth: w - 4 - keyWidth, role: .help, ascii: s.ascii)
        } else if row == keys.count + 1 {
          screen.put(s.ascii ? "Badges" : "Badges (ASCII form)", x: bx + 2, y: y, maxWidth: w - 4, role: .menuHeading, ascii: s.ascii)
        } else if row > keys.count + 1 {
          let l = legend[row - keys.count - 2]
          let used = screen.put(l.glyph, x: bx + 2, y: y, maxWidth: 2, role: l.role, background: .help, ascii: s.ascii)
          if !s.ascii { screen.put("(" + l.asciiGlyph + ")", x: bx + 2 + used + 1, y: y, maxWidth: keyWidth - used - 1, role: .helpKey) }
          screen.put(l.meaning, x: bx + 3 + keyWidth, y: y, maxWidth: w - 4 - keyWidth, role: .help, ascii: s.ascii)
        }
      }
      scrollMarks(&screen, s, x: bx, y: by, width: w, height: h, above: start > 0, below: start + visible < rows)
      if footer { screen.put("j/k scroll · any other key closes", x: bx + 2, y: by + h - 2, maxWidth: w - 4, role: .menuDisabled) }
    case .messageLog(let top):
      MessageLogView.draw(top: top, s, g, &screen)
    case .tagPicker(let t):
      let w = min(s.width - 2, 36)
      let h = fitted(height: min(s.height - 2, t.tags.count + 3), s)
      let (bx, by) = box(&screen, s, g, width: w, height: h, title: "Tags", role: .menu)
      let rows = t.tags.map { ($0.name, $0.mark) }
      let visible = h - 2
      let start = max(0, min(t.cursor - visible + 1, rows.count + 1 - visible))
      for i in 0..<visible {
        let index = start + i
        let y = by + 1 + i
        let role: StyleRole = index == t.cursor ? .menuSelected : .menu
        screen.fill(x: bx + 1, y: y, width: w - 2, height: 1, role: role)
        if index == rows.count {
          screen.put(" New Tag…", x: bx + 1, y: y, maxWidth: w - 2, role: role, ascii: s.ascii)
          continue
        }
        guard let (name, mark) = rows[safe: index] else { continue }
        let box = mark == .all ? "[x]" : mark == .some ? "[-]" : "[ ]"
        screen.put(" " + box + " ", x: bx + 1, y: y, maxWidth: w - 2, role: role)
        if w > 8 {
          screen.put(g.tagDot, x: bx + 6, y: y, role: Badge.tagRole(name), background: role, ascii: s.ascii)
          screen.put(" " + TerminalText.escape(name), x: bx + 7, y: y, maxWidth: w - 8, role: role, ascii: s.ascii)
        }
      }
      // The tags and "New Tag…" after them.
      scrollMarks(&screen, s, x: bx, y: by, width: w, height: h, above: start > 0, below: start + visible < rows.count + 1)
    case .sortPicker(let cursor):
      let options = AppState.sortOptions
      let w = min(s.width - 2, 30)
      let h = fitted(height: min(s.height - 2, options.count + 2), s)
      let (bx, by) = box(&screen, s, g, width: w, height: h, title: "Sort by", role: .menu)
      let visible = h - 2
      let start = max(0, min(cursor - visible + 1, options.count - visible))
      for (i, (title, option)) in options.enumerated() where i >= start && i < start + visible {
        let role: StyleRole = i == cursor ? .menuSelected : .menu
        var check = "  "
        switch option {
        case .key(let k): if s.sort.key == k { check = s.sort.ascending ? (s.ascii ? "^ " : "↑ ") : (s.ascii ? "v " : "↓ ") }
        case .reverse: check = s.sort.ascending ? "  " : (s.ascii ? "x " : "✓ ")
        case .foldersFirst: check = s.sort.foldersFirst ? (s.ascii ? "x " : "✓ ") : "  "
        }
        screen.fill(x: bx + 1, y: by + 1 + i - start, width: w - 2, height: 1, role: role)
        screen.put(" " + check + title, x: bx + 1, y: by + 1 + i - start, maxWidth: w - 2, role: role, ascii: s.ascii)
      }
      scrollMarks(&screen, s, x: bx, y: by, width: w, height: h, above: start > 0, below: start + visible < options.count)
    }
  }

  /// Arrows on a box's border when its list is cut: ↑ on the top border when entries are hidden
  /// above, ↓ on the bottom one when entries are hidden below (^ and v in ASCII).
  static func scrollMarks(
    _ screen: inout Screen, _ s: AppState, x: Int, y: Int, width w: Int, height h: Int, above: Bool, below: Bool
  ) {
    guard w >= 6, h >= 3 else { return }
    if above { screen.put(s.ascii ? "^" : "↑", x: x + w - 2, y: y, role: .menuBorder, ascii: s.ascii) }
    if below { screen.put(s.ascii ? "v" : "↓", x: x + w - 2, y: y + h - 1, role: .menuBorder, ascii: s.ascii) }
  }

  /// The height a box of `height` rows gets on this screen (what `box` draws): at least 3, at
  /// most the screen. Views lay out their rows inside this, never inside what they asked for.
  static func fitted(height: Int, _ s: AppState) -> Int { max(3, min(height, s.height)) }

  /// Draws a bordered box centred on the screen; returns its top-left corner.
  static func box(_ screen: inout Screen, _ s: AppState, _ g: Glyphs, width: Int, height: Int, title: String, role: StyleRole = .menu) -> (Int, Int) {
    let w = max(4, min(width, s.width))
    let h = max(3, min(height, s.height))
    let x = max(0, (s.width - w) / 2)
    let y = max(0, (s.height - h) / 2)
    // A strip of the list narrower than this beside the box holds only pieces of its rows (the
    // end of a date glued to the border, "│26 07:38"; the start of a sidebar name): it is
    // cleared, on the box's rows, so nothing reads as part of the box. Wider strips stay.
    let fragment = 12
    let right = s.width - (x + w)
    if x > 0 && x < fragment { screen.fill(x: 0, y: y, width: x, height: h, role: .normal) }
    if right > 0 && right < fragment { screen.fill(x: x + w, y: y, width: right, height: h, role: .normal) }
    screen.fill(x: x, y: y, width: w, height: h, role: role)
    for i in 1..<(w - 1) {
      screen.put(g.boxHorizontal, x: x + i, y: y, role: .menuBorder, ascii: s.ascii)
      screen.put(g.boxHorizontal, x: x + i, y: y + h - 1, role: .menuBorder, ascii: s.ascii)
    }
    for j in 1..<(h - 1) {
      screen.put(g.boxVertical, x: x, y: y + j, role: .menuBorder, ascii: s.ascii)
      screen.put(g.boxVertical, x: x + w - 1, y: y + j, role: .menuBorder, ascii: s.ascii)
    }
    screen.put(g.boxTopLeft, x: x, y: y, role: .menuBorder, ascii: s.ascii)
    screen.put(g.boxTopRight, x: x + w - 1, y: y, role: .menuBorder, ascii: s.ascii)
    screen.put(g.boxBottomLeft, x: x, y: y + h - 1, role: .menuBorder, ascii: s.ascii)
    screen.put(g.boxBottomRight, x: x + w - 1, y: y + h - 1, role: .menuBorder, ascii: s.ascii)
    if !title.isEmpty { screen.put(" " + title + " ", x: x + 2, y: y, maxWidth: w - 4, role: .menuHeading, ascii: s.ascii) }
    return (x, y)
  }
}

/// The fields Info shows: every field the item has.
enum InfoRows {
  /// The rows whose value is a path.
  static let pathKeys: Set<String> = ["Path", "Was in", "Points to"]

  static func rows(_ item: Item, location: String, domain: DomainIdentifier? = nil, _ s: AppState) -> [(String, String)] {
    var r: [(String, String)] = [
      ("Name", item.filename.displayString),
      ("Kind", item.contentType.kindDescription),
      ("Location", TerminalText.escape(location)),
      ("Path", item.path.displayString),
    ]
    if let size = item.documentSize {
      // The exact count only where the short form rounds ("1 B (1 bytes)" said it twice).
      r.append(("Size", size < 1024 ? "\(size) \(size == 1 ? "byte" : "bytes")" : SizeText.short(size) + " (\(size) bytes)"))
    } else if item.isFolder, !item.isTrashed {
      // Counted on demand (z): a walk of the whole folder is never started by opening Info.
      r.append(("Size", s.folderSizeText(item)))
    }
    if let d = item.creationDate { r.append(("Created", DateText.listed(d, s.timeZone))) }
    if let d = item.contentModificationDate { r.append(("Modified", DateText.listed(d, s.timeZone))) }
    if let d = item.lastUsedDate { r.append(("Last opened", DateText.listed(d, s.timeZone))) }
    r.append(("Tags", item.tags.isEmpty ? "none" : item.tags.map(TerminalText.escape).joined(separator: ", ")))
    r.append(("Favorite", item.isFavorite ? "yes" : "no"))
    if let o = item.originalPath { r.append(("Was in", o.parent.displayString)) }
    if let d = item.trashedDate { r.append(("Deleted", DateText.listed(d, s.timeZone))) }
    if let t = item.symlinkTargetPath {
      r.append(("Points to", t.displayString))
      switch s.linkTargets[item.identifier] {
      case .broken: r.append(("Link", "broken: its target is missing"))
      case .loop: r.append(("Link", "broken: a loop of links"))
      case .folder: r.append(("Link", "to a folder"))
      case .other, nil: break
      }
    }
    if let p = item.posixPermissions { r.append(("Permissions", String(p, radix: 8))) }
    let transfer = domain.flatMap { s.transfer(of: item, in: $0) }
    r.append(("Sync", transfer?.describe(s.timeZone) ?? syncText(item)))
    if item.isShared, let owner = item.ownerName { r.append(("Owner", TerminalText.escape(owner))) }
    if let d = domain, !item.decorations.isEmpty {
      let labels = item.decorations.compactMap { id in s.decorations[d]?.first { $0.identifier == id }?.label(for: item) }
      if !labels.isEmpty { r.append(("Marks", labels.joined(separator: ", "))) }
    }
    if let e = item.metadataError { r.append(("Unreadable", TerminalText.escapeMessage(e.message))) }
    // Why its location is out (an extension's crash ends with the last lines of its log).
    if let d = domain, case .offline(let why)? = s.sidebar.locations.first(where: { $0.domain == d })?.status {
      r.append(("Offline", TerminalText.escapeMessage(why)))
    }
    if let e = transfer?.error ?? item.uploadingError ?? item.downloadingError {
      r.append(("Last error", TerminalText.escapeMessage(e.message)))
      if let rec = e.recoverySuggestion { r.append(("Recovery", rec)) }
    }
    if item.version != .empty { r.append(("Version", item.version.displayString)) }
    r += conflictRows(domain, s)
    // A new file waiting to upload has only the queue's placeholder: the server names it later.
    r.append(("Identifier", s.isPendingUpload(item) ? "none yet (not on the server)" : TerminalText.escape(item.identifier.rawValue)))
    return r
  }

  /// What a location whose server ignores conditional writes must tell (issue 11 §1): an edit
  /// made elsewhere meanwhile can be replaced without Folio noticing (it reads the item just
  /// before writing, which narrows the window but cannot close it).
  static func conflictRows(_ domain: DomainIdentifier?, _ s: AppState) -> [(String, String)] {
    guard let domain, s.sidebar.locations.first(where: { $0.domain == domain })?.detectsConflictingEdits == false else {
      return []
    }
    return [("Conflicts", "cannot detect conflicting edits"), ("Why", "the server ignores conditional writes")]
  }

  static func syncText(_ item: Item) -> String {
    switch Badge.of(item) {
    case .none: return item.isDownloaded ? "on this computer" : "in the cloud"
    case .notDownloaded: return "not downloaded"
    case .downloading: return "downloading"
    case .uploading: return "uploading"
    case .queued: return "waiting to upload"
    case .error: return "error"
    case .conflict: return "conflict"
    case .pinned: return item.isDownloaded ? "kept downloaded" : "kept downloaded (downloading)"
    case .excluded: return "not synced"
    }
  }
}
