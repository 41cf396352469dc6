import Foundation

/// The `W` overlay: the session's status messages (``MessageLog``), newest first, each whole —
/// wrapped under its time instead of cut as the status line cuts it.
enum MessageLogView {
  /// One screen line of the log: the time on an entry's first line (nil on its other lines).
  struct Line: Equatable {
    var time: String?
    var text: String
    var isError: Bool
  }

  /// Columns of the time column ("14:03:07 ").
  static let timeWidth = 9

  /// The box's width on this screen.
  static func boxWidth(_ s: AppState) -> Int { min(s.width - 2, 100) }

  /// The columns the messages wrap to inside the box.
  static func textWidth(_ s: AppState) -> Int { max(1, boxWidth(s) - 4 - timeWidth) }

  /// Every entry, newest first, wrapped to `width` columns.
  static func lines(_ s: AppState, width: Int) -> [Line] {
    var out: [Line] = []
    for e in s.messageLog.entries.reversed() {
      let time = DateText.time(e.date, s.timeZone)
      for (k, piece) in DisplayWidth.wrap(e.text, to: width).enumerated() {
        out.append(Line(time: k == 0 ? time : nil, text: piece, isError: e.isError))
      }
    }
    return out
  }

  static func draw(top: Int, _ s: AppState, _ g: Glyphs, _ screen: inout Screen) {
    let lines = lines(s, width: textWidth(s))
    let w = boxWidth(s)
    let h = OverlayView.fitted(height: min(s.height - 2, max(1, lines.count) + 3), s)
    let (bx, by) = OverlayView.box(&screen, s, g, width: w, height: h, title: "Messages", role: .menu)
    let footer = h >= 4
    let visible = max(1, h - (footer ? 3 : 2))
    let start = min(top, max(0, lines.count - visible))
    if lines.isEmpty {
      screen.put("No messages yet", x: bx + 2, y: by + 1, maxWidth: w - 4, role: .menuDisabled, ascii: s.ascii)
    }
    for (i, line) in lines.dropFirst(start).prefix(visible).enumerated() {
      if let t = line.time { screen.put(t, x: bx + 2, y: by + 1 + i, maxWidth: timeWidth - 1, role: .menuHeading) }
      screen.put(
        line.text, x: bx + 2 + timeWidth, y: by + 1 + i, maxWidth: w - 4 - timeWidth,
        role: line.isError ? .error : .menu, ascii: s.ascii)
    }
    OverlayView.scrollMarks(&screen, s, x: bx, y: by, width: w, height: h, above: start > 0, below: start + visible < lines.count)
    if footer {
      screen.put(
        lines.count > visible ? "newest first · j/k scroll · any other key closes" : "newest first · any key closes",
        x: bx + 2, y: by + h - 2, maxWidth: w - 4, role: .menuDisabled, ascii: s.ascii)
    }
  }
}
