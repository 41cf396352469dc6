/// Pretty-prints JSON for the preview: two spaces per level, keys, strings, numbers and
/// `true`/`false`/`null` as tokens, so minified one-line JSON comes out readable.
///
/// Streaming and tolerant of a cut end: it indents by bracket depth as it goes and never builds a
/// tree, so the first 64 KiB of a 15 MB one-line file (preview-pane.md §2: `jq` takes ~0.5 s on
/// it, because it must parse the whole document) is printed from the prefix alone. It is strict
/// about everything else: on anything that is not JSON (a comment, a trailing comma, a bare word)
/// it gives up, and the caller shows the file as highlighted text instead, so a file is never
/// shown re-indented into something it does not say. Strings are shown as written, escapes and
/// all (never decoded), and everything goes through ``TerminalBytes``.
struct JSONPrettyPrinter {
  /// Indentation stops growing past this depth (F08 in test-plan.md: 10⁵ levels of nesting).
  static let maximumIndentDepth = 32

  private var out: TerminalBytes
  private var stack: [UInt8] = []
  /// In an object, a key (or the object's end) comes next.
  private var expectKey = false
  /// A key was just written: a colon comes next.
  private var expectColon = false
  /// A value was just completed: a comma or a close comes next (or a new document at the top).
  private var afterValue = false
  private var lineOpen = false

  private static let spaces = [UInt8](repeating: 0x20, count: maximumIndentDepth * 2)

  /// The printed lines, or nil when `bytes` is not JSON. `isPrefix`: the bytes are the start of a
  /// longer file, so a document cut at the end is fine.
  static func print(_ bytes: UnsafeBufferPointer<UInt8>, isPrefix: Bool, limits: TerminalBytes.Limits) -> TerminalBytes? {
    var printer = JSONPrettyPrinter(out: TerminalBytes(limits: limits))
    guard printer.run(bytes, isPrefix: isPrefix) else { return nil }
    return printer.out
  }

  private mutating func run(_ p: UnsafeBufferPointer<UInt8>, isPrefix: Bool) -> Bool {
    let n = p.count
    var i = 0
    var sawValue = false
    while i < n {
      if out.isFull {
        out.noteDroppedInput()
        return true
      }
      let b = p[i]
      switch b {
      case 0x20, 0x09, 0x0A, 0x0D:
        i += 1
      case 0x7B, 0x5B:
        guard beginValue() else { return false }
        emit(p, i, i + 1, .punctuation)
        // An empty container stays on its line: `{}`, `[]`.
        let k = skipWhitespace(p, from: i + 1)
        if k < n && p[k] == b + 2 {
          emit(p, k, k + 1, .punctuation)
          afterValue = true
          i = k + 1
        } else {
          stack.append(b)
          expectKey = b == 0x7B
          afterValue = false
          newline()
          i += 1
        }
        sawValue = true
      case 0x7D, 0x5D:
        guard let open = stack.last, open + 2 == b, afterValue, !expectColon else { return false }
        stack.removeLast()
        newline()
        emit(p, i, i + 1, .punctuation)
        afterValue = true
        expectKey = false
        i += 1
      case 0x2C:
        guard afterValue, !stack.isEmpty else { return false }
        emit(p, i, i + 1, .punctuation)
        newline()
        afterValue = false
        expectKey = stack.last == 0x7B
        i += 1
      case 0x3A:
        guard expectColon else { return false }
        emit(p, i, i + 1, .punctuation)
        out.feed(" ")
        expectColon = false
        i += 1
      case 0x22:
        var j = i + 1
        while j < n && p[j] != 0x22 {
          if p[j] == 0x0A { return false }
          j += p[j] == 0x5C ? 2 : 1
        }
        if j >= n && !isPrefix { return false }
        let end = min(j + 1, n)
        if expectKey {
          guard !afterValue else { return false }
          indentIfNeeded()
          emit(p, i, end, .key)
          expectKey = false
          expectColon = true
        } else {
          guard beginValue() else { return false }
          emit(p, i, end, .string)
          afterValue = true
        }
        sawValue = true
        i = end
      case 0x2D, 0x30...0x39:
        var j = i + 1
        while j < n && ((p[j] >= 0x30 && p[j] <= 0x39) || p[j] == 0x2E || p[j] | 0x20 == 0x65 || p[j] == 0x2B || p[j] == 0x2D) {
          j += 1
        }
        guard beginValue() else { return false }
        emit(p, i, j, .number)
        afterValue = true
        sawValue = true
        i = j
      case 0x74, 0x66, 0x6E:
        let word = b == 0x74 ? Self.trueWord : b == 0x66 ? Self.falseWord : Self.nullWord
        let available = min(word.count, n - i)
        guard word[0..<available].elementsEqual(p[i..<(i + available)]) else { return false }
        guard available == word.count || isPrefix else { return false }
        guard beginValue() else { return false }
        emit(p, i, i + available, .constant)
        afterValue = true
        sawValue = true
        i += available
      default:
        return false
      }
    }
    // A whole file must end with its documents closed; a prefix may stop anywhere.
    return sawValue && (isPrefix || (stack.isEmpty && afterValue))
  }

  static let trueWord = Array("true".utf8)
  static let falseWord = Array("false".utf8)
  static let nullWord = Array("null".utf8)

  /// A value may start here: in an array, after `[` or `,`; in an object, after a key's colon; at
  /// the top, first or after a whole document (JSON Lines).
  private mutating func beginValue() -> Bool {
    if expectKey || expectColon { return false }
    if afterValue {
      guard stack.isEmpty else { return false }
      newline()
      afterValue = false
    }
    indentIfNeeded()
    return true
  }

  private func skipWhitespace(_ p: UnsafeBufferPointer<UInt8>, from i: Int) -> Int {
    var k = i
    while k < p.count && (p[k] == 0x20 || p[k] == 0x09 || p[k] == 0x0A || p[k] == 0x0D) { k += 1 }
    return k
  }

  private mutating func emit(_ p: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ token: SyntaxToken) {
    indentIfNeeded()
    out.feed(UnsafeBufferPointer(rebasing: p[start..<end]), token: token)
    lineOpen = true
  }

  private mutating func indentIfNeeded() {
    guard !lineOpen else { return }
    let width = min(stack.count, Self.maximumIndentDepth) * 2
    if width > 0 { Self.spaces.withUnsafeBufferPointer { out.feed(UnsafeBufferPointer(rebasing: $0[0..<width])) } }
    lineOpen = true
  }

  private mutating func newline() {
    out.lineBreak()
    lineOpen = false
  }
}
