/// Markdown by its line starts (headings, fences, quotes, list markers, rules) and a few inline
/// forms (code spans, strong emphasis, links). A fenced block is carried to its closing fence and
/// shown as a string; its language is not highlighted inside (a glance does not need it).
extension Highlighter {
  mutating func markdownLine(_ p: UnsafeBufferPointer<UInt8>, into spans: inout [Span]) {
    let n = p.count
    var k = 0
    while k < n && k < 3 && p[k] == 0x20 { k += 1 }
    if state.mode == .fence {
      if p.has(state.delimiter, at: k, end: n) {
        state.mode = .normal
        spans.append(Span(k, n, .punctuation))
      } else if n > 0 {
        spans.append(Span(0, n, .string))
      }
      return
    }
    guard k < n else { return }
    let b = p[k]
    if (b == 0x60 || b == 0x7E) && p.has([b, b, b], at: k, end: n) {
      state.mode = .fence
      state.delimiter = [b, b, b]
      var j = k
      while j < n && p[j] == b { j += 1 }
      spans.append(Span(k, j, .punctuation))
      let info = p.skipSpaces(from: j, end: n)
      if info < n { spans.append(Span(info, n, .keyword)) }
      return
    }
    if b == 0x23 {
      var j = k
      while j < n && p[j] == 0x23 { j += 1 }
      if j - k <= 6 && (j == n || p[j] == 0x20 || p[j] == 0x09) { return spans.append(Span(k, n, .heading)) }
    }
    if b == 0x3E { return spans.append(Span(k, n, .comment)) }
    if isRule(p, from: k) { return spans.append(Span(k, n, b == 0x3D ? .heading : .punctuation)) }
    // A list item's marker: `-`, `*`, `+` or `1.` / `1)` and a space.
    var j = k
    if (b == 0x2D || b == 0x2A || b == 0x2B) && k + 1 < n && p[k + 1] == 0x20 {
      j = k + 1
    } else {
      while j < n && p[j] >= 0x30 && p[j] <= 0x39 { j += 1 }
      if j > k && j < n && (p[j] == 0x2E || p[j] == 0x29) && (j + 1 == n || p[j + 1] == 0x20) { j += 1 } else { j = k }
    }
    if j > k { spans.append(Span(k, j, .punctuation)) }
    markdownInline(p, from: j, into: &spans)
  }

  /// `---`, `***`, `___` (a thematic break) or `===` (a setext heading's underline).
  private func isRule(_ p: UnsafeBufferPointer<UInt8>, from k: Int) -> Bool {
    let b = p[k]
    guard b == 0x2D || b == 0x2A || b == 0x5F || b == 0x3D else { return false }
    var count = 0
    for j in k..<p.count {
      if p[j] == b {
        count += 1
      } else if p[j] != 0x20 && p[j] != 0x09 && p[j] != 0x0D {
        return false
      }
    }
    return count >= 3
  }

  /// `` `code` ``, `**strong**`, `[text](url)`, `<https://…>`.
  ///
  /// Each search for a closer remembers what it learnt, so a line of 5000 unmatched `[` or `` ` ``
  /// costs one pass, not 5000: a failed search for a closer means no later opener of that kind
  /// can find one either.
  private func markdownInline(_ p: UnsafeBufferPointer<UInt8>, from start: Int, into spans: inout [Span]) {
    let n = p.count
    var i = start
    // Backtick runs no later than this long can close (a failed search for N backticks means no
    // run of N or more follows); the next `]`, the next `>` or space, the next `://`; whether a
    // `**` or `__` can still close.
    var longestFence = Int.max
    var nextBracket = -1
    var nextAngleStop = -1
    var nextScheme = -1
    var strongCanClose: (star: Bool, underscore: Bool) = (true, true)
    while i < n {
      let b = p[i]
      switch b {
      case 0x5C:
        i += 2
      case 0x60:
        var r = i
        while r < n && p[r] == 0x60 { r += 1 }
        let fence = Array(p[i..<r])
        var j = r
        if fence.count <= longestFence {
          while j < n && !p.has(fence, at: j, end: n) { j += 1 }
        } else {
          j = n
        }
        if j < n {
          spans.append(Span(i, j + fence.count, .string))
          i = j + fence.count
        } else {
          longestFence = min(longestFence, fence.count - 1)
          i = r
        }
      case 0x2A, 0x5F:
        guard i + 1 < n && p[i + 1] == b, b == 0x2A ? strongCanClose.star : strongCanClose.underscore else {
          i += 1
          continue
        }
        var j = i + 2
        while j + 1 < n && !(p[j] == b && p[j + 1] == b) { j += 1 }
        if j + 1 < n && j > i + 2 {
          spans.append(Span(i, j + 2, .keyword))
          i = j + 2
        } else {
          if j + 1 >= n {
            if b == 0x2A { strongCanClose.star = false } else { strongCanClose.underscore = false }
          }
          i += 2
        }
      case 0x5B:
        if nextBracket <= i {
          nextBracket = i + 1
          while nextBracket < n && p[nextBracket] != 0x5D { nextBracket += 1 }
        }
        let j = nextBracket
        if j + 1 < n && p[j + 1] == 0x28 {
          var k = j + 2
          while k < n && p[k] != 0x29 { k += 1 }
          spans.append(Span(i, j + 1, .function))
          spans.append(Span(j + 1, min(k + 1, n), .string))
          i = k + 1
        } else {
          i += 1
        }
      case 0x3C:
        if nextAngleStop <= i {
          nextAngleStop = i + 1
          while nextAngleStop < n && p[nextAngleStop] != 0x3E && p[nextAngleStop] != 0x20 { nextAngleStop += 1 }
        }
        if nextScheme < i {
          nextScheme = i
          while nextScheme < n && !p.has(Self.scheme, at: nextScheme, end: n) { nextScheme += 1 }
        }
        let j = nextAngleStop
        if j < n && p[j] == 0x3E && nextScheme + Self.scheme.count <= j {
          spans.append(Span(i, j + 1, .string))
          i = j + 1
        } else {
          i += 1
        }
      default:
        i += 1
      }
    }
  }

  static let scheme = Array("://".utf8)
}
