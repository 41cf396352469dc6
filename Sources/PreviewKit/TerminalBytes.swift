import ProviderAPI

/// The one sanitiser every byte a preview shows goes through, file contents and helper output
/// alike: a byte-level state machine that turns a byte stream into safe ``StyledLine``s.
///
/// Why one parser, and why this one: helpers such as `batcat` and `highlight` pass a file's escape
/// sequences through unchanged (OSC 52 writes the clipboard, OSC 0 the title, DCS asks the terminal
/// to answer: preview-pane.md §3), and filters that strip "ANSI" by pattern keep missing C1 codes
/// and DCS/APC bodies (bat #3054, #3725). A state machine in the shape of a terminal's own (the
/// VT500 parser: ground, escape, CSI, string states) sees every sequence the way a terminal would,
/// so nothing can hide in a form the filter does not know. What it keeps and what it shows:
/// - SGR (`CSI … m`) becomes ``Ink`` colors and attributes: the colors a helper or a colored log
///   carries are worth keeping, and they are applied as cell styles, never replayed.
/// - Every other CSI, every OSC/DCS/SOS/PM/APC string and every other escape sequence is dropped
///   whole, whether it starts with ESC or with a C1 introducer (8-bit 0x9B, or UTF-8-encoded
///   U+009B: some terminals obey both). Other C1 controls are shown (`\x85`, `<U+0085>`). A
///   string that never ends is dropped only up to ``Limits/maxSequenceLength`` bytes, so one
///   stray `ESC ]` cannot hide the rest of a file.
/// - C0 controls and DEL are shown as `^X` in ``Ink/escape``; a tab is expanded, a newline ends
///   the line, CR LF is one line end and a lone CR is shown as `^M`.
/// - Bidi controls and invisible characters (``TerminalText/isUnsafe(_:)``: U+202E, U+2066…,
///   U+200B, U+FEFF…) are shown as `<U+202E>`; bytes that are not UTF-8 as `\xNN`.
/// - Lines are cut at ``Limits/maxColumns`` columns (the rest dropped, `…` marks the cut) and the
///   output stops after ``Limits/maxLines`` lines, so no input makes it unbounded.
///
/// Feed it in pieces (`feed(_:token:)` may be called per token of a highlighted line: the state
/// carries over, a UTF-8 sequence or an escape sequence may be split anywhere), then `finish()`.
public struct TerminalBytes: Sendable {
  /// The bounds of one preview's lines.
  public struct Limits: Sendable, Hashable {
    /// Columns between tab stops.
    public var tabWidth: Int
    /// Columns kept of one line; the rest of it is dropped and `…` marks the cut.
    public var maxColumns: Int
    /// Lines kept; input after them is ignored.
    public var maxLines: Int
    /// Bytes an OSC/DCS/SOS/PM/APC string may run before it counts as unterminated and the bytes
    /// after it show again (a CSI has a tenth of this).
    public var maxSequenceLength: Int

    public init(tabWidth: Int = 8, maxColumns: Int = 1024, maxLines: Int = 10_000, maxSequenceLength: Int = 4096) {
      self.tabWidth = max(1, tabWidth)
      self.maxColumns = max(1, maxColumns)
      self.maxLines = max(1, maxLines)
      self.maxSequenceLength = max(16, maxSequenceLength)
    }
  }

  enum State: UInt8 { case ground, escape, escapeIntermediate, csi, csiIgnore, string, stringEscape }

  let limits: Limits
  var out: StyledLineBuilder
  var state = State.ground

  // The ink text gets now: SGR's part and the highlighter's token.
  var foreground = InkColor.none
  var background = InkColor.none
  var attributes: InkAttributes = []
  var token: SyntaxToken?
  var ink = Ink.plain

  /// A CR was seen and the next byte decides whether it is a line end (LF) or shown (`^M`).
  var pendingCR = false

  // A UTF-8 sequence in progress: its bytes, how many continuation bytes it still needs, the range
  // the next one must be in (this rejects overlong forms, surrogates and values past U+10FFFF).
  var utf8Bytes: [UInt8] = []
  var utf8Need = 0
  var utf8Lower: UInt8 = 0x80
  var utf8Upper: UInt8 = 0xBF
  var utf8Scalar: UInt32 = 0

  // The sequence in progress.
  var sequenceLength = 0
  var csiParameters: [UInt8] = []
  var csiIsPrivate = false
  var csiHasIntermediate = false
  var stringIsOSC = false
  var stringPrevious: UInt8 = 0
  var sgrValues: [Int32] = []
  var sgrIsSub: [Bool] = []

  public init(limits: Limits = Limits()) {
    self.limits = limits
    out = StyledLineBuilder(maxColumns: limits.maxColumns, maxLines: limits.maxLines)
    utf8Bytes.reserveCapacity(4)
  }

  /// Sanitises a whole byte stream (a helper's output, a file's text) into lines.
  public static func lines(_ bytes: [UInt8], limits: Limits = Limits()) -> [StyledLine] {
    var parser = TerminalBytes(limits: limits)
    parser.feed(bytes)
    return parser.finish()
  }

  /// Whether ``Limits/maxLines`` lines are made: further input is ignored.
  public var isFull: Bool { out.isFull }
  /// Lines made so far.
  public var lineCount: Int { out.lines.count }
  /// Whether a line was cut at ``Limits/maxColumns``.
  public var didCutLine: Bool { out.didCutLine }
  /// Whether input came after ``Limits/maxLines`` lines and was ignored.
  public var didDropLines: Bool { out.didDropLines }

  /// Feeds bytes; the text among them gets `token` (from a highlighter) besides the SGR state.
  public mutating func feed(_ bytes: [UInt8], token: SyntaxToken? = nil) {
    bytes.withUnsafeBufferPointer { feed($0, token: token) }
  }

  /// Feeds bytes; see ``feed(_:token:)-(([UInt8],_))``.
  public mutating func feed(_ bytes: ArraySlice<UInt8>, token: SyntaxToken? = nil) {
    bytes.withUnsafeBufferPointer { feed($0, token: token) }
  }

  /// Feeds the UTF-8 of a string (text Folio writes itself: indentation, a JSON `": "`). It is
  /// sanitised like any other input.
  public mutating func feed(_ text: String, token: SyntaxToken? = nil) {
    var text = text
    text.withUTF8 { feed($0, token: token) }
  }

  /// Feeds bytes; the text among them gets `token` besides the SGR state.
  public mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, token: SyntaxToken? = nil) {
    if token != self.token {
      self.token = token
      updateInk()
    }
    let n = bytes.count
    var i = 0
    while i < n {
      if out.isFull {
        out.noteDroppedInput()
        return
      }
      let b = bytes[i]
      // The common case, printable ASCII in the ground state, goes in runs.
      if b >= 0x20 && b < 0x7F && state == .ground && utf8Need == 0 && !pendingCR {
        var j = i + 1
        while j < n {
          let c = bytes[j]
          if c < 0x20 || c >= 0x7F { break }
          j += 1
        }
        out.appendASCII(UnsafeBufferPointer(rebasing: bytes[i..<j]), ink: ink)
        i = j
        continue
      }
      step(b)
      i += 1
    }
  }

  /// Ends the input: a sequence cut in the middle is dropped, a UTF-8 sequence cut in the middle
  /// is shown as `\xNN`, a CR at the very end as `^M`; returns the lines.
  public mutating func finish() -> [StyledLine] {
    if !out.isFull {
      flushUTF8AsInvalid()
      if pendingCR {
        pendingCR = false
        showControl(0x0D)
      }
    }
    state = .ground
    return out.finish()
  }

  /// Notes that the caller stopped feeding at the line cap with input left (so ``didDropLines``
  /// tells the header to say the preview is partial).
  mutating func noteDroppedInput() { out.noteDroppedInput() }

  /// Ends the line here whatever the input was in the middle of: for text Folio lays out itself
  /// (a JSON pretty-printer's line breaks), where a sequence must not swallow the layout.
  mutating func lineBreak() {
    guard !out.isFull else { return }
    flushUTF8AsInvalid()
    state = .ground
    control(0x0A)
  }

  // MARK: - The states

  mutating func step(_ b: UInt8) {
    switch state {
    case .ground: ground(b)
    case .escape: escape(b)
    case .escapeIntermediate: escapeIntermediate(b)
    case .csi: csi(b)
    case .csiIgnore: csiIgnore(b)
    case .string: string(b)
    case .stringEscape: stringEscape(b)
    }
  }

  mutating func ground(_ b: UInt8) {
    if utf8Need > 0 { return continueUTF8(b) }
    switch b {
    case 0x20..<0x7F:
      resolveCRAsShown()
      out.appendByte(b, ink: ink)
    case 0x1B:
      state = .escape
    case 0x00..<0x20, 0x7F:
      control(b)
    case 0x80...0x9F:
      c1(b, raw: true)
    case 0xC2...0xF4:
      resolveCRAsShown()
      startUTF8(b)
    default:
      resolveCRAsShown()
      showInvalid(b)
    }
  }

  /// A C0 control or DEL, in ground or executed in the middle of an escape sequence (as a terminal
  /// does).
  private mutating func control(_ b: UInt8) {
    if pendingCR {
      pendingCR = false
      if b == 0x0A { return out.endLine() }
      showControl(0x0D)
    }
    switch b {
    case 0x0A: out.endLine()
    case 0x0D: pendingCR = true
    case 0x09:
      let width = limits.tabWidth - out.column % limits.tabWidth
      out.appendSpaces(width, ink: ink)
    default: showControl(b)
    }
  }

  /// A C1 control, 8-bit (`raw`) or decoded from UTF-8: the CSI and string introducers start
  /// their sequence, which is dropped whole; any other is never obeyed, only shown (`\x85` for a
  /// raw byte, `<U+0085>` for a character), since a lone one is content, not a sequence.
  mutating func c1(_ b: UInt8, raw: Bool) {
    switch b {
    case 0x9B: enterCSI()
    case 0x9D: enterString(osc: true)
    case 0x90, 0x98, 0x9E, 0x9F: enterString(osc: false)
    default:
      resolveCRAsShown()
      if raw { showInvalid(b) } else { showCodePoint(UInt32(b)) }
    }
  }

  private mutating func escape(_ b: UInt8) {
    switch b {
    case 0x5B: enterCSI()
    case 0x5D: enterString(osc: true)
    case 0x50, 0x58, 0x5E, 0x5F: enterString(osc: false)
    case 0x20...0x2F:
      state = .escapeIntermediate
      sequenceLength = 0
    case 0x30...0x7E, 0x18, 0x1A: state = .ground
    case 0x1B, 0x7F: break
    case 0x00..<0x20: control(b)
    default:
      state = .ground
      ground(b)
    }
  }

  private mutating func escapeIntermediate(_ b: UInt8) {
    switch b {
    case 0x20...0x2F:
      sequenceLength += 1
      if sequenceLength > 16 { state = .ground }
    case 0x30...0x7E, 0x18, 0x1A: state = .ground
    case 0x1B: state = .escape
    case 0x7F: break
    case 0x00..<0x20: control(b)
    default:
      state = .ground
      ground(b)
    }
  }

  private mutating func enterCSI() {
    state = .csi
    sequenceLength = 0
    csiParameters.removeAll(keepingCapacity: true)
    csiIsPrivate = false
    csiHasIntermediate = false
  }

  private mutating func csi(_ b: UInt8) {
    sequenceLength += 1
    if sequenceLength > limits.maxSequenceLength / 10 {
      state = .ground
      return ground(b)
    }
    switch b {
    case 0x30...0x3F:
      if csiHasIntermediate {
        state = .csiIgnore
      } else if b >= 0x3C {
        // A private marker (`<=>?`) is only one at the start; anywhere else the CSI is malformed.
        if csiParameters.isEmpty && !csiIsPrivate { csiIsPrivate = true } else { state = .csiIgnore }
      } else if csiParameters.count < 64 {
        csiParameters.append(b)
      } else {
        state = .csiIgnore
      }
    case 0x20...0x2F: csiHasIntermediate = true
    case 0x40...0x7E:
      if b == 0x6D && !csiIsPrivate && !csiHasIntermediate { applySGR() }
      state = .ground
    default: sequenceInterrupted(b)
    }
  }

  private mutating func csiIgnore(_ b: UInt8) {
    sequenceLength += 1
    if sequenceLength > limits.maxSequenceLength / 10 {
      state = .ground
      return ground(b)
    }
    switch b {
    case 0x20...0x3F: break
    case 0x40...0x7E: state = .ground
    default: sequenceInterrupted(b)
    }
  }

  /// A byte that does not belong in a CSI: ESC starts a new sequence, CAN and SUB cancel, other C0
  /// are executed, anything else ends the sequence and is shown.
  private mutating func sequenceInterrupted(_ b: UInt8) {
    switch b {
    case 0x1B: state = .escape
    case 0x18, 0x1A: state = .ground
    case 0x7F: break
    case 0x00..<0x20: control(b)
    default:
      state = .ground
      ground(b)
    }
  }

  private mutating func enterString(osc: Bool) {
    state = .string
    stringIsOSC = osc
    stringPrevious = 0
    sequenceLength = 0
  }

  private mutating func string(_ b: UInt8) {
    sequenceLength += 1
    if sequenceLength > limits.maxSequenceLength {
      // Unterminated: give the input back to the ground state so the rest of the file shows.
      state = .ground
      return ground(b)
    }
    switch b {
    case 0x07 where stringIsOSC: state = .ground
    case 0x1B: state = .stringEscape
    case 0x18, 0x1A: state = .ground
    // ST as an 8-bit byte, or UTF-8-encoded (C2 9C); not the continuation byte of another character.
    case 0x9C where stringPrevious == 0xC2 || stringPrevious < 0x80: state = .ground
    default: break
    }
    stringPrevious = b
  }

  private mutating func stringEscape(_ b: UInt8) {
    if b == 0x5C {
      state = .ground
    } else {
      // Any other escape ends the string and starts a sequence of its own.
      state = .escape
      escape(b)
    }
  }
}
