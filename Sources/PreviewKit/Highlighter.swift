/// Folio's own syntax highlighter: a small hand-written lexer per language family, run line by
/// line, that marks ranges of a line with ``SyntaxToken``s (the theme colours them).
///
/// Why hand-written (docs/DECISIONS.md): no Swift highlighting library resolves on this machine,
/// and a preview needs far less than an editor: keywords, strings, comments, numbers, a few
/// per-format rules. Why line by line with a small carried state (an open block comment, a
/// multi-line string, a here-document, a Markdown fence): a preview sees only the first 64 KiB of
/// a file, possibly cut in the middle, and must never need the whole file. Lines longer than
/// ``maximumLineLength`` bytes are left plain, yazi's rule: a minified file gains nothing from
/// colour and would cost the most.
///
/// It sees raw bytes (before the sanitiser): non-ASCII bytes count as letters, so a UTF-8
/// character is never split between two ranges, and control bytes are just "other" bytes; the
/// ranges then go through ``TerminalBytes`` with their tokens.
public struct Highlighter: Sendable {
  /// A range of a line's bytes and what it is. Bytes outside every span are plain.
  public struct Span: Sendable, Hashable {
    public var start: Int
    public var end: Int
    public var token: SyntaxToken
    public init(_ start: Int, _ end: Int, _ token: SyntaxToken) {
      self.start = start
      self.end = end
      self.token = token
    }
  }

  /// Lines longer than this (in bytes) are not highlighted.
  public static let maximumLineLength = 5000

  public let language: Language
  let rules: CodeRules
  var state = State()

  /// What carries from one line to the next.
  struct State: Sendable, Hashable {
    enum Mode: UInt8, Sendable { case normal, blockComment, quote, heredoc, fence, yamlBlock, tag, markupComment }
    var mode = Mode.normal
    /// The nesting of block comments (Swift and Rust nest them).
    var depth = 0
    /// CSS: braces open; a diff: old and new lines left in the hunk.
    var braces = 0
    var remainingOld = 0
    var remainingNew = 0
    /// The open quote's index in the rules.
    var quote = 0
    /// A here-document's terminator; a Markdown fence.
    var delimiter: [UInt8] = []
    var stripTabs = false
    /// YAML: the indentation a block scalar's lines go past.
    var indent = 0
    /// Dockerfile: the line before ended with `\`.
    var continued = false
  }

  public init(language: Language) {
    self.language = language
    rules = CodeRules.forLanguage(language)
  }

  /// The spans of the next line of the file (without its newline).
  public mutating func spans(of line: [UInt8]) -> [Span] {
    var spans: [Span] = []
    line.withUnsafeBufferPointer { highlight($0, into: &spans) }
    return spans
  }

  /// Appends the spans of the next line (without its newline) to `spans`, in order.
  mutating func highlight(_ p: UnsafeBufferPointer<UInt8>, into spans: inout [Span]) {
    guard p.count <= Self.maximumLineLength else { return }
    if state.mode == .heredoc { return hereDocumentLine(p, into: &spans) }
    switch language {
    case .markdown: markdownLine(p, into: &spans)
    case .diff: diffLine(p, into: &spans)
    case .yaml: yamlLine(p, into: &spans)
    case .toml: tomlLine(p, into: &spans)
    case .makefile: makefileLine(p, into: &spans)
    case .dockerfile: dockerfileLine(p, into: &spans)
    case .html: markupLine(p, into: &spans)
    default: lexCode(p, from: 0, to: p.count, into: &spans)
    }
  }

  /// A here-document's body is a string up to its terminator line.
  private mutating func hereDocumentLine(_ p: UnsafeBufferPointer<UInt8>, into spans: inout [Span]) {
    var k = 0
    if state.stripTabs { while k < p.count && p[k] == 0x09 { k += 1 } }
    var end = p.count
    while end > k && (p[end - 1] == 0x0D || p[end - 1] == 0x20) { end -= 1 }
    if end - k == state.delimiter.count && state.delimiter.elementsEqual(p[k..<end]) {
      state.mode = .normal
      state.delimiter = []
    }
    if !p.isEmpty { spans.append(Span(0, p.count, .string)) }
  }
}

extension UnsafeBufferPointer where Element == UInt8 {
  /// Whether `marker` is at `i` (and fits before `end`).
  @inline(__always)
  func has(_ marker: [UInt8], at i: Int, end: Int) -> Bool {
    let m = marker.count
    guard m > 0, i + m <= end else { return false }
    for k in 0..<m where self[i + k] != marker[k] { return false }
    return true
  }

  /// The first index at or after `i` that is not a space or a tab.
  @inline(__always)
  func skipSpaces(from i: Int, end: Int) -> Int {
    var i = i
    while i < end && (self[i] == 0x20 || self[i] == 0x09) { i += 1 }
    return i
  }
}
