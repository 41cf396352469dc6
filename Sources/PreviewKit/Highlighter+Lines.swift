/// Line-oriented formats: what a line is depends on how it starts (a YAML key, a TOML section, a
/// make target, a Dockerfile instruction); the rest of the line goes to the code lexer with the
/// format's table. (Markdown and diffs have files of their own.)
extension Highlighter {
  // MARK: - YAML

  mutating func yamlLine(_ p: UnsafeBufferPointer<UInt8>, into spans: inout [Span]) {
    let n = p.count
    let indent = p.skipSpaces(from: 0, end: n)
    if state.mode == .yamlBlock {
      if indent == n || p[indent] == 0x0D { return }
      if indent > state.indent { return spans.append(Span(indent, n, .string)) }
      state.mode = .normal
    }
    if state.mode == .quote { return lexCode(p, from: 0, to: n, into: &spans) }
    guard indent < n else { return }
    var k = indent
    if k == 0 && (p.has(Array("---".utf8), at: 0, end: n) || p.has(Array("...".utf8), at: 0, end: n))
      && (n == 3 || p[3] == 0x20)
    {
      spans.append(Span(0, 3, .punctuation))
      return lexCode(p, from: 3, to: n, into: &spans)
    }
    if p[k] == 0x23 { return spans.append(Span(k, n, .comment)) }
    while k < n && p[k] == 0x2D && (k + 1 == n || p[k + 1] == 0x20) {
      spans.append(Span(k, k + 1, .punctuation))
      k = p.skipSpaces(from: k + 1, end: n)
    }
    if let (keyEnd, colon) = yamlKey(p, from: k) {
      spans.append(Span(k, keyEnd, .key))
      spans.append(Span(colon, colon + 1, .punctuation))
      k = colon + 1
    }
    yamlValue(p, from: k, lineIndent: indent, into: &spans)
  }

  /// A mapping key at `k`: where it ends and where its colon is.
  private func yamlKey(_ p: UnsafeBufferPointer<UInt8>, from k: Int) -> (Int, Int)? {
    let n = p.count
    guard k < n else { return nil }
    var j = k
    if p[k] == 0x22 || p[k] == 0x27 {
      j = k + 1
      while j < n && p[j] != p[k] { j += p[j] == 0x5C && p[k] == 0x22 ? 2 : 1 }
      guard j < n else { return nil }
      let colon = p.skipSpaces(from: j + 1, end: n)
      return colon < n && p[colon] == 0x3A ? (j + 1, colon) : nil
    }
    if "[{&*!|>%@`#".utf8.contains(p[k]) { return nil }
    while j < n {
      if p[j] == 0x3A && (j + 1 == n || p[j + 1] == 0x20 || p[j + 1] == 0x09 || p[j + 1] == 0x0D) {
        var end = j
        while end > k && (p[end - 1] == 0x20 || p[end - 1] == 0x09) { end -= 1 }
        return end > k ? (end, j) : nil
      }
      if p[j] == 0x23 && j > k && p[j - 1] == 0x20 { return nil }
      j += 1
    }
    return nil
  }

  /// A value: a block scalar's indicator, something the code lexer knows (quotes, flows, anchors,
  /// numbers, constants), or a plain scalar, shown as a string.
  private mutating func yamlValue(
    _ p: UnsafeBufferPointer<UInt8>, from start: Int, lineIndent: Int, into spans: inout [Span]
  ) {
    let n = p.count
    let k = p.skipSpaces(from: start, end: n)
    guard k < n else { return }
    let b = p[k]
    if b == 0x7C || b == 0x3E {
      var j = k + 1
      while j < n && (p[j] == 0x2D || p[j] == 0x2B || (p[j] >= 0x30 && p[j] <= 0x39)) { j += 1 }
      spans.append(Span(k, j, .punctuation))
      state.mode = .yamlBlock
      state.indent = lineIndent
      return lexCode(p, from: j, to: n, into: &spans)
    }
    // The plain scalar runs to a comment (` #`) or the end.
    var end = k
    while end < n && !(p[end] == 0x23 && end > k && (p[end - 1] == 0x20 || p[end - 1] == 0x09)) { end += 1 }
    var last = end
    while last > k && (p[last - 1] == 0x20 || p[last - 1] == 0x09 || p[last - 1] == 0x0D) { last -= 1 }
    let isWord = rules.words.lookup(p, k, last) != nil || (last == k + 1 && b == 0x7E)
    let isNumber =
      (b >= 0x30 && b <= 0x39) || ((b == 0x2D || b == 0x2B || b == 0x2E) && k + 1 < n && p[k + 1] >= 0x30 && p[k + 1] <= 0x39)
    if "\"'[{&*!".utf8.contains(b) || isWord || isNumber {
      if last == k + 1 && b == 0x7E {
        spans.append(Span(k, last, .constant))
      } else {
        lexCode(p, from: k, to: last, into: &spans)
      }
    } else {
      spans.append(Span(k, last, .string))
    }
    if end < n { spans.append(Span(end, n, .comment)) }
  }

  // MARK: - TOML and INI

  mutating func tomlLine(_ p: UnsafeBufferPointer<UInt8>, into spans: inout [Span]) {
    let n = p.count
    if state.mode != .normal { return lexCode(p, from: 0, to: n, into: &spans) }
    let k = p.skipSpaces(from: 0, end: n)
    guard k < n else { return }
    if p[k] == 0x23 || p[k] == 0x3B { return spans.append(Span(k, n, .comment)) }
    if p[k] == 0x5B {
      var j = n
      while j > k && p[j - 1] != 0x5D { j -= 1 }
      let end = j > k ? j : n
      spans.append(Span(k, end, .heading))
      return lexCode(p, from: end, to: n, into: &spans)
    }
    // `key = value` (INI also writes `key: value`); quotes in the key may hold `=`.
    var j = k
    var quote: UInt8 = 0
    while j < n {
      let b = p[j]
      if quote != 0 {
        if b == quote { quote = 0 }
      } else if b == 0x22 || b == 0x27 {
        quote = b
      } else if b == 0x3D || b == 0x3A {
        break
      } else if b == 0x23 || b == 0x5B || b == 0x7B {
        j = n
        break
      }
      j += 1
    }
    guard j < n, j > k else { return lexCode(p, from: k, to: n, into: &spans) }
    var keyEnd = j
    while keyEnd > k && (p[keyEnd - 1] == 0x20 || p[keyEnd - 1] == 0x09) { keyEnd -= 1 }
    if keyEnd > k { spans.append(Span(k, keyEnd, .key)) }
    spans.append(Span(j, j + 1, .operator))
    lexCode(p, from: j + 1, to: n, into: &spans)
  }

  // MARK: - Makefile

  mutating func makefileLine(_ p: UnsafeBufferPointer<UInt8>, into spans: inout [Span]) {
    let n = p.count
    if state.mode != .normal || (n > 0 && p[0] == 0x09) { return lexCode(p, from: 0, to: n, into: &spans) }
    let k = p.skipSpaces(from: 0, end: n)
    guard k < n else { return }
    if p[k] == 0x23 { return spans.append(Span(k, n, .comment)) }
    // A directive (`ifeq`, `include`, `define`, `export`…) is left to the lexer.
    var w = k
    while w < n && rules.classes[Int(p[w])] & CodeRules.Class.identifier != 0 { w += 1 }
    if rules.words.lookup(p, k, w) != nil { return lexCode(p, from: k, to: n, into: &spans) }
    // `NAME = …`, `NAME := …` (and `::=`, `?=`, `+=`, `!=`), or `target: prerequisites`.
    var j = k
    var parens = 0
    while j < n {
      let b = p[j]
      if b == 0x28 || b == 0x7B { parens += 1 }
      if b == 0x29 || b == 0x7D { parens -= 1 }
      if parens <= 0 && (b == 0x3D || b == 0x3A || b == 0x23) { break }
      j += 1
    }
    guard j < n, p[j] != 0x23 else { return lexCode(p, from: k, to: n, into: &spans) }
    var opStart = j
    var opEnd = j + 1
    let isAssignment: Bool
    if p[j] == 0x3D {
      if j > k && "?+!:".utf8.contains(p[j - 1]) { opStart = j - 1 }
      if opStart > k && p[opStart] == 0x3A && p[opStart - 1] == 0x3A { opStart -= 1 }
      isAssignment = true
    } else {
      // `:` — or `:=` / `::=`.
      var e = j
      while e < n && p[e] == 0x3A { e += 1 }
      isAssignment = e < n && p[e] == 0x3D
      opEnd = isAssignment ? e + 1 : e
    }
    var nameEnd = opStart
    while nameEnd > k && (p[nameEnd - 1] == 0x20 || p[nameEnd - 1] == 0x09) { nameEnd -= 1 }
    if nameEnd > k { spans.append(Span(k, nameEnd, isAssignment ? .key : .function)) }
    spans.append(Span(opStart, opEnd, .operator))
    lexCode(p, from: opEnd, to: n, into: &spans)
  }

  // MARK: - Dockerfile

  mutating func dockerfileLine(_ p: UnsafeBufferPointer<UInt8>, into spans: inout [Span]) {
    let n = p.count
    var last = n
    while last > 0 && (p[last - 1] == 0x20 || p[last - 1] == 0x09 || p[last - 1] == 0x0D) { last -= 1 }
    defer { state.continued = last > 0 && p[last - 1] == 0x5C }
    if state.mode != .normal { return lexCode(p, from: 0, to: n, into: &spans) }
    let k = p.skipSpaces(from: 0, end: n)
    guard k < n else { return }
    if p[k] == 0x23 { return spans.append(Span(k, n, .comment)) }
    var j = k
    if !state.continued {
      while j < n && ((p[j] | 0x20) >= 0x61 && (p[j] | 0x20) <= 0x7A) { j += 1 }
      if CodeRules.dockerInstructions.lookup(p, k, j) != nil { spans.append(Span(k, j, .keyword)) } else { j = k }
    }
    lexCode(p, from: j, to: n, into: &spans)
  }
}
