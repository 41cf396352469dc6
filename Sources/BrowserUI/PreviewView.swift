import PreviewKit
import ProviderAPI

/// The preview pane: a header (the item's name and size; then the type the content tells, its
/// date and how much of it is shown) and the body the previewer made, drawn as cells only —
/// every character has been through PreviewKit's sanitiser and `Screen.put`'s.
enum PreviewView {
  static func draw(_ s: AppState, _ g: Glyphs, _ screen: inout Screen, _ layout: Layout) {
    let pane = layout.pane
    screen.fill(x: pane.x, y: pane.y, width: pane.width, height: pane.height, role: .normal)
    if !layout.paneIsFull {
      for y in pane.y..<pane.maxY { screen.put(g.separator, x: pane.x, y: y, role: .dim, ascii: s.ascii) }
    }
    let area = layout.paneContent
    guard area.width >= 4, area.height >= 3 else { return }
    let p = s.preview
    guard let subject = p.loadingVisible ? p.subject : (p.shownSubject ?? p.subject) else {
      screen.put(" Nothing to preview", x: area.x, y: area.y, maxWidth: area.width, role: .dim, ascii: s.ascii)
      return
    }
    let shown = p.loadingVisible ? nil : p.shown
    drawHeader(subject.item, shown, s, g, &screen, area)
    let body = Layout.Rect(x: area.x + 1, y: area.y + 2, width: area.width - 2, height: area.height - 2)
    guard let shown else {
      let spin = g.spinner[s.spinnerPhase % g.spinner.count]
      screen.put("\(spin) loading\(g.ellipsis)", x: body.x, y: body.y, maxWidth: body.width, role: .dim, ascii: s.ascii)
      return
    }
    switch shown.body {
    case .lines(let lines):
      for row in 0..<body.height {
        guard let line = lines[safe: p.scroll + row] else { break }
        var x = body.x
        for run in line.runs {
          x += screen.put(run.text, x: x, y: body.y + row, maxWidth: body.maxX - x, role: .normal, ink: run.ink)
          if x >= body.maxX { break }
        }
      }
    case .folder(let entries, let total):
      drawFolder(entries, total: total, s, g, &screen, body)
    case .picture(let picture):
      drawPicture(picture, s, &screen, body)
    case .message(let text):
      var y = body.y
      for line in wrapped(text, width: body.width) where y < body.maxY {
        screen.put(line, x: body.x, y: y, maxWidth: body.width, role: .dim, ascii: s.ascii)
        y += 1
      }
    }
  }

  /// "name   12.4 KB" then "PNG image data, 40 x 30 · first 64 KiB of 2.1 GB · 2026-11-22 14:03".
  static func drawHeader(_ item: Item, _ shown: Preview?, _ s: AppState, _ g: Glyphs, _ screen: inout Screen, _ area: Layout.Rect) {
    let size = item.isFolder ? "" : SizeText.short(item.documentSize)
    let sizeWidth = DisplayWidth.width(of: size)
    let name = item.filename.displayString + (item.isFolder ? g.folderSuffix : "")
    screen.put(" " + name, x: area.x, y: area.y, maxWidth: area.width - sizeWidth - 2, role: .header, ascii: s.ascii)
    if sizeWidth > 0, area.width > sizeWidth + 8 {
      screen.put(size, x: area.maxX - sizeWidth - 1, y: area.y, role: .dim, ascii: s.ascii)
    }
    var parts: [String] = []
    // "Text, UTF-8", "Data": libmagic and PreviewKit start some in lower case.
    if let t = shown?.typeDescription, let first = t.first { parts.append(TerminalText.escape(first.uppercased() + t.dropFirst())) }
    if case .folder(let entries, let total)? = shown?.body {
      let n = total ?? entries.count
      parts.append(total == nil ? "\(AppView.grouped(n))+ items" : "\(AppView.grouped(n)) item\(n == 1 ? "" : "s")")
    }
    if let e = shown?.extent { parts.append(TerminalText.escape(e)) }
    if let d = item.contentModificationDate { parts.append(DateText.listed(d, s.timeZone)) }
    if !item.tags.isEmpty { parts.append(item.tags.map(TerminalText.escape).joined(separator: ", ")) }
    screen.put(" " + parts.joined(separator: " · "), x: area.x, y: area.y + 1, maxWidth: area.width, role: .dim, ascii: s.ascii)
  }

  /// A folder's first entries, folders with their slash, as Browse lists them.
  static func drawFolder(_ entries: [Item], total: Int?, _ s: AppState, _ g: Glyphs, _ screen: inout Screen, _ body: Layout.Rect) {
    if entries.isEmpty {
      screen.put("(empty folder)", x: body.x, y: body.y, maxWidth: body.width, role: .dim, ascii: s.ascii)
      return
    }
    let more = (total ?? entries.count) > entries.count || entries.count > body.height
    let rows = more ? body.height - 1 : body.height
    for (i, item) in entries.prefix(max(0, rows)).enumerated() {
      let name = item.filename.displayString + (item.isFolder ? g.folderSuffix : "")
      screen.put(name, x: body.x, y: body.y + i, maxWidth: body.width, role: item.isFolder ? .listFolder : .normal, ascii: s.ascii)
    }
    if more {
      let n = total ?? entries.count
      let rest = total == nil ? "and more" : "\(AppView.grouped(n - max(0, rows))) more"
      screen.put(rest, x: body.x, y: body.y + max(0, rows), maxWidth: body.width, role: .dim, ascii: s.ascii)
    }
  }

  /// A picture as upper half blocks: the top pixel in the foreground, the bottom one behind.
  static func drawPicture(_ picture: PictureCells, _ s: AppState, _ screen: inout Screen, _ body: Layout.Rect) {
    guard !s.ascii, !screen.asciiOnly else {
      screen.put("(pictures need a UTF-8 terminal)", x: body.x, y: body.y, maxWidth: body.width, role: .dim, ascii: true)
      return
    }
    let x0 = body.x + max(0, (body.width - picture.columns) / 2)
    for row in 0..<min(picture.rows, body.height) {
      for column in 0..<min(picture.columns, body.maxX - x0) {
        let i = row * picture.columns + column
        let ink = Ink(foreground: picture.upper[i], background: picture.lower[i])
        screen.put("▀", x: x0 + column, y: body.y + row, maxWidth: 1, role: .normal, ink: ink)
      }
    }
  }

  /// Words wrapped to `width` columns (a word longer than a line is cut by `put`).
  static func wrapped(_ text: String, width: Int) -> [String] {
    var lines: [String] = []
    for paragraph in TerminalText.escapeMessage(text).split(separator: "\n", omittingEmptySubsequences: false) {
      var line = ""
      for word in paragraph.split(separator: " ") {
        let candidate = line.isEmpty ? String(word) : line + " " + word
        if DisplayWidth.width(of: candidate) > width, !line.isEmpty {
          lines.append(line)
          line = String(word)
        } else {
          line = candidate
        }
      }
      lines.append(line)
    }
    return lines
  }
}
