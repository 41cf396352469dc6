/// The one code lexer, driven by ``CodeRules``: comments, quotes, numbers, words, sigils,
/// operators and punctuation, with an open block comment or string carried to the next line.
extension Highlighter {
  /// Lexes `p[from..<end]` with the language's rules.
  mutating func lexCode(_ p: UnsafeBufferPointer<UInt8>, from: Int, to end: Int, into spans: inout [Span]) {
    lexCode(p, from: from, to: end, rules: rules, into: &spans)
  }

  /// Lexes `p[from..<end]` with `rules`, continuing an open block comment or string.
  mutating func lexCode(
    _ p: UnsafeBufferPointer<UInt8>, from: Int, to end: Int, rules: CodeRules, into spans: inout [Span]
  ) {
    var i = from
    if state.mode == .blockComment {
      i = blockComment(p, spanStart: i, from: i, end, rules, &spans)
      if state.mode == .blockComment { return }
    } else if state.mode == .quote {
      guard state.quote < rules.quotes.count else {
        state.mode = .normal
        return
      }
      i = quote(p, spanStart: i, from: i, end, rules.quotes[state.quote], &spans)
      if state.mode == .quote { return }
    }
    let classes = rules.classes
    var follow = KeywordTable.Follow.none
    var hereDocument: (delimiter: [UInt8], stripTabs: Bool)?

    while i < end {
      let b = p[i]
      let c = classes[Int(b)]
      if c & CodeRules.Class.space != 0 {
        i += 1
        continue
      }

      if c & CodeRules.Class.opener != 0 {
        if startsLineComment(p, at: i, from: from, end, rules) {
          spans.append(Span(i, end, .comment))
          break
        }
        if p.has(rules.blockOpen, at: i, end: end) && (!rules.blockCommentAtLineStart || i == 0) {
          state.mode = .blockComment
          state.depth = 1
          i = blockComment(p, spanStart: i, from: i + rules.blockOpen.count, end, rules, &spans)
          continue
        }
        if rules.charactersAndLifetimes && b == 0x27 {
          i = characterOrLifetime(p, at: i, end, classes, &spans)
          continue
        }
        if let index = rules.quotes.firstIndex(where: { p.has($0.open, at: i, end: end) }) {
          let q = rules.quotes[index]
          state.quote = index
          let start = spans.count
          i = quote(p, spanStart: i, from: i + q.open.count, end, q, &spans)
          if rules.stringBeforeColonIsKey && state.mode == .normal {
            let k = p.skipSpaces(from: i, end: end)
            if k < end && p[k] == 0x3A && start < spans.count { spans[start].token = .key }
          }
          continue
        }
      }

      if c & CodeRules.Class.digit != 0 || (b == 0x2E && i + 1 < end && classes[Int(p[i + 1])] & CodeRules.Class.digit != 0) {
        i = number(p, at: i, end, rules, classes, &spans)
        follow = .none
        continue
      }

      if c & CodeRules.Class.identifierStart != 0 {
        i = word(p, at: i, end, rules, classes, &follow, &spans)
        continue
      }

      if c & CodeRules.Class.sigil != 0, let token = rules.sigils[b] {
        let j = sigil(p, at: i, end, rules, classes)
        if j > i + 1 {
          spans.append(Span(i, j, token))
          i = j
          if rules.preprocessor && b == 0x23 { i = includePath(p, from: i, end, &spans) }
          continue
        }
      }

      if rules.heredocs && b == 0x3C, let (j, delimiter, strip) = hereDocumentStart(p, at: i, end, classes) {
        spans.append(Span(i, j, .string))
        hereDocument = (delimiter, strip)
        i = j
        continue
      }

      if c & CodeRules.Class.operator != 0 {
        var j = i + 1
        while j < end && classes[Int(p[j])] & CodeRules.Class.operator != 0
          && !(classes[Int(p[j])] & CodeRules.Class.opener != 0 && startsComment(p, at: j, from: from, end, rules))
        {
          j += 1
        }
        spans.append(Span(i, j, .operator))
        follow = .none
        i = j
        continue
      }

      if c & CodeRules.Class.punctuation != 0 {
        if rules.css {
          if b == 0x7B { state.braces += 1 }
          if b == 0x7D { state.braces = max(0, state.braces - 1) }
        }
        spans.append(Span(i, i + 1, .punctuation))
        follow = .none
        i += 1
        continue
      }
      i += 1
    }

    if let hereDocument {
      state.mode = .heredoc
      state.delimiter = hereDocument.delimiter
      state.stripTabs = hereDocument.stripTabs
    }
  }

  // MARK: - Pieces

  private func startsLineComment(
    _ p: UnsafeBufferPointer<UInt8>, at i: Int, from: Int, _ end: Int, _ rules: CodeRules
  ) -> Bool {
    for marker in rules.lineComments where p.has(marker, at: i, end: end) {
      if !rules.commentNeedsWordStart || i == from { return true }
      let before = p[i - 1]
      return before == 0x20 || before == 0x09 || before == 0x3B || before == 0x7C || before == 0x26 || before == 0x28
    }
    return false
  }

  private func startsComment(_ p: UnsafeBufferPointer<UInt8>, at i: Int, from: Int, _ end: Int, _ rules: CodeRules) -> Bool {
    startsLineComment(p, at: i, from: from, end, rules) || p.has(rules.blockOpen, at: i, end: end)
  }

  /// Scans a block comment from `j` (inside it) to its close or the line's end; appends its span.
  private mutating func blockComment(
    _ p: UnsafeBufferPointer<UInt8>, spanStart: Int, from j: Int, _ end: Int, _ rules: CodeRules,
    _ spans: inout [Span]
  ) -> Int {
    var j = j
    while j < end {
      if rules.nestedComments && p.has(rules.blockOpen, at: j, end: end) {
        state.depth += 1
        j += rules.blockOpen.count
      } else if p.has(rules.blockClose, at: j, end: end) && (!rules.blockCommentAtLineStart || j == 0) {
        state.depth -= 1
        j += rules.blockClose.count
        if state.depth <= 0 {
          state.mode = .normal
          state.depth = 0
          break
        }
      } else {
        j += 1
      }
    }
    if j > spanStart { spans.append(Span(spanStart, j, .comment)) }
    return j
  }

  /// Scans a string from `j` (inside it) to its close or the line's end; appends its span. An
  /// unclosed multi-line string stays open for the next line.
  private mutating func quote(
    _ p: UnsafeBufferPointer<UInt8>, spanStart: Int, from j: Int, _ end: Int, _ q: CodeRules.Quote,
    _ spans: inout [Span]
  ) -> Int {
    var j = j
    var closed = false
    let first = q.close[0]
    while j < end {
      let b = p[j]
      if q.escapes && b == 0x5C {
        j += 2
        continue
      }
      if b == first && p.has(q.close, at: j, end: end) {
        j += q.close.count
        closed = true
        break
      }
      j += 1
    }
    j = min(j, end)
    state.mode = !closed && q.multiline ? .quote : .normal
    if j > spanStart { spans.append(Span(spanStart, j, .string)) }
    return j
  }

  private func number(
    _ p: UnsafeBufferPointer<UInt8>, at i: Int, _ end: Int, _ rules: CodeRules, _ classes: [UInt8],
    _ spans: inout [Span]
  ) -> Int {
    let hex = p[i] == 0x30 && i + 1 < end && p[i + 1] | 0x20 == 0x78
    var j = i + 1
    while j < end {
      let b = p[j]
      if classes[Int(b)] & CodeRules.Class.identifier != 0 && b < 0x80 {
        j += 1
      } else if b == 0x2E && j + 1 < end && classes[Int(p[j + 1])] & CodeRules.Class.digit != 0 {
        j += 1
      } else if (b == 0x2B || b == 0x2D) && !hex && p[j - 1] | 0x20 == 0x65 {
        j += 1
      } else if rules.numberParts.contains(b) {
        j += 1
      } else {
        break
      }
    }
    spans.append(Span(i, j, .number))
    return j
  }

  /// An identifier: a word of the table, a name the word before it declared, a call, a type or a
  /// constant by its capitals.
  private mutating func word(
    _ p: UnsafeBufferPointer<UInt8>, at i: Int, _ end: Int, _ rules: CodeRules, _ classes: [UInt8],
    _ follow: inout KeywordTable.Follow, _ spans: inout [Span]
  ) -> Int {
    var j = i + 1
    while j < end && classes[Int(p[j])] & CodeRules.Class.identifier != 0 { j += 1 }
    if j < end && rules.identifierSuffixes.contains(p[j]) { j += 1 }
    var token: SyntaxToken?
    var next = KeywordTable.Follow.none
    if let entry = rules.words.lookup(p, i, j) {
      token = entry.token
      next = entry.follow
    } else if follow == .function {
      token = .function
    } else if follow == .type {
      token = .type
    } else if rules.css {
      // A property is a name before `:` in a declaration; a selector (`a:hover`, nested in
      // `@media { … }` too) is what goes on to a `{`.
      let k = p.skipSpaces(from: j, end: end)
      let selector = state.braces == 0 || selectorAhead(p, from: j, end)
      token = selector ? .type : k < end && p[k] == 0x3A ? .key : nil
    } else if rules.macroBang && j < end && p[j] == 0x21 && (j + 1 >= end || p[j + 1] != 0x3D) {
      token = .function
      j += 1
    } else if rules.callIsFunction && j < end && p[j] == 0x28 {
      token = .function
    } else if rules.allCapsIsConstant && isAllCaps(p, i, j) {
      token = .constant
    } else if rules.capitalizedIsType && p[i] >= 0x41 && p[i] <= 0x5A {
      token = .type
    }
    follow = next
    if let token { spans.append(Span(i, j, token)) }
    return j
  }

  /// CSS: whether a `{` comes before the declaration's `;` or `}` (or the line's end).
  private func selectorAhead(_ p: UnsafeBufferPointer<UInt8>, from j: Int, _ end: Int) -> Bool {
    var k = j
    while k < end {
      switch p[k] {
      case 0x7B: return true
      case 0x3B, 0x7D: return false
      default: k += 1
      }
    }
    return false
  }

  private func isAllCaps(_ p: UnsafeBufferPointer<UInt8>, _ i: Int, _ j: Int) -> Bool {
    guard j - i >= 2 else { return false }
    var letters = 0
    for k in i..<j {
      let b = p[k]
      if b >= 0x41 && b <= 0x5A {
        letters += 1
      } else if !(b >= 0x30 && b <= 0x39) && b != 0x5F {
        return false
      }
    }
    return letters >= 2
  }

  /// Where a sigil's name ends (`@main`, `$HOME`, `${x}`, `$(CC)`, `$1`, `#include`, `:sym`), or
  /// `i + 1` when what follows the byte is not a name.
  private func sigil(_ p: UnsafeBufferPointer<UInt8>, at i: Int, _ end: Int, _ rules: CodeRules, _ classes: [UInt8]) -> Int {
    let j = i + 1
    guard j < end else { return j }
    let b = p[i]
    let n = p[j]
    if b == 0x3A {
      // A Ruby symbol, not `a ? b : c`, `A::B` or `key: value`.
      if i > 0 && (p[i - 1] == 0x3A || classes[Int(p[i - 1])] & CodeRules.Class.identifier != 0) { return j }
      if classes[Int(n)] & CodeRules.Class.identifierStart == 0 { return j }
    }
    if rules.variableForms && b == 0x24 {
      if n == 0x7B { return closing(p, from: j, end, open: 0x7B, close: 0x7D) }
      if rules.dollarParenIsVariable && n == 0x28 { return closing(p, from: j, end, open: 0x28, close: 0x29) }
      if classes[Int(n)] & CodeRules.Class.digit != 0 || "@#?$!*-^<+%|".utf8.contains(n) { return j + 1 }
    }
    guard classes[Int(n)] & CodeRules.Class.identifier != 0 && n != 0x2D else { return j }
    var k = j + 1
    while k < end && classes[Int(p[k])] & CodeRules.Class.identifier != 0 { k += 1 }
    return k
  }

  /// The index after the bracket that closes the one at `j`, or the line's end.
  private func closing(_ p: UnsafeBufferPointer<UInt8>, from j: Int, _ end: Int, open: UInt8, close: UInt8) -> Int {
    var depth = 0
    var k = j
    while k < end {
      if p[k] == open { depth += 1 }
      if p[k] == close {
        depth -= 1
        if depth == 0 { return k + 1 }
      }
      k += 1
    }
    return end
  }

  /// C: `#include <stdio.h>`: the path in angle brackets is a string.
  private func includePath(_ p: UnsafeBufferPointer<UInt8>, from i: Int, _ end: Int, _ spans: inout [Span]) -> Int {
    let k = p.skipSpaces(from: i, end: end)
    guard k < end && p[k] == 0x3C else { return i }
    var j = k + 1
    while j < end && p[j] != 0x3E { j += 1 }
    guard j < end else { return i }
    spans.append(Span(k, j + 1, .string))
    return j + 1
  }

  /// Rust: `'a'` and `'\n'` are characters, `'a` in `&'a str` a lifetime.
  private func characterOrLifetime(
    _ p: UnsafeBufferPointer<UInt8>, at i: Int, _ end: Int, _ classes: [UInt8], _ spans: inout [Span]
  ) -> Int {
    guard i + 1 < end else { return end }
    if p[i + 1] == 0x5C {
      var j = i + 2
      while j < end && j < i + 12 && p[j] != 0x27 { j += 1 }
      let stop = min(j + 1, end)
      spans.append(Span(i, stop, .string))
      return stop
    }
    if i + 2 < end && p[i + 2] == 0x27 {
      spans.append(Span(i, i + 3, .string))
      return i + 3
    }
    if p[i + 1] >= 0x80 {
      var j = i + 2
      while j < end && j < i + 6 && p[j] != 0x27 { j += 1 }
      if j < end && p[j] == 0x27 {
        spans.append(Span(i, j + 1, .string))
        return j + 1
      }
    }
    if classes[Int(p[i + 1])] & CodeRules.Class.identifierStart != 0 {
      var j = i + 2
      while j < end && classes[Int(p[j])] & CodeRules.Class.identifier != 0 { j += 1 }
      spans.append(Span(i, j, .type))
      return j
    }
    return i + 1
  }

  /// `<<EOF`, `<<-EOF`, `<<'EOF'`, `<< "EOF"`: where the marker ends, the terminator, and whether
  /// leading tabs are stripped. Not `<<<` (a here-string).
  private func hereDocumentStart(
    _ p: UnsafeBufferPointer<UInt8>, at i: Int, _ end: Int, _ classes: [UInt8]
  ) -> (Int, [UInt8], Bool)? {
    guard i + 2 < end, p[i + 1] == 0x3C, p[i + 2] != 0x3C else { return nil }
    var k = i + 2
    let strip = p[k] == 0x2D
    if strip { k += 1 }
    k = p.skipSpaces(from: k, end: end)
    var quote: UInt8 = 0
    if k < end && (p[k] == 0x27 || p[k] == 0x22) {
      quote = p[k]
      k += 1
    }
    let start = k
    while k < end && classes[Int(p[k])] & CodeRules.Class.identifier != 0 && p[k] != 0x2D { k += 1 }
    guard k > start else { return nil }
    let delimiter = Array(p[start..<k])
    if quote != 0 && k < end && p[k] == quote { k += 1 }
    return (k, delimiter, strip)
  }
}
