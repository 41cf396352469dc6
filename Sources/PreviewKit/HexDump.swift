/// A binary file as `hexdump -C` shows it: the offset, 16 bytes in hex (a gap after 8), and the
/// bytes as ASCII between bars, with `.` for anything not printable.
///
/// ```
/// 00000000  89 50 4e 47 0d 0a 1a 0a  00 00 00 0d 49 48 44 52  |.PNG........IHDR|
/// ```
/// The offset is a ``SyntaxToken/gutter``; zero bytes are dimmed (``SyntaxToken/comment``), since
/// runs of padding are what one skims past. It starts at any offset, so a later window (the pane
/// scrolling past the first 64 KiB) continues the same numbering. Only printable ASCII is ever
/// written, and it still goes through ``TerminalBytes`` like every other line.
public enum HexDump {
  /// The rows for `bytes`, the first of which sits at `offset` in the file.
  public static func lines(_ bytes: [UInt8], offset: Int = 0, bytesPerRow: Int = 16) -> [StyledLine] {
    bytes.withUnsafeBufferPointer { lines($0, offset: offset, bytesPerRow: bytesPerRow) }
  }

  public static func lines(_ p: UnsafeBufferPointer<UInt8>, offset: Int = 0, bytesPerRow: Int = 16) -> [StyledLine] {
    let perRow = max(1, bytesPerRow)
    let rows = (p.count + perRow - 1) / perRow
    let offsetDigits = max(8, String(offset + p.count, radix: 16).count)
    // One row's text, laid out once and overwritten in place: the offset, two spaces, the hex
    // column (3 per byte, one more after the eighth), a space, then `|ascii|`.
    let hexStart = offsetDigits + 2
    let hexWidth = perRow * 3 + (perRow > 8 ? 1 : 0)
    let asciiStart = hexStart + hexWidth + 1
    var row = [UInt8](repeating: 0x20, count: asciiStart + perRow + 2)
    var out = TerminalBytes(limits: .init(maxColumns: row.count, maxLines: max(1, rows)))
    var zeroRuns: [(start: Int, end: Int)] = []
    var start = 0
    while start < p.count {
      let end = min(start + perRow, p.count)
      let count = end - start
      zeroRuns.removeAll(keepingCapacity: true)
      row.withUnsafeMutableBufferPointer { r in
        writeHex(offset + start, digits: offsetDigits, into: r, at: 0)
        var column = hexStart
        for k in 0..<perRow {
          if k < count {
            let b = p[start + k]
            r[column] = hexDigit(b >> 4)
            r[column + 1] = hexDigit(b & 0xF)
            if b == 0 {
              if let last = zeroRuns.last, last.end == column || last.end == column - 1 {
                zeroRuns[zeroRuns.count - 1].end = column + 3
              } else {
                zeroRuns.append((column, column + 3))
              }
            }
            r[asciiStart + 1 + k] = b >= 0x20 && b < 0x7F ? b : 0x2E
          } else {
            r[column] = 0x20
            r[column + 1] = 0x20
          }
          column += k == 7 && perRow > 8 ? 4 : 3
        }
        r[asciiStart] = 0x7C
        r[asciiStart + 1 + count] = 0x7C
      }
      let rowEnd = asciiStart + count + 2
      row.withUnsafeBufferPointer { r in
        out.feed(UnsafeBufferPointer(rebasing: r[0..<offsetDigits]), token: .gutter)
        // The hex column: runs of zero bytes dimmed, the rest plain.
        var k = offsetDigits
        for run in zeroRuns {
          out.feed(UnsafeBufferPointer(rebasing: r[k..<run.start]))
          out.feed(UnsafeBufferPointer(rebasing: r[run.start..<run.end]), token: .comment)
          k = run.end
        }
        out.feed(UnsafeBufferPointer(rebasing: r[k..<rowEnd]))
      }
      out.lineBreak()
      start = end
    }
    return out.finish()
  }

  @inline(__always)
  private static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x61 + nibble - 10 }

  private static func writeHex(_ value: Int, digits: Int, into r: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
    for k in 0..<digits {
      r[start + k] = hexDigit(UInt8(truncatingIfNeeded: value >> (4 * (digits - 1 - k))) & 0xF)
    }
  }
}
