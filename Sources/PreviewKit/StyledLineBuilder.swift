/// The output half of ``TerminalBytes``: collects text that is already known to be safe into
/// ``StyledLine``s, merging neighbouring text of the same ink into one run, counting columns, and
/// cutting lines and the line count at their limits.
///
/// Internal on purpose: only the sanitiser may call it, so no producer can put unchecked text in a
/// line. A line is kept as UTF-8 bytes in one reused buffer, and each run becomes one `String` when
/// it closes (short runs are stored inline by `String`, so most runs cost no allocation).
struct StyledLineBuilder {
  let maxColumns: Int
  let maxLines: Int

  private(set) var lines: [StyledLine] = []
  /// The current line's runs so far (reused from line to line; each line gets an exact copy).
  private var runs: [StyledLine.Run] = []
  /// The current line's bytes (reused); the open run is `bytes[runStart...]`.
  private var bytes: [UInt8] = []
  private var runStart = 0
  private var runInk = Ink.plain
  /// Columns used on the current line.
  private(set) var column = 0
  /// The current line met `maxColumns`: the rest of it is dropped and a mark ends it.
  private(set) var isCut = false
  /// `maxLines` lines are made: everything after is ignored.
  private(set) var isFull = false
  /// Whether some line was cut, or some input dropped at the line cap.
  private(set) var didCutLine = false
  private(set) var didDropLines = false
  /// Whether the current line has anything in it (so a final line without a newline is kept).
  private var lineHasContent = false

  /// What ends a cut line.
  static let cutMark: [UInt8] = Array("…".utf8)

  init(maxColumns: Int, maxLines: Int) {
    self.maxColumns = max(1, maxColumns)
    self.maxLines = max(1, maxLines)
    bytes.reserveCapacity(256)
    runs.reserveCapacity(32)
  }

  /// Appends safe ASCII bytes (each one column wide) in `ink`.
  @inline(__always)
  mutating func appendASCII(_ bytes: UnsafeBufferPointer<UInt8>, ink: Ink) {
    guard !isCut, !bytes.isEmpty else { return }
    var count = bytes.count
    if column + count > maxColumns {
      count = maxColumns - column
      cut()
    }
    guard count > 0 else { return }
    switchInk(to: ink)
    self.bytes.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[0..<count]))
    column += count
    lineHasContent = true
  }

  /// Appends one safe ASCII byte in `ink`.
  @inline(__always)
  mutating func appendByte(_ byte: UInt8, ink: Ink) {
    guard !isCut else { return }
    guard column < maxColumns else { return cut() }
    switchInk(to: ink)
    bytes.append(byte)
    column += 1
    lineHasContent = true
  }

  /// Appends `count` spaces (a tab's expansion) in `ink`.
  mutating func appendSpaces(_ count: Int, ink: Ink) {
    guard !isCut else { return }
    var count = count
    if column + count > maxColumns {
      count = maxColumns - column
      cut()
    }
    guard count > 0 else { return }
    switchInk(to: ink)
    for _ in 0..<count { bytes.append(0x20) }
    column += count
    lineHasContent = true
  }

  /// Appends the UTF-8 bytes of one safe, printable scalar, `width` columns wide.
  @inline(__always)
  mutating func appendScalar(_ bytes: UnsafeBufferPointer<UInt8>, width: Int, ink: Ink) {
    guard !isCut else { return }
    guard column + width <= maxColumns else { return cut() }
    switchInk(to: ink)
    self.bytes.append(contentsOf: bytes)
    column += width
    lineHasContent = true
  }

  /// Appends a visible escape (`^[`, `\xFF`, `<U+202E>`): ASCII text in ``Ink/escape``.
  mutating func appendEscape(_ text: some Collection<UInt8>) {
    guard !isCut else { return }
    guard column + text.count <= maxColumns else { return cut() }
    switchInk(to: .escape)
    bytes.append(contentsOf: text)
    column += text.count
    lineHasContent = true
  }

  /// Ends the current line (a newline in the input).
  mutating func endLine() {
    guard !isFull else { return }
    closeRun()
    if isCut { runs.append(StyledLine.Run(String(decoding: Self.cutMark, as: UTF8.self), .escape)) }
    lines.append(StyledLine(runs.isEmpty ? [] : Array(runs)))
    runs.removeAll(keepingCapacity: true)
    bytes.removeAll(keepingCapacity: true)
    runStart = 0
    column = 0
    isCut = false
    lineHasContent = false
    if lines.count >= maxLines { isFull = true }
  }

  /// Notes that input arrived after the line cap (so a caller can say the preview is partial).
  mutating func noteDroppedInput() { didDropLines = true }

  /// The lines made, the last one included when it has no newline.
  mutating func finish() -> [StyledLine] {
    if lineHasContent || isCut || !runs.isEmpty || bytes.count > runStart { endLine() }
    return lines
  }

  private mutating func cut() {
    isCut = true
    didCutLine = true
  }

  @inline(__always)
  private mutating func switchInk(to ink: Ink) {
    if ink != runInk {
      closeRun()
      runInk = ink
    }
  }

  private mutating func closeRun() {
    guard bytes.count > runStart else { return }
    let text = bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[runStart...]), as: UTF8.self) }
    runs.append(StyledLine.Run(text, runInk))
    runStart = bytes.count
  }
}
