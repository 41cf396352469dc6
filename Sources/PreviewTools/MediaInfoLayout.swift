/// mediainfo's report fitted to a narrow pane.
///
/// mediainfo pads every key to 41 columns ("Format                                   : PDF"), which
/// leaves a 60-column pane 17 columns for the values. The keys are re-padded to the longest key
/// of the report, at most `keyWidth` (a longer key keeps its length). Section headers ("General",
/// "Video") and other lines pass unchanged. Bytes in, bytes out: the sanitiser runs after.
enum MediaInfoLayout {
  static func fitted(_ output: [UInt8], keyWidth: Int) -> [UInt8] {
    let separator: [UInt8] = Array(" : ".utf8)
    let lines = output.split(separator: 0x0A, omittingEmptySubsequences: false)
    let pairs: [(key: ArraySlice<UInt8>, value: ArraySlice<UInt8>)?] = lines.map { line in
      guard let at = firstIndex(of: separator, in: line) else { return nil }
      var key = line[line.startIndex..<at]
      while key.last == 0x20 { key = key.dropLast() }
      guard !key.isEmpty else { return nil }
      return (key, line[(at + separator.count)...])
    }
    let width = min(keyWidth, pairs.compactMap { $0.map { displayWidth($0.key) } }.max() ?? 0)
    var out: [UInt8] = []
    out.reserveCapacity(output.count)
    for (i, line) in lines.enumerated() {
      if i > 0 { out.append(0x0A) }
      guard let pair = pairs[i] else {
        out.append(contentsOf: line)
        continue
      }
      out.append(contentsOf: pair.key)
      out.append(contentsOf: [UInt8](repeating: 0x20, count: max(0, width - displayWidth(pair.key))))
      out.append(contentsOf: separator)
      out.append(contentsOf: pair.value)
    }
    return out
  }

  /// Characters, counted as UTF-8 lead bytes (keys are ASCII in practice).
  private static func displayWidth(_ bytes: ArraySlice<UInt8>) -> Int {
    bytes.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) }
  }

  private static func firstIndex(of needle: [UInt8], in line: ArraySlice<UInt8>) -> Int? {
    guard line.count >= needle.count else { return nil }
    var i = line.startIndex
    while i + needle.count <= line.endIndex {
      if line[i..<(i + needle.count)].elementsEqual(needle) { return i }
      i += 1
    }
    return nil
  }
}
