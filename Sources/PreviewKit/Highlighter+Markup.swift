/// HTML and XML: tags and their attributes, comments, entities. A tag whose attributes go on over
/// several lines and a comment that does are carried to the next line; text between tags is plain.
extension Highlighter {
  mutating func markupLine(_ p: UnsafeBufferPointer<UInt8>, into spans: inout [Span]) {
    let n = p.count
    var i = 0
    if state.mode == .markupComment {
      i = markupComment(p, spanStart: 0, from: 0, into: &spans)
    } else if state.mode == .tag {
      i = tagInterior(p, from: 0, into: &spans)
    }
    while i < n {
      let b = p[i]
      if b == 0x3C {
        if p.has(Self.commentOpen, at: i, end: n) {
          state.mode = .markupComment
          i = markupComment(p, spanStart: i, from: i + 4, into: &spans)
        } else if p.has(Self.cdataOpen, at: i, end: n) {
          var j = i + Self.cdataOpen.count
          while j < n && !p.has(Self.cdataClose, at: j, end: n) { j += 1 }
          let end = min(j + 3, n)
          spans.append(Span(i, end, .string))
          i = end
        } else if i + 1 < n && (p[i + 1] == 0x2F || p[i + 1] == 0x21 || p[i + 1] == 0x3F || isNameStart(p[i + 1])) {
          // `<name`, `</name`, `<!DOCTYPE`, `<?xml`.
          let markerEnd = isNameStart(p[i + 1]) ? i + 1 : i + 2
          spans.append(Span(i, markerEnd, .punctuation))
          var j = markerEnd
          while j < n && isNamePart(p[j]) { j += 1 }
          if j > markerEnd { spans.append(Span(markerEnd, j, .keyword)) }
          state.mode = .tag
          i = tagInterior(p, from: j, into: &spans)
        } else {
          i += 1
        }
      } else if b == 0x26 {
        var j = i + 1
        while j < n && j < i + 12 && (isNamePart(p[j]) || p[j] == 0x23) { j += 1 }
        if j < n && p[j] == 0x3B && j > i + 1 {
          spans.append(Span(i, j + 1, .constant))
          i = j + 1
        } else {
          i += 1
        }
      } else {
        i += 1
      }
    }
  }

  static let commentOpen = Array("<!--".utf8)
  static let commentClose = Array("-->".utf8)
  static let cdataOpen = Array("<![CDATA[".utf8)
  static let cdataClose = Array("]]>".utf8)

  private mutating func markupComment(
    _ p: UnsafeBufferPointer<UInt8>, spanStart: Int, from j: Int, into spans: inout [Span]
  ) -> Int {
    let n = p.count
    var j = j
    while j < n && !p.has(Self.commentClose, at: j, end: n) { j += 1 }
    if j < n {
      j += 3
      state.mode = .normal
    }
    if j > spanStart { spans.append(Span(spanStart, j, .comment)) }
    return j
  }

  /// Attributes up to the tag's `>` (or `/>`, `?>`), which returns to text.
  private mutating func tagInterior(_ p: UnsafeBufferPointer<UInt8>, from start: Int, into spans: inout [Span]) -> Int {
    let n = p.count
    var j = start
    while j < n {
      let b = p[j]
      if b == 0x3E {
        spans.append(Span(j, j + 1, .punctuation))
        state.mode = .normal
        return j + 1
      }
      if (b == 0x2F || b == 0x3F) && j + 1 < n && p[j + 1] == 0x3E {
        spans.append(Span(j, j + 2, .punctuation))
        state.mode = .normal
        return j + 2
      }
      if b == 0x22 || b == 0x27 {
        var k = j + 1
        while k < n && p[k] != b { k += 1 }
        let end = min(k + 1, n)
        spans.append(Span(j, end, .string))
        j = end
      } else if b == 0x3D {
        spans.append(Span(j, j + 1, .operator))
        j += 1
      } else if isNameStart(b) {
        var k = j + 1
        while k < n && isNamePart(p[k]) { k += 1 }
        spans.append(Span(j, k, .key))
        j = k
      } else {
        j += 1
      }
    }
    return n
  }

  private func isNameStart(_ b: UInt8) -> Bool {
    (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b >= 0x80
  }

  private func isNamePart(_ b: UInt8) -> Bool {
    isNameStart(b) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2E || b == 0x3A
  }
}
