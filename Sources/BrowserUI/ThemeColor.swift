/// A color as a theme writes it: the terminal's default, one of the 16 ANSI colors, an entry of the
/// 256-color palette, or an exact `#rrggbb`.
///
/// Terminals differ in what they can show, so a color is kept as written and reduced only when the
/// backend knows the terminal: `nearest256` for 256-color terminals, `nearest16` / `nearest8` for
/// smaller ones. The 16 ANSI names stay palette indexes 0–15 everywhere, so they follow the user's
/// own terminal palette (Solarized, Gruvbox, …) instead of fixed RGB values.
public enum ThemeColor: Sendable, Hashable, CustomStringConvertible {
  /// The terminal's own foreground or background (ncurses' -1 after `use_default_colors`).
  case `default`
  case black, red, green, yellow, blue, magenta, cyan, white
  case brightBlack, brightRed, brightGreen, brightYellow, brightBlue, brightMagenta, brightCyan, brightWhite
  /// An entry of the xterm 256-color palette.
  case indexed(UInt8)
  /// An exact color; shown as its nearest palette entry unless the terminal takes direct RGB.
  case rgb(red: UInt8, green: UInt8, blue: UInt8)

  /// The 16 ANSI colors in palette order, with the names theme files use.
  public static let ansiColors: [(name: String, color: ThemeColor)] = [
    ("black", .black), ("red", .red), ("green", .green), ("yellow", .yellow),
    ("blue", .blue), ("magenta", .magenta), ("cyan", .cyan), ("white", .white),
    ("bright-black", .brightBlack), ("bright-red", .brightRed), ("bright-green", .brightGreen),
    ("bright-yellow", .brightYellow), ("bright-blue", .brightBlue), ("bright-magenta", .brightMagenta),
    ("bright-cyan", .brightCyan), ("bright-white", .brightWhite),
  ]

  /// Parses `default`, an ANSI name (`bright-white`, `brightWhite` and `bright_white` are the same),
  /// a palette index `0`–`255`, `#rrggbb` or `#rgb`. Nil for anything else.
  public init?(_ text: String) {
    let t = Self.trimmed(text).lowercased()
    if t == "default" {
      self = .default
      return
    }
    if t.hasPrefix("#") {
      guard let rgb = Self.parseHex(String(t.dropFirst())) else { return nil }
      self = .rgb(red: rgb.0, green: rgb.1, blue: rgb.2)
      return
    }
    if let n = Int(t) {
      guard let index = UInt8(exactly: n) else { return nil }
      self = .indexed(index)
      return
    }
    let key = Self.nameKey(t)
    guard let entry = Self.ansiColors.first(where: { Self.nameKey($0.name) == key }) else { return nil }
    self = entry.color
  }

  /// The palette index of an ANSI name (0–15) or of `.indexed`; nil for `.default` and `.rgb`.
  public var paletteIndex: Int? {
    switch self {
    case .default, .rgb: return nil
    case .indexed(let n): return Int(n)
    default: return Self.ansiColors.firstIndex { $0.color == self }
    }
  }

  /// An approximate RGB value (xterm's default palette for indexes); nil for `.default`.
  public var rgbValue: (red: UInt8, green: UInt8, blue: UInt8)? {
    if case .rgb(let r, let g, let b) = self { return (r, g, b) }
    guard let index = paletteIndex else { return nil }
    let c = Self.paletteRGB(index)
    return (UInt8(c.0), UInt8(c.1), UInt8(c.2))
  }

  /// The color on a 256-color terminal: palette indexes unchanged, `#rrggbb` as the nearest entry of
  /// the 6×6×6 cube or the gray ramp (never 0–15, whose values the user may have changed).
  public var nearest256: Int? {
    if let index = paletteIndex { return index }
    guard case .rgb(let r, let g, let b) = self else { return nil }
    return Self.nearestCubeOrGray(Int(r), Int(g), Int(b))
  }

  /// The color on a 16-color terminal: an ANSI name unchanged, anything else the nearest of the 16
  /// by RGB distance. Themes can name a better one with `fg16`/`bg16` (see ``ThemeStyle``).
  public var nearest16: Int? { nearest(among: 16) }

  /// The color on an 8-color terminal (bright colors become their nearest of the first eight).
  public var nearest8: Int? { nearest(among: 8) }

  /// The palette index to use on a terminal with `colors` colors (8, 16, 256 or more); nil for
  /// `.default`.
  public func paletteIndex(forColors colors: Int) -> Int? {
    if colors >= 256 { return nearest256 }
    if colors >= 16 { return nearest16 }
    return nearest8
  }

  /// How a theme file writes this color.
  public var description: String {
    switch self {
    case .default: return "default"
    case .indexed(let n): return String(n)
    case .rgb(let r, let g, let b): return "#" + [r, g, b].map(Self.hexByte).joined()
    default: return Self.ansiColors.first { $0.color == self }?.name ?? "?"
    }
  }

  // MARK: - Palette arithmetic

  /// xterm's default values for the 16 ANSI colors: only an estimate of what the user sees, used
  /// to pick the nearest ANSI color for an exact one.
  static let ansiRGB: [(Int, Int, Int)] = [
    (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
    (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255),
    (255, 0, 255), (0, 255, 255), (255, 255, 255),
  ]
  /// The six levels of each channel of the 6×6×6 cube (indexes 16–231).
  static let cubeLevels = [0, 95, 135, 175, 215, 255]

  /// The RGB value of a 256-color palette index.
  static func paletteRGB(_ index: Int) -> (Int, Int, Int) {
    switch index {
    case ..<16: return ansiRGB[max(0, index)]
    case 16..<232:
      let n = index - 16
      return (cubeLevels[n / 36], cubeLevels[(n / 6) % 6], cubeLevels[n % 6])
    default:
      let v = 8 + 10 * (min(index, 255) - 232)
      return (v, v, v)
    }
  }

  static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
    let dr = a.0 - b.0
    let dg = a.1 - b.1
    let db = a.2 - b.2
    return dr * dr + dg * dg + db * db
  }

  /// The nearest entry of the cube (16–231) or the gray ramp (232–255), as tmux and most terminals
  /// reduce 24-bit colors.
  static func nearestCubeOrGray(_ r: Int, _ g: Int, _ b: Int) -> Int {
    func level(_ v: Int) -> Int {
      var best = 0
      for (i, l) in cubeLevels.enumerated() where abs(l - v) < abs(cubeLevels[best] - v) { best = i }
      return best
    }
    let cube = 16 + 36 * level(r) + 6 * level(g) + level(b)
    let average = (r + g + b) / 3
    let grayStep = min(23, max(0, (average - 8 + 5) / 10))
    let gray = 232 + grayStep
    let target = (r, g, b)
    return distance(paletteRGB(gray), target) < distance(paletteRGB(cube), target) ? gray : cube
  }

  private func nearest(among count: Int) -> Int? {
    if let index = paletteIndex, index < count { return index }
    guard let c = rgbValue else { return nil }
    return Self.nearestANSI((Int(c.red), Int(c.green), Int(c.blue)), among: count)
  }

  /// The nearest of the first `count` ANSI colors. A gray goes to a gray (black, white, bright
  /// black or bright white): by distance alone a mid gray is nearer xterm's yellow than its white,
  /// and dim text would turn yellow on an 8-color terminal.
  static func nearestANSI(_ target: (Int, Int, Int), among count: Int) -> Int {
    let chroma = max(target.0, target.1, target.2) - min(target.0, target.1, target.2)
    let candidates = (0..<min(count, 16)).filter { chroma > 24 || [0, 7, 8, 15].contains($0) }
    var best = candidates[0]
    for i in candidates where distance(ansiRGB[i], target) < distance(ansiRGB[best], target) { best = i }
    return best
  }

  private static func parseHex(_ digits: String) -> (UInt8, UInt8, UInt8)? {
    let chars = Array(digits)
    guard chars.allSatisfy(\.isHexDigit) else { return nil }
    func byte(_ s: String) -> UInt8? { UInt8(s, radix: 16) }
    switch chars.count {
    case 6:
      guard let r = byte(String(chars[0...1])), let g = byte(String(chars[2...3])), let b = byte(String(chars[4...5]))
      else { return nil }
      return (r, g, b)
    case 3:
      guard let r = byte(String([chars[0], chars[0]])), let g = byte(String([chars[1], chars[1]])),
        let b = byte(String([chars[2], chars[2]]))
      else { return nil }
      return (r, g, b)
    default: return nil
    }
  }

  private static func hexByte(_ b: UInt8) -> String {
    let s = String(b, radix: 16)
    return s.count == 1 ? "0" + s : s
  }

  /// Without leading and trailing spaces and tabs (BrowserUI does without Foundation).
  static func trimmed(_ text: String) -> String {
    var s = Substring(text)
    while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
    while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
    return String(s)
  }

  /// `bright-white`, `brightWhite`, `Bright_White` → `brightwhite`.
  static func nameKey(_ s: String) -> String {
    String(s.lowercased().filter { $0 != "-" && $0 != "_" && $0 != " " })
  }
}
