/// A `capture-pane -e` screen parsed into cells with their colors and attributes.
///
/// tmux writes an SGR sequence wherever the attributes change, and the state carries over from
/// one row to the next. Two captures of the same picture can differ in their bytes (where a run of
/// blanks ends its foreground color, say), so comparisons go through `visible`: what a person
/// sees in each cell.
struct StyledScreen: Equatable {
  struct Style: Equatable, Hashable {
    /// "default", a basic color number ("31", "94"), "5;N" for the 256-color palette or "2;R;G;B".
    var foreground = "default"
    var background = "default"
    var bold = false
    var dim = false
    var italic = false
    var underline = false
    var reverse = false
  }

  struct Cell: Equatable, Hashable {
    var character: Character
    var style: Style
  }

  /// What shows in a cell: its character, and for a blank only the background it leaves visible.
  struct Visible: Equatable, Hashable {
    var character: Character
    var foreground: String?
    var background: String
    var bold: Bool
    var underline: Bool
  }

  let rows: [[Cell]]

  init(_ captured: String, width: Int? = nil) {
    var style = Style()
    var rows: [[Cell]] = []
    for line in captured.split(separator: "\n", omittingEmptySubsequences: false) {
      var cells: [Cell] = []
      let scalars = Array(line)
      var i = 0
      while i < scalars.count {
        let c = scalars[i]
        if c == "\u{1B}", i + 1 < scalars.count, scalars[i + 1] == "[" {
          var j = i + 2
          var params = ""
          while j < scalars.count, let ascii = scalars[j].asciiValue, (0x30...0x3F).contains(ascii) {
            params.append(scalars[j])
            j += 1
          }
          if j < scalars.count, scalars[j] == "m" { Self.apply(params, to: &style) }
          i = j + 1
          continue
        }
        cells.append(Cell(character: c, style: style))
        i += 1
      }
      rows.append(cells)
    }
    if rows.last?.isEmpty == true { rows.removeLast() }
    if let width {
      rows = rows.map { $0.count < width ? $0 + Array(repeating: Cell(character: " ", style: Style()), count: width - $0.count) : $0 }
    }
    self.rows = rows
  }

  var visible: [[Visible]] {
    rows.map { row in
      row.map { cell in
        let s = cell.style
        let fg = s.reverse ? s.background : s.foreground
        let bg = s.reverse ? s.foreground : s.background
        let blank = cell.character == " " && !s.underline
        return Visible(
          character: cell.character, foreground: blank ? nil : fg, background: bg, bold: blank ? false : s.bold,
          underline: s.underline)
      }
    }
  }

  /// Every style in use.
  var styles: Set<Style> { Set(rows.joined().map(\.style)) }

  private static func apply(_ params: String, to style: inout Style) {
    let values = params.isEmpty ? [0] : params.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) ?? 0 }
    var i = 0
    while i < values.count {
      let v = values[i]
      switch v {
      case 0: style = Style()
      case 1: style.bold = true
      case 2: style.dim = true
      case 3: style.italic = true
      case 4: style.underline = true
      case 7: style.reverse = true
      case 22: style.bold = false; style.dim = false
      case 23: style.italic = false
      case 24: style.underline = false
      case 27: style.reverse = false
      case 30...37, 90...97: style.foreground = String(v)
      case 39: style.foreground = "default"
      case 40...47, 100...107: style.background = String(v - 10)
      case 49: style.background = "default"
      case 38, 48:
        var color = "default"
        if i + 2 < values.count, values[i + 1] == 5 {
          color = "5;\(values[i + 2])"
          i += 2
        } else if i + 4 < values.count, values[i + 1] == 2 {
          color = "2;\(values[i + 2]);\(values[i + 3]);\(values[i + 4])"
          i += 4
        }
        if v == 38 { style.foreground = color } else { style.background = color }
      default: break
      }
      i += 1
    }
  }
}
