import PreviewKit
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One cell of the terminal grid.
///
/// A wide character (CJK, emoji) occupies two cells: the first holds the character with width 2,
/// the second is a continuation (empty text, width 0) that backends skip.
///
/// A cell may sit on another role's background: a tag's colored dot on a sidebar row, the
/// favorite star on the selected row. `role` gives the foreground and emphasis, `background` (when
/// set) the background, so the mark keeps its color and the row keeps its own.
///
/// The text is kept as plain bits (``CellText``), not a `String`: a cell holds no reference, so
/// the 10,000 cells of a frame cost no reference counting to make, copy, compare or free.
public struct Cell: Sendable, Hashable {
  var storedText: CellText
  public var width: UInt8
  public var role: StyleRole
  /// The role whose background the cell takes; nil: `role`'s own.
  public var background: StyleRole?
  /// Colors the cell's content asks for (a preview's syntax token, a helper's SGR, a picture's
  /// pixels), over `role`'s: `.plain` for none, which is every cell but the preview pane's.
  public var ink: Ink = .plain

  public var text: String {
    get { storedText.string }
    set { storedText = CellText(newValue) }
  }

  /// The byte when the text is one ASCII character, for a backend to draw without a String.
  public var asciiByte: UInt8? { storedText.asciiByte }

  public init(_ text: String, width: UInt8 = 1, role: StyleRole = .normal, background: StyleRole? = nil) {
    self.init(storedText: CellText(text), width: width, role: role, background: background)
  }

  init(storedText: CellText, width: UInt8 = 1, role: StyleRole = .normal, background: StyleRole? = nil) {
    self.storedText = storedText
    self.width = width
    self.role = role
    self.background = background == role ? nil : background
  }

  /// A cell of preview content: `role`'s look, with `ink`'s colors and emphasis over it.
  public init(_ text: String, width: UInt8 = 1, role: StyleRole, ink: Ink) {
    self.init(storedText: CellText(text), width: width, role: role)
    self.ink = ink
  }

  public static let blank = Cell(storedText: .space)
  public var isContinuation: Bool { width == 0 }
}

/// A grid of cells that views draw into and a backend presents: the only thing between the pure
/// UI and the terminal (ratatui's Buffer). Drawing clips to the grid and never splits a character.
public struct Screen: Sendable, Equatable {
  public let width: Int
  public let height: Int
  public private(set) var cells: [Cell]
  /// Draw everything as on a terminal without UTF-8 (`--ascii`): the interface's own punctuation
  /// (…, ·, arrows, quotes) becomes ASCII in every `put`, whatever the view passed, and any other
  /// non-ASCII character (in names) is written `\u{NNNN}`.
  public var asciiOnly = false

  public init(width: Int, height: Int) {
    self.width = max(0, width)
    self.height = max(0, height)
    cells = Array(repeating: .blank, count: self.width * self.height)
  }

  /// Blanks every cell for the next frame, keeping the storage when the size is the same: a
  /// 200x50 grid is ~316 KB, over malloc's mmap threshold, so a new one per frame was an `mmap`,
  /// ~80 page faults and an `munmap` per key (docs/BENCHMARKS.md, issue 13: the Down key).
  public mutating func reset(width: Int, height: Int) {
    let width = max(0, width)
    let height = max(0, height)
    guard width == self.width, height == self.height else {
      self = Screen(width: width, height: height)
      return
    }
    asciiOnly = false
    cells.withUnsafeMutableBufferPointer { cells in
      for i in cells.indices { cells[i] = .blank }
    }
  }

  /// The columns of row `y` (of the first `columns`) that differ from `old`, a grid of the same
  /// size (another size: the whole row), widened so that no wide character, old or new, is cut
  /// in half; nil when none differ.
  /// Here, where `Cell` is defined, its comparison is inlined: the terminal compares every cell of
  /// every frame, and a call per cell from the backend was a third of a Down key's frame.
  public func changedColumns(inRow y: Int, since old: Screen, columns: Int) -> ClosedRange<Int>? {
    let columns = min(columns, width)
    guard y >= 0, y < height, columns > 0 else { return nil }
    guard old.width == width, old.height == height else { return 0...(columns - 1) }
    let row = y * width
    return cells.withUnsafeBufferPointer { new in
      old.cells.withUnsafeBufferPointer { old in
        // Most rows of a key's frame are unchanged: one `memcmp` of the row says so. Cells are
        // plain bits, so equal bytes are equal cells; unequal bytes (padding a write left
        // different) only send the row to the cell-by-cell comparison below. Cell by cell, a
        // row of 200 was ~8,800 instructions, 50 of them every frame.
        if let o = old.baseAddress, let n = new.baseAddress,
          memcmp(o + row, n + row, columns * MemoryLayout<Cell>.stride) == 0
        {
          return nil
        }
        var first = 0
        while first < columns && old[row + first] == new[row + first] { first += 1 }
        if first == columns { return nil }
        var last = columns - 1
        while last > first && old[row + last] == new[row + last] { last -= 1 }
        while first > 0 && (new[row + first].isContinuation || old[row + first].isContinuation) { first -= 1 }
        while last + 1 < columns && (new[row + last + 1].isContinuation || old[row + last + 1].isContinuation) { last += 1 }
        return first...last
      }
    }
  }

  public subscript(x: Int, y: Int) -> Cell {
    get { cells[y * width + x] }
    set { cells[y * width + x] = newValue }
  }

  /// Fills a rectangle with blanks of a role.
  public mutating func fill(x: Int, y: Int, width w: Int, height h: Int, role: StyleRole) {
    let x0 = max(0, x)
    let y0 = max(0, y)
    let x1 = min(width, x + w)
    let y1 = min(height, y + h)
    guard x0 < x1, y0 < y1 else { return }
    let blank = Cell(storedText: .space, role: role)
    cells.withUnsafeMutableBufferPointer { cells in
      for yy in y0..<y1 {
        let row = yy * width
        // Only the edges can cut a wide character in half: blank its other half there.
        if cells[row + x0].isContinuation, x0 > 0, cells[row + x0 - 1].width == 2 {
          cells[row + x0 - 1] = Cell(storedText: .space, role: cells[row + x0 - 1].background ?? cells[row + x0 - 1].role)
        }
        if x1 < width, cells[row + x1].isContinuation {
          cells[row + x1] = Cell(storedText: .space, role: cells[row + x1].background ?? cells[row + x1].role)
        }
        for xx in x0..<x1 { cells[row + xx] = blank }
      }
    }
  }

  /// Stores a cell (and the continuation of a wide one), blanking what is left of any wide
  /// character it overwrites half of: a box drawn over a CJK name must not leave half a glyph.
  private mutating func store(_ cell: Cell, x: Int, y: Int) {
    let row = y * width
    if cells[row + x].isContinuation, x > 0, cells[row + x - 1].width == 2 {
      cells[row + x - 1] = Cell(storedText: .space, role: cells[row + x - 1].background ?? cells[row + x - 1].role)
    }
    let end = x + (cell.width == 2 ? 2 : 1)
    if end < width, cells[row + end].isContinuation {
      cells[row + end] = Cell(storedText: .space, role: cells[row + end].background ?? cells[row + end].role)
    }
    cells[row + x] = cell
    if cell.width == 2 {
      var continuation = Cell(storedText: .empty, width: 0, role: cell.role, background: cell.background)
      continuation.ink = cell.ink
      cells[row + x + 1] = continuation
    }
  }

  /// Control and bidi scalars escaped as `TerminalText` would: views sanitise names themselves,
  /// this is the last line of defence so that nothing drawn can ever reach a terminal raw.
  static func neutralised(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: { TerminalText.isUnsafe($0) || $0.value == 0x200D || $0.value == 0x200C })
    else { return text }
    let scalars = Array(text.unicodeScalars)
    var out = ""
    for (k, scalar) in scalars.enumerated() {
      let previous = k > 0 ? scalars[k - 1] : nil
      let next = k + 1 < scalars.count ? scalars[k + 1] : nil
      if TerminalText.isUnsafe(scalar, previous: previous, next: next) {
        out += TerminalText.escape(String(scalar))
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  /// Everything in ASCII, for a terminal that has nothing else: the interface's punctuation
  /// spelled in ASCII, then any other character (of a name: CJK, accents, emoji) written as
  /// `TerminalText` writes what it cannot show, `\u{NNNN}`.
  static func asciiOnly(_ text: String) -> String {
    let punctuation = asciiPunctuation(text)
    guard !punctuation.unicodeScalars.allSatisfy(\.isASCII) else { return punctuation }
    var out = ""
    for scalar in punctuation.unicodeScalars {
      if scalar.isASCII {
        out.unicodeScalars.append(scalar)
      } else {
        out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
      }
    }
    return out
  }

  /// The interface's non-ASCII punctuation spelled in ASCII.
  static func asciiPunctuation(_ text: String) -> String {
    guard !text.unicodeScalars.allSatisfy(\.isASCII) else { return text }
    var out = ""
    for ch in text {
      switch ch {
      case "…": out += "..."
      case "·": out += "-"
      case "“", "”": out += "\""
      case "‘", "’": out += "'"
      case "↑": out += "^"
      case "↓": out += "v"
      case "→": out += "->"
      case "←": out += "<-"
      case "✓": out += "x"
      case "•": out += "*"
      default: out.append(ch)
      }
    }
    return out
  }

  /// Draws already-sanitised text at (x, y), at most `maxWidth` columns; a text too long ends with
  /// "…" (or "~" when `ascii`) and never splits a character. Returns the columns used.
  /// - Parameter background: a row's role whose background the text sits on (a colored mark on
  ///   a sidebar or selected row); nil for `role`'s own.
  @discardableResult
  public mutating func put(
    _ text: String, x: Int, y: Int, maxWidth: Int? = nil, role: StyleRole, background: StyleRole? = nil,
    ascii: Bool = false
  ) -> Int {
    guard y >= 0, y < height, x < width else { return 0 }
    let limit = min(maxWidth ?? (width - x), width - max(0, x))
    guard limit > 0 else { return 0 }
    let ascii = ascii || asciiOnly
    if let used = putPrintableASCII(text, x: x, y: y, limit: limit, role: role, background: background, ascii: ascii) {
      return used
    }
    let shown = ascii ? Self.asciiOnly(Self.neutralised(text)) : Self.neutralised(text)
    let fitted = DisplayWidth.truncate(shown, to: limit, ellipsis: ascii ? "~" : "…")
    var col = x
    for ch in fitted {
      let w = DisplayWidth.width(of: ch)
      if w == 0 {
        // A lone combining mark or zero-width character: attach it to the previous cell.
        if col > x, col - 1 < width, col - 1 >= 0 {
          var prev = col - 1
          while prev > x && cells[y * width + prev].isContinuation { prev -= 1 }
          cells[y * width + prev].text.append(ch)
        }
        continue
      }
      if col >= 0 { store(Cell(String(ch), width: UInt8(w), role: role, background: background), x: col, y: y) }
      col += w
    }
    return col - x
  }

  /// Draws preview text (already safe: ``StyledLine``'s runs) with its ink at (x, y), clipped at
  /// `maxWidth` columns without an ellipsis (a preview is cut, not abbreviated). Returns the
  /// columns used. `Screen.neutralised` still runs over it: nothing reaches a terminal raw.
  @discardableResult
  public mutating func put(_ text: String, x: Int, y: Int, maxWidth: Int, role: StyleRole, ink: Ink) -> Int {
    guard y >= 0, y < height, x < width, maxWidth > 0 else { return 0 }
    let limit = min(maxWidth, width - max(0, x))
    guard limit > 0 else { return 0 }
    let shown = asciiOnly ? Self.asciiOnly(Self.neutralised(text)) : Self.neutralised(text)
    var col = x
    for ch in shown {
      if ch.isASCII, let b = ch.asciiValue, b >= 0x20, b < 0x7F {
        guard col + 1 <= x + limit else { break }
        if col >= 0 {
          var cell = Cell(storedText: CellText(ascii: b), role: role)
          cell.ink = ink
          store(cell, x: col, y: y)
        }
        col += 1
        continue
      }
      let w = DisplayWidth.width(of: ch)
      if w == 0 {
        if col > x, col - 1 < width {
          var prev = col - 1
          while prev > x && cells[y * width + prev].isContinuation { prev -= 1 }
          cells[y * width + prev].text.append(ch)
        }
        continue
      }
      guard col + w <= x + limit else { break }
      if col >= 0 { store(Cell(String(ch), width: UInt8(w), role: role, ink: ink), x: col, y: y) }
      col += w
    }
    return col - x
  }

  private static let ellipsis = CellText("…")
  private static let asciiEllipsis = CellText(ascii: UInt8(ascii: "~"))

  /// `put` for text of printable ASCII only (most names, every label), nil for any other: there a
  /// byte is a character and a column, and nothing needs escaping, so the text is drawn straight
  /// from its bytes, cut as `DisplayWidth.truncate` would cut it, with no grapheme breaking, width
  /// lookups or a String per cell.
  private mutating func putPrintableASCII(
    _ text: String, x: Int, y: Int, limit: Int, role: StyleRole, background: StyleRole?, ascii: Bool
  ) -> Int? {
    var text = text
    return text.withUTF8 { bytes -> Int? in
      for b in bytes where b < 0x20 || b >= 0x7F { return nil }
      let fits = bytes.count <= limit
      // Too long: as many characters as leave a column for the ellipsis (only the ellipsis in one).
      let shown = fits ? bytes.count : limit - 1
      var col = x
      for b in bytes.prefix(shown) {
        if col >= 0 { store(Cell(storedText: CellText(ascii: b), role: role, background: background), x: col, y: y) }
        col += 1
      }
      if !fits {
        let e = ascii ? Self.asciiEllipsis : Self.ellipsis
        if col >= 0 { store(Cell(storedText: e, role: role, background: background), x: col, y: y) }
        col += 1
      }
      return col - x
    }
  }

  /// The characters, one string per row (continuations skipped), for snapshots.
  public func textLines() -> [String] {
    (0..<height).map { y in
      var s = ""
      for x in 0..<width where !self[x, y].isContinuation { s += self[x, y].text }
      return s
    }
  }

  /// The style layer: for every row, runs of roles as `col-col:role` (`role/background` for a
  /// cell on another role's background), for snapshots.
  public func styleLines() -> [String] {
    func name(_ c: Cell) -> String {
      let base = c.background.map { "\(c.role.rawValue)/\($0.rawValue)" } ?? c.role.rawValue
      guard c.ink != .plain else { return base }
      // Preview content: its token, or that it carries colors of its own.
      return base + "+" + (c.ink.token?.rawValue ?? "ink")
    }
    return (0..<height).map { y in
      var runs: [String] = []
      var start = 0
      var role = width > 0 ? name(self[0, y]) : StyleRole.normal.rawValue
      for x in 0...width {
        let r = x < width ? name(self[x, y]) : nil
        if r != role {
          runs.append("\(start)-\(x - 1):\(role)")
          if let r { role = r }
          start = x
        }
      }
      return runs.joined(separator: " ")
    }
  }
}
