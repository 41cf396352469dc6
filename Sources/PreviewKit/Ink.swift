/// How a run of preview text is drawn.
///
/// Two sources of color meet in a preview: the tokens Folio's own highlighter finds (colored by
/// the theme, so a light theme stays readable: ranger #3230) and the colors the content itself
/// carries (a helper's SGR, an image's pixels). `token` is the first, `foreground`/`background`
/// the second; a backend draws a token through the theme and a color as close as the terminal
/// allows (a palette index, or RGB on a direct-color terminal).
public struct Ink: Sendable, Hashable {
  public var foreground: InkColor
  public var background: InkColor
  public var attributes: InkAttributes
  public var token: SyntaxToken?

  public init(
    foreground: InkColor = .none, background: InkColor = .none, attributes: InkAttributes = [], token: SyntaxToken? = nil
  ) {
    self.foreground = foreground
    self.background = background
    self.attributes = attributes
    self.token = token
  }

  /// Field by field and inlinable: the terminal compares every cell of a frame with the one
  /// before it, and a call into this module per cell was a third of a Down key's frame
  /// (docs/BENCHMARKS.md, issue 13). Nearly every cell has no token: that case needs no call.
  @inlinable public static func == (a: Ink, b: Ink) -> Bool {
    guard a.foreground.raw == b.foreground.raw, a.background.raw == b.background.raw,
      a.attributes.rawValue == b.attributes.rawValue
    else { return false }
    switch (a.token, b.token) {
    case (nil, nil): return true
    case (let x?, let y?): return x == y
    default: return false
    }
  }

  public static let plain = Ink()
  public static func token(_ t: SyntaxToken) -> Ink { Ink(token: t) }
  /// A visible escape (`\e`, `^X`, `<U+202E>`): shown dimmed so it reads as Folio's, not the file's.
  public static let escape = Ink(token: .escape)
}

/// A color a preview asks for: none (the pane's own), one of the 256 palette entries, or RGB.
public struct InkColor: Sendable, Hashable {
  /// 0: none; 1 << 24 | index: palette; 2 << 24 | 0xRRGGBB: RGB.
  public let raw: UInt32

  public static let none = InkColor(raw: 0)
  public static func palette(_ index: UInt8) -> InkColor { InkColor(raw: 1 << 24 | UInt32(index)) }
  public static func rgb(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> InkColor {
    InkColor(raw: 2 << 24 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b))
  }

  public init(raw: UInt32) { self.raw = raw }

  public var isNone: Bool { raw == 0 }
  /// The palette index, when this is one.
  public var paletteIndex: UInt8? { raw >> 24 == 1 ? UInt8(raw & 0xFF) : nil }
  /// The RGB components, when this is RGB.
  public var rgb: (r: UInt8, g: UInt8, b: UInt8)? {
    raw >> 24 == 2 ? (UInt8(raw >> 16 & 0xFF), UInt8(raw >> 8 & 0xFF), UInt8(raw & 0xFF)) : nil
  }

  /// The nearest entry of xterm's 256-color palette (the 6×6×6 cube or the gray ramp): what a
  /// terminal without direct color shows for RGB.
  public var nearestPaletteIndex: UInt8? {
    if let i = paletteIndex { return i }
    guard let (r, g, b) = rgb else { return nil }
    func cube(_ v: UInt8) -> Int { v < 48 ? 0 : v < 115 ? 1 : (Int(v) - 35) / 40 }
    let levels = [0, 95, 135, 175, 215, 255]
    let (cr, cg, cb) = (cube(r), cube(g), cube(b))
    let cubeDistance = Self.distance((levels[cr], levels[cg], levels[cb]), (Int(r), Int(g), Int(b)))
    let average = (Int(r) + Int(g) + Int(b)) / 3
    let grayStep = average > 238 ? 23 : max(0, (average - 3) / 10)
    let grayLevel = 8 + 10 * grayStep
    let grayDistance = Self.distance((grayLevel, grayLevel, grayLevel), (Int(r), Int(g), Int(b)))
    return grayDistance < cubeDistance ? UInt8(232 + grayStep) : UInt8(16 + 36 * cr + 6 * cg + cb)
  }

  private static func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int {
    let dr = a.0 - b.0
    let dg = a.1 - b.1
    let db = a.2 - b.2
    return dr * dr + dg * dg + db * db
  }
}

/// Emphasis a preview may carry (SGR 1, 2, 3, 4, 7).
public struct InkAttributes: OptionSet, Sendable, Hashable {
  public let rawValue: UInt8
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  public static let bold = InkAttributes(rawValue: 1 << 0)
  public static let dim = InkAttributes(rawValue: 1 << 1)
  public static let italic = InkAttributes(rawValue: 1 << 2)
  public static let underline = InkAttributes(rawValue: 1 << 3)
  public static let reverse = InkAttributes(rawValue: 1 << 4)
}

/// What the highlighter found a run to be; the theme gives each its color.
public enum SyntaxToken: String, Sendable, Hashable, CaseIterable {
  case keyword, type, function, string, number, constant, comment, punctuation, `operator`
  /// Markdown headings, a diff's hunk header, a JSON key.
  case heading, key
  /// A diff's added and removed lines.
  case added, removed
  /// A line number or hex offset beside the content.
  case gutter
  /// A byte or character Folio shows as an escape instead of itself.
  case escape
}
