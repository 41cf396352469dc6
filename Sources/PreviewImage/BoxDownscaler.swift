/// Shrinks a picture row by row with a box filter: each target pixel is the average of the
/// source pixels that fall in it (area averaging, the filter that neither aliases nor blurs at
/// large ratios).
///
/// Rows are added as the decoder hands them out and dropped at once, so a picture is never held
/// whole: the state is one sum per target channel. Source pixel (x, y) goes to target
/// (x * tw / sw, y * th / sh); a target never receives fewer than one source pixel because the
/// target is never larger than the source. Alpha is summed premultiplied, so transparent pixels
/// don't bleed their color and compositing over the background happens once, at `finish`.
struct BoxDownscaler {
  let sourceWidth: Int
  let sourceHeight: Int
  let targetWidth: Int
  let targetHeight: Int
  let channels: Int
  private var targetColumn: [Int]
  private var columnCount: [Int]
  private var rowCount: [Int]
  /// r, g, b, alpha per target pixel (alpha-weighted when the source has alpha).
  private var sums: [Int]

  init(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int, channels: Int) {
    precondition(sourceWidth > 0 && sourceHeight > 0 && channels >= 3 && channels <= 4)
    self.sourceWidth = sourceWidth
    self.sourceHeight = sourceHeight
    self.targetWidth = max(1, min(targetWidth, sourceWidth))
    self.targetHeight = max(1, min(targetHeight, sourceHeight))
    self.channels = channels
    let tw = self.targetWidth
    targetColumn = (0..<sourceWidth).map { $0 * tw / sourceWidth }
    columnCount = [Int](repeating: 0, count: tw)
    for t in targetColumn { columnCount[t] += 1 }
    rowCount = [Int](repeating: 0, count: self.targetHeight)
    sums = [Int](repeating: 0, count: tw * self.targetHeight * 4)
  }

  /// Adds source row `y` (`sourceWidth * channels` bytes).
  mutating func add(row y: Int, _ row: UnsafePointer<UInt8>) {
    let ty = y * targetHeight / sourceHeight
    rowCount[ty] += 1
    let base = ty * targetWidth * 4
    let width = sourceWidth
    let alpha = channels == 4
    targetColumn.withUnsafeBufferPointer { columns in
      sums.withUnsafeMutableBufferPointer { sums in
        let s = sums.baseAddress! + base
        if alpha {
          for x in 0..<width {
            let t = s + columns[x] &* 4
            let p = row + x &* 4
            let a = Int(p[3])
            t[0] &+= Int(p[0]) &* a
            t[1] &+= Int(p[1]) &* a
            t[2] &+= Int(p[2]) &* a
            t[3] &+= a
          }
        } else {
          for x in 0..<width {
            let t = s + columns[x] &* 4
            let p = row + x &* 3
            t[0] &+= Int(p[0])
            t[1] &+= Int(p[1])
            t[2] &+= Int(p[2])
          }
        }
      }
    }
  }

  /// The averages as RGB, `targetWidth * targetHeight * 3` bytes, composited over `background`.
  /// Rows never added (a decoder that stopped early) come out as the background.
  func finish(over background: PictureColor) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: targetWidth * targetHeight * 3)
    let bg = [Int(background.red), Int(background.green), Int(background.blue)]
    for ty in 0..<targetHeight {
      for tx in 0..<targetWidth {
        let n = columnCount[tx] * rowCount[ty]
        let s = (ty * targetWidth + tx) * 4
        let o = (ty * targetWidth + tx) * 3
        for c in 0..<3 {
          let value: Int
          if n == 0 {
            value = bg[c]
          } else if channels == 4 {
            let whole = n * 255
            value = (sums[s + c] + (whole - sums[s + 3]) * bg[c] + whole / 2) / whole
          } else {
            value = (sums[s + c] + n / 2) / n
          }
          out[o + c] = UInt8(clamping: value)
        }
      }
    }
    return out
  }
}
