/// Unified diffs: file headers, hunk headers, added and removed lines. Inside a hunk the header's
/// line counts decide where it ends, so a removed line that reads `--- x` is not taken for the
/// next file's header.
extension Highlighter {
  mutating func diffLine(_ p: UnsafeBufferPointer<UInt8>, into spans: inout [Span]) {
    let n = p.count
    guard n > 0 else {
      // An empty line inside a hunk is a context line whose space was trimmed.
      if state.remainingOld > 0 { state.remainingOld -= 1 }
      if state.remainingNew > 0 { state.remainingNew -= 1 }
      return
    }
    let b = p[0]
    if state.remainingOld > 0 || state.remainingNew > 0 {
      switch b {
      case 0x2D:
        state.remainingOld -= 1
        return spans.append(Span(0, n, .removed))
      case 0x2B:
        state.remainingNew -= 1
        return spans.append(Span(0, n, .added))
      case 0x20:
        state.remainingOld -= 1
        state.remainingNew -= 1
        return
      case 0x5C:
        return spans.append(Span(0, n, .comment))
      default:
        state.remainingOld = 0
        state.remainingNew = 0
      }
    }
    if p.has(Array("@@".utf8), at: 0, end: n) {
      var j = 2
      while j + 1 < n && !(p[j] == 0x40 && p[j + 1] == 0x40) { j += 1 }
      let close = min(j + 2, n)
      spans.append(Span(0, close, .heading))
      if close < n { spans.append(Span(close, n, .function)) }
      let (old, new) = hunkCounts(p, end: close)
      state.remainingOld = old
      state.remainingNew = new
      return
    }
    if p.has(Array("+++ ".utf8), at: 0, end: n) || p.has(Array("--- ".utf8), at: 0, end: n) {
      return spans.append(Span(0, n, .heading))
    }
    for word in Self.diffHeaders where p.has(word, at: 0, end: n) { return spans.append(Span(0, n, .keyword)) }
    switch b {
    case 0x2B: spans.append(Span(0, n, .added))
    case 0x2D: spans.append(Span(0, n, .removed))
    case 0x5C: spans.append(Span(0, n, .comment))
    default: break
    }
  }

  static let diffHeaders: [[UInt8]] = [
    "diff ", "index ", "new file", "deleted file", "similarity", "rename ", "old mode", "new mode", "Binary files",
    "commit ", "Index: ", "Only in ",
  ].map { Array($0.utf8) }

  /// `@@ -12,5 +12,7 @@`: how many old and new lines the hunk has (a count left out is 1).
  private func hunkCounts(_ p: UnsafeBufferPointer<UInt8>, end: Int) -> (Int, Int) {
    var old = 0
    var new = 0
    var k = 2
    while k < end {
      let sign = p[k]
      guard sign == 0x2D || sign == 0x2B else {
        k += 1
        continue
      }
      var j = k + 1
      while j < end && p[j] >= 0x30 && p[j] <= 0x39 { j += 1 }
      guard j > k + 1 else {
        k += 1
        continue
      }
      var count = 1
      if j < end && p[j] == 0x2C {
        count = 0
        j += 1
        while j < end && p[j] >= 0x30 && p[j] <= 0x39 {
          count = min(count * 10 + Int(p[j] - 0x30), 1_000_000)
          j += 1
        }
      }
      if sign == 0x2D { old = count } else { new = count }
      k = j
    }
    return (old, new)
  }
}
