/// SGR (`CSI … m`), the one control sequence the sanitiser keeps: its parameters become the ink of
/// the text that follows.
///
/// Both parameter forms are read: the common `38;5;n` / `38;2;r;g;b` and ITU T.416's colon form
/// `38:5:n` / `38:2:[colorspace]:r:g:b` (what kitty, foot and newer tools write). What has no
/// ``InkAttributes`` (blink, strike-through, fonts, underline colour) is accepted and has no
/// effect. Conceal (8) is deliberately ignored: a helper must not be able to hide text from the
/// person reading the preview.
extension TerminalBytes {
  mutating func applySGR() {
    guard parseSGRParameters() else { return }
    let count = sgrValues.count
    var k = 0
    while k < count {
      let p = max(sgrValues[k], 0)
      var end = k + 1
      while end < count && sgrIsSub[end] { end += 1 }
      switch p {
      case 0:
        foreground = .none
        background = .none
        attributes = []
      case 1: attributes.insert(.bold)
      case 2: attributes.insert(.dim)
      case 3: attributes.insert(.italic)
      case 4:
        // 4:0 is "no underline"; 4:1…4:5 are underline styles.
        if end > k + 1 && sgrValues[k + 1] == 0 { attributes.remove(.underline) } else { attributes.insert(.underline) }
      case 7: attributes.insert(.reverse)
      case 21: attributes.insert(.underline)
      case 22: attributes.subtract([.bold, .dim])
      case 23: attributes.remove(.italic)
      case 24: attributes.remove(.underline)
      case 27: attributes.remove(.reverse)
      case 30...37: foreground = .palette(UInt8(p - 30))
      case 39: foreground = .none
      case 40...47: background = .palette(UInt8(p - 40))
      case 49: background = .none
      case 90...97: foreground = .palette(UInt8(p - 90 + 8))
      case 100...107: background = .palette(UInt8(p - 100 + 8))
      case 38, 48, 58:
        let color: InkColor?
        if end > k + 1 {
          color = colonColor(from: k + 1, to: end)
        } else {
          // `38;5;n` / `38;2;r;g;b`: the colour's values are parameters of their own.
          (color, end) = semicolonColor(after: k)
        }
        if let color, p == 38 { foreground = color }
        if let color, p == 48 { background = color }
      default: break
      }
      k = end
    }
    updateInk()
  }

  /// Splits the parameter bytes into values (-1 where empty) and whether each follows a colon.
  /// False when they hold anything but digits, `;` and `:`.
  private mutating func parseSGRParameters() -> Bool {
    sgrValues.removeAll(keepingCapacity: true)
    sgrIsSub.removeAll(keepingCapacity: true)
    var value: Int32 = -1
    var isSub = false
    for c in csiParameters {
      switch c {
      case 0x30...0x39: value = min(max(value, 0), 100_000) * 10 + Int32(c - 0x30)
      case 0x3B, 0x3A:
        sgrValues.append(value)
        sgrIsSub.append(isSub)
        value = -1
        isSub = c == 0x3A
      default: return false
      }
    }
    sgrValues.append(value)
    sgrIsSub.append(isSub)
    return true
  }

  /// `5:n`, `2:r:g:b` or `2:colorspace:r:g:b` at `start..<end`.
  private func colonColor(from start: Int, to end: Int) -> InkColor? {
    let values = sgrValues[start..<end].map { max($0, 0) }
    switch values.first {
    case 5 where values.count >= 2: return values[1] <= 255 ? .palette(UInt8(values[1])) : nil
    case 2 where values.count >= 5: return Self.rgb(values[2], values[3], values[4])
    case 2 where values.count == 4: return Self.rgb(values[1], values[2], values[3])
    default: return nil
    }
  }

  /// The colour after parameter `k` in the `;` form, and the index after it.
  private func semicolonColor(after k: Int) -> (InkColor?, Int) {
    let count = sgrValues.count
    guard k + 1 < count else { return (nil, count) }
    switch sgrValues[k + 1] {
    case 5 where k + 2 < count:
      let n = max(sgrValues[k + 2], 0)
      return (n <= 255 ? .palette(UInt8(n)) : nil, k + 3)
    case 2 where k + 4 < count:
      return (Self.rgb(max(sgrValues[k + 2], 0), max(sgrValues[k + 3], 0), max(sgrValues[k + 4], 0)), k + 5)
    default:
      // Malformed: what follows cannot be told apart from the colour's values, so stop here.
      return (nil, count)
    }
  }

  private static func rgb(_ r: Int32, _ g: Int32, _ b: Int32) -> InkColor? {
    guard r <= 255, g <= 255, b <= 255 else { return nil }
    return .rgb(UInt8(r), UInt8(g), UInt8(b))
  }

  mutating func updateInk() {
    ink = Ink(foreground: foreground, background: background, attributes: attributes, token: token)
  }
}
