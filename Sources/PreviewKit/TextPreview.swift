/// The built-in preview of a file's first bytes: highlighted text, pretty-printed JSON, or a hex
/// dump, with the header's words and what part of the file is shown.
///
/// It ties the pieces together in the order they must run: classify (``ContentClassifier``),
/// decode (``TextDecoding``), then highlight line by line (``Highlighter``) or pretty-print
/// (``JSONPrettyPrinter``) or dump (``HexDump``), every byte through ``TerminalBytes``. Pure and
/// synchronous: the caller runs it off the main thread, with at most ``readLimit`` bytes.
public enum TextPreview {
  /// What a preview reads of a file: 64 KiB (preview-pane.md §9).
  public static let readLimit = 64 * 1024

  /// The preview of a file named `name` whose first bytes are `bytes`, of `totalSize` in all.
  ///
  /// Kinds that another previewer shows better (images, PDF, archives, media) come out as a hex
  /// dump here, with their kind in ``Preview/typeDescription``: the caller chooses the previewer
  /// from ``ContentClassifier`` first and uses this one as the fallback.
  public static func make(
    name: String, bytes: [UInt8], totalSize: Int, limits: TerminalBytes.Limits = TerminalBytes.Limits()
  ) -> Preview {
    let isPrefix = totalSize > bytes.count
    let kind = ContentClassifier.classify(name: name, prefix: bytes, isPrefix: isPrefix)
    var notes: [String] = []
    if isPrefix { notes.append("first \(ByteCountText.format(bytes.count)) of \(ByteCountText.format(totalSize))") }
    let parser: TerminalBytes
    switch kind {
    case .empty:
      return Preview(
        typeDescription: kind.description, extent: nil, body: .message(totalSize == 0 ? "empty file" : "nothing read"))
    case .text(let language, let encoding):
      let decoded = TextDecoding.utf8(bytes, as: encoding, isPrefix: isPrefix)
      parser = text(decoded, language: language, isPrefix: isPrefix, limits: limits)
    case .json(let encoding):
      let decoded = TextDecoding.utf8(bytes, as: encoding, isPrefix: isPrefix)
      if let pretty = decoded.withUnsafeBufferPointer({ JSONPrettyPrinter.print($0, isPrefix: isPrefix, limits: limits) }) {
        parser = pretty
      } else {
        parser = text(decoded, language: .json, isPrefix: isPrefix, limits: limits)
      }
    case .binary, .image, .pdf, .archive, .audio, .video:
      let lines = HexDump.lines(bytes)
      return Preview(
        typeDescription: kind.description, extent: notes.isEmpty ? nil : notes.joined(separator: ", "), body: .lines(lines))
    }
    var result = parser
    let lines = result.finish()
    if result.didDropLines { notes.append("first \(grouped(lines.count)) lines") }
    return Preview(
      typeDescription: kind.description, extent: notes.isEmpty ? nil : notes.joined(separator: ", "), body: .lines(lines))
  }

  /// Highlights decoded text line by line. A prefix ends at its last newline (the line after it
  /// is cut short anyway) unless it has none.
  static func text(_ decoded: [UInt8], language: Language?, isPrefix: Bool, limits: TerminalBytes.Limits) -> TerminalBytes {
    var out = TerminalBytes(limits: limits)
    var highlighter = language.map { Highlighter(language: $0) }
    var spans: [Highlighter.Span] = []
    spans.reserveCapacity(64)
    decoded.withUnsafeBufferPointer { p in
      var end = p.count
      if isPrefix, let lastNewline = p.lastIndex(of: 0x0A) { end = lastNewline + 1 }
      var lineStart = 0
      while lineStart < end && !out.isFull {
        var lineEnd = lineStart
        while lineEnd < end && p[lineEnd] != 0x0A { lineEnd += 1 }
        var contentEnd = lineEnd
        if contentEnd > lineStart && p[contentEnd - 1] == 0x0D { contentEnd -= 1 }
        let line = UnsafeBufferPointer(rebasing: p[lineStart..<contentEnd])
        if highlighter != nil {
          spans.removeAll(keepingCapacity: true)
          highlighter!.highlight(line, into: &spans)
          var k = 0
          for span in spans {
            let start = max(span.start, k)
            let stop = min(span.end, line.count)
            guard stop > start else { continue }
            if start > k { out.feed(UnsafeBufferPointer(rebasing: line[k..<start])) }
            out.feed(UnsafeBufferPointer(rebasing: line[start..<stop]), token: span.token)
            k = stop
          }
          if k < line.count { out.feed(UnsafeBufferPointer(rebasing: line[k...])) }
        } else {
          out.feed(line)
        }
        // The line's end as the file has it (LF, CR LF, or none at the very end).
        out.feed(UnsafeBufferPointer(rebasing: p[contentEnd..<min(lineEnd + 1, end)]))
        lineStart = lineEnd + 1
      }
      if lineStart < end { out.noteDroppedInput() }
    }
    return out
  }

  /// 10000 as "10,000".
  static func grouped(_ n: Int) -> String {
    var digits = Array(String(n))
    var k = digits.count - 3
    while k > 0 {
      digits.insert(",", at: k)
      k -= 3
    }
    return String(digits)
  }
}

/// The output of a helper process (`pdftotext`, `mediainfo`, a user's previewer) as preview lines:
/// the helper's colours (SGR) kept, everything else it says made safe by ``TerminalBytes``.
public enum HelperOutput {
  /// - Parameter truncated: the output was cut at the cap, so a character cut at the end is left
  ///   out rather than shown as an invalid byte.
  public static func lines(
    _ bytes: [UInt8], truncated: Bool = false, limits: TerminalBytes.Limits = TerminalBytes.Limits()
  ) -> [StyledLine] {
    var parser = TerminalBytes(limits: limits)
    bytes.withUnsafeBufferPointer { p in
      let end = truncated ? TextDecoding.completeUTF8End(p) : p.count
      parser.feed(UnsafeBufferPointer(rebasing: p[0..<end]))
    }
    return parser.finish()
  }
}

/// Sizes as the header says them: "812 bytes", "64 KiB", "14.3 MiB", "977 KiB" (one decimal
/// below a thousand units, binary units as `ls -h` and the rest of Folio count).
public enum ByteCountText {
  public static func format(_ count: Int) -> String {
    if count < 1024 { return count == 1 ? "1 byte" : "\(count) bytes" }
    let units = ["KiB", "MiB", "GiB", "TiB", "PiB"]
    var unit = 1024
    var index = 0
    while index + 1 < units.count && count / unit >= 1024 {
      unit *= 1024
      index += 1
    }
    let tenths = (count * 10 + unit / 2) / unit
    if tenths < 1000 && tenths % 10 != 0 { return "\(tenths / 10).\(tenths % 10) \(units[index])" }
    return "\((count + unit / 2) / unit) \(units[index])"
  }
}
