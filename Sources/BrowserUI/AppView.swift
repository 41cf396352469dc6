import Foundation
import PreviewKit
import ProviderAPI

/// Renders the whole UI into a Screen: pure, so every view is testable without a terminal.
public enum AppView {
  public static func render(_ state: AppState) -> Screen {
    var screen = Screen(width: state.width, height: state.height)
    render(state, into: &screen)
    return screen
  }

  /// Draws the frame into `screen`'s cells, blanked first (`Screen.reset`): the loop keeps two
  /// grids and draws into the one the terminal no longer holds, so a frame allocates no grid.
  public static func render(_ state: AppState, into screen: inout Screen) {
    screen.reset(width: state.width, height: state.height)
    screen.asciiOnly = state.ascii
    guard state.width >= 10, state.height >= 4 else {
      screen.put("Folio: too small", x: 0, y: 0, role: .statusError, ascii: state.ascii)
      return
    }
    let g = state.ascii ? Glyphs.ascii : Glyphs.unicode
    drawTabs(state, &screen)
    let layout = state.layout
    if !layout.sidebar.isEmpty { SidebarView.draw(state, g, &screen, width: layout.sidebar.width) }
    if !layout.list.isEmpty {
      switch state.tab {
      case .browse: BrowseView.draw(state, g, &screen, x: layout.list.x, width: layout.list.width)
      case .recents: RecentsView.draw(state, g, &screen, x: layout.list.x, width: layout.list.width)
      }
    }
    if !layout.pane.isEmpty { PreviewView.draw(state, g, &screen, layout) }
    drawStatus(state, g, &screen)
    if let o = state.overlay { OverlayView.draw(o, state, g, &screen) }
    if let q = state.signInQuestions.first { SignInQuestionView.draw(q, state, g, &screen) }
  }

  static func drawTabs(_ s: AppState, _ screen: inout Screen) {
    screen.fill(x: 0, y: 0, width: s.width, height: 1, role: .tabInactive)
    var x = 1
    for (i, tab) in Tab.allCases.enumerated() {
      let label = " \(i + 1) \(tab.title) "
      x += screen.put(label, x: x, y: 0, role: tab == s.tab ? .tabActive : .tabInactive, ascii: s.ascii) + 1
    }
    // The sort and hidden files are Browse's: Recents has its own order (most recent first).
    guard s.tab == .browse else { return }
    let sort = "\(s.sort.key.rawValue) \(s.sort.ascending ? (s.ascii ? "^" : "↑") : (s.ascii ? "v" : "↓"))"
      + (s.showHidden ? "  hidden" : "")
    let w = DisplayWidth.width(of: sort)
    if s.width - w - 1 > x + 1 { screen.put(sort, x: s.width - w - 1, y: 0, role: .tabInactive, ascii: s.ascii) }
  }

  static func drawStatus(_ s: AppState, _ g: Glyphs, _ screen: inout Screen) {
    let y = s.height - 1
    screen.fill(x: 0, y: y, width: s.width, height: 1, role: .status)
    var left: String
    switch s.tab {
    case .browse:
      let b = s.browse
      if let f = b.filter {
        // The cursor's place among the matches.
        let n = s.browseCount
        left = "/" + f + "  " + (n > 0 && !f.isEmpty ? "\(grouped(b.cursor + 1))/" : "") + "\(grouped(n)) matching"
        let c = s.filterCoverage
        if !f.isEmpty && !c.isWhole {
          if let total = c.total, c.read >= AppState.filterReadLimit {
            left += " in the first \(grouped(c.read)) of \(grouped(total))"
          } else {
            left += " · read \(grouped(c.read))\(c.total.map { " of \(grouped($0))" } ?? "") \(g.spinner[s.spinnerPhase % g.spinner.count])"
          }
        }
      } else if b.replaceOnFirstPage && b.loading == nil {
        // A reload with the rows still shown: the count they had, and that it is being read again.
        let n = b.list.count
        left = "\(grouped(n)) item\(n == 1 ? "" : "s") \(g.spinner[s.spinnerPhase % g.spinner.count])"
      } else if b.isLoading || (b.list.total == nil && !b.list.complete && b.error == nil) {
        let spin = g.spinner[s.spinnerPhase % g.spinner.count]
        if let p = b.loading {
          let n = grouped(p.completed)
          switch p.phase {
          case .reading: left = "\(spin) loading \(n)…"
          case .readingMetadata: left = "\(spin) reading metadata \(n)/\(grouped(p.total ?? 0))…"
          case .sorting: left = "\(spin) sorting \(grouped(p.total ?? p.completed))…"
          }
        } else {
          left = "\(spin) loading \(grouped(b.list.count))…"
        }
        // The cursor's place while the length is not known yet: honest about the total.
        if b.list.count > 0 { left = "\(grouped(b.cursor + 1))/… " + left }
      } else {
        // What arrived counts as an item already (its reload has not listed it yet).
        let arrived = b.uploads.filter(\.arrived).count
        let n = b.list.count + arrived
        left = "\(grouped(n)) item\(n == 1 ? "" : "s")"
        // The cursor's place, `251/5,000 items`: among every row listed (new files on their way
        // up too, then said apart), the total the enumeration knows, loaded or not.
        let rows = s.browseCount
        if rows > 0 {
          left = "\(grouped(b.cursor + 1))/" + (rows == n ? left : "\(grouped(rows)) · " + left)
        }
        // Offline: the rows are what this computer knows, not the folder (Files app's offline).
        if b.offline != nil { left += " known here (offline)" }
      }
      let uploading = b.uploads.count - b.uploads.filter(\.arrived).count
      if uploading > 0 { left += ", \(grouped(uploading)) to upload" }
      if !b.marked.isEmpty { left += ", \(b.marked.count) marked" }
      // What `p` would do, said for as long as it holds (a message goes with the next key).
      if let c = s.clipboard, !c.items.isEmpty { left += ", \(c.items.count) \(c.isCut ? "cut" : "copied")" }
    case .recents:
      let n = s.recentsRows.count
      left = "\(n) recent item\(n == 1 ? "" : "s")"
      if let t = s.recents.tagFilter { left += "  tag: " + TerminalText.escape(t) }
      if let q = s.recents.search { left += "  search: " + TerminalText.escape(q) }
    }
    if s.layout.paneIsFull { left = previewStatus(s) }
    if s.ascii { left = left.replacingOccurrences(of: "…", with: "...") }
    let used = screen.put(" " + left, x: 0, y: y, role: .status, ascii: s.ascii)
    var message = s.message
    if message == nil, let o = s.opening {
      // A remote file on its way to its opener: the download's percent, live.
      let t = s.transfers[o.key]
      let text = t?.direction == .download
        ? "Downloading \(o.name)…" + (t?.percent.map { " \($0)%" } ?? "") : "Opening \(o.name)…"
      message = StatusMessage(text)
    }
    if let m = message {
      let room = s.width - used - 3
      if room > 4 {
        var text = DisplayWidth.truncate(m.text, to: room, ellipsis: g.ellipsis)
        // A message too long for the line says it was cut, and where to read it whole.
        if text != m.text, let key = s.keyMap.keys(for: .messageLog).first, s.message != nil {
          let hint = " \(key): log"
          let hintWidth = DisplayWidth.width(of: hint)
          if room - hintWidth > 4 { text = DisplayWidth.truncate(m.text, to: room - hintWidth, ellipsis: g.ellipsis) + hint }
        }
        screen.put(text, x: s.width - DisplayWidth.width(of: text) - 1, y: y, role: m.isError ? .statusError : .statusMessage, ascii: s.ascii)
      }
    } else if s.width > used + 12 {
      let hint = "? help  m menu"
      screen.put(hint, x: s.width - hint.count - 1, y: y, role: .status, ascii: s.ascii)
    }
  }

  /// The status line while the preview has the screen: where in it, and the way back.
  static func previewStatus(_ s: AppState) -> String {
    guard let shown = s.preview.shown, case .lines(let lines) = shown.body, !lines.isEmpty else {
      return "Esc: back to the list"
    }
    let rows = max(1, s.layout.paneContent.height - 2)
    let first = s.preview.scroll + 1
    let last = min(lines.count, s.preview.scroll + rows)
    return "lines \(grouped(first))-\(grouped(last)) of \(grouped(lines.count))  Esc: back"
  }

  static func grouped(_ n: Int) -> String {
    var s = String(n)
    var i = s.count - 3
    while i > 0 {
      s.insert(",", at: s.index(s.startIndex, offsetBy: i))
      i -= 3
    }
    return s
  }
}

public enum DateText {
  /// "2026-11-22 14:03" in the given time zone, or in the system's local time when nil
  /// (``LocalTime``: no ICU at launch).
  ///
  /// Every row of every frame shows one: computed with the zone's offset at that instant and the
  /// civil-from-days arithmetic (proleptic Gregorian), not a `Calendar` and `String(format:)` per
  /// row, which cost more than the rest of a frame. `folio ls` prints the same text.
  public static func listed(_ d: Date?, _ tz: TimeZone?) -> String {
    guard let d else { return "-" }
    let seconds = d.timeIntervalSince1970
    guard seconds.isFinite, abs(seconds) < 1e15 else { return "-" }
    let local = Int64(seconds.rounded(.down)) + Int64(LocalTime.secondsFromGMT(for: d, in: tz))
    var days = local / 86_400
    var secondOfDay = local % 86_400
    if secondOfDay < 0 {
      secondOfDay += 86_400
      days -= 1
    }
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    guard (0...9_999).contains(year) else {
      func pad(_ v: Int64, _ width: Int) -> String {
        let digits = String(abs(v))
        return (v < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
      }
      return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + " " + pad(secondOfDay / 3_600, 2) + ":"
        + pad(secondOfDay % 3_600 / 60, 2)
    }
    // The 16 ASCII bytes written in place: five padded numbers joined with `+` were ~6,000
    // instructions a row, a tenth of a Down key's frame (docs/BENCHMARKS.md, issue 13).
    let hour = secondOfDay / 3_600
    let minute = secondOfDay % 3_600 / 60
    let digit = { (v: Int64) in UInt8(truncatingIfNeeded: 0x30 + v) }
    let bytes: [UInt8] = [
      digit(year / 1_000), digit(year / 100 % 10), digit(year / 10 % 10), digit(year % 10), 0x2D,
      digit(month / 10), digit(month % 10), 0x2D, digit(day / 10), digit(day % 10), 0x20,
      digit(hour / 10), digit(hour % 10), 0x3A, digit(minute / 10), digit(minute % 10),
    ]
    return String(decoding: bytes, as: UTF8.self)
  }

  /// "14:03:07" in the given time zone, or in local time when nil (a retry today).
  static func time(_ d: Date, _ tz: TimeZone?) -> String {
    var cal = Calendar(identifier: .gregorian)
    cal.timeZone = tz ?? TimeZone(secondsFromGMT: LocalTime.secondsFromGMT(for: d)) ?? .gmt
    let c = cal.dateComponents([.hour, .minute, .second], from: d)
    return String(format: "%02d:%02d:%02d", c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
  }
}
