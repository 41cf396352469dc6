import CNCursesW

/// A run of printable ASCII cells of one row, side by side and in one appearance, copied into the
/// window with one `mvwadd_wchnstr`.
///
/// Drawing cell by cell cost a `setcchar` and an `mvwadd_wch` each, ~480 instructions, and a
/// launch's first frame draws all 10,000 cells of a 200x50 terminal: ~4.9 M instructions on the
/// way to the first screen (docs/BENCHMARKS.md, issue 13, fourth pass). Here `setcchar` runs once
/// per run, each cell is that complex character with its byte in place, and `wadd_wchnstr` copies
/// the array into the window's line as `wadd_wch` would (the window's background rendition, the
/// orphaned half of a wide character it overwrites repaired), without the per-character cursor
/// moves, control-character handling and wrapping a printable ASCII byte never needs.
///
/// The cells live in one buffer the terminal keeps for its lifetime (``reserve(_:)`` grows it,
/// ``deallocate()`` frees it): the run is copied in and out of the terminal around each frame, and
/// an array there would be copied on its first write.
struct ASCIIRun {
  private var cells: UnsafeMutablePointer<cchar_t>?
  private var capacity = 0
  private var count = 0
  private var template = cchar_t()
  private var appearance = RoleAppearance(attributes: 0, pair: 0)
  private var x = 0

  /// Room for a run of `columns` cells.
  mutating func reserve(_ columns: Int) {
    guard capacity < columns else { return }
    let grown = UnsafeMutablePointer<cchar_t>.allocate(capacity: columns)
    if let cells {
      grown.update(from: cells, count: count)
      cells.deallocate()
    }
    cells = grown
    capacity = columns
  }

  mutating func deallocate() {
    cells?.deallocate()
    cells = nil
    capacity = 0
    count = 0
  }

  /// Whether a cell at `x` in `appearance` extends the run (an empty run extends nothing).
  func continues(at x: Int, with appearance: RoleAppearance) -> Bool {
    count > 0 && x == self.x + count && appearance == self.appearance
  }

  /// Begins an empty run at `x`; the caller has flushed the last one.
  mutating func start(at x: Int, with appearance: RoleAppearance) {
    self.x = x
    self.appearance = appearance
    var pair = appearance.pair
    var chars: (wchar_t, wchar_t) = (0x20, 0)
    var cc = cchar_t()
    withUnsafePointer(to: &chars) {
      $0.withMemoryRebound(to: wchar_t.self, capacity: 2) { _ = setcchar(&cc, $0, appearance.attributes, 0, &pair) }
    }
    template = cc
  }

  /// Adds a printable ASCII byte (0x20–0x7E) at the run's end; the run stays within the
  /// reserved columns (one row).
  mutating func append(_ byte: UInt8) {
    guard let cells, count < capacity else { return }
    var cc = template
    cc.chars.0 = wchar_t(byte)
    (cells + count).initialize(to: cc)
    count += 1
  }

  /// Copies the run into row `y` of `window` and empties it.
  mutating func flush(to window: UnsafeMutablePointer<WINDOW>, y: Int) {
    guard count > 0, let cells else { return }
    _ = mvwadd_wchnstr(window, Int32(y), Int32(x), cells, Int32(count))
    count = 0
  }
}
