import BrowserUI
import CNCursesW
import PreviewKit

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What one role looks like on this terminal: ncurses attributes and a color pair.
struct RoleAppearance: Equatable {
  var attributes: attr_t
  var pair: Int32
}

/// Every role's appearance, decided once when the terminal is taken.
///
/// Colors are used when the mode is `.auto`, `NO_COLOR` is unset or empty and the terminal has
/// them. Each role's (foreground, background) becomes a color pair, shared by roles that agree:
/// - 256 colors or more: ANSI names and indexes as written, `#rrggbb` as its nearest palette entry;
/// - direct color (`*-direct` terminfo, COLORS = 2^24): `#rrggbb` exactly, indexes as xterm's RGB;
/// - 8 or 16 colors: the theme's `fg16`/`bg16`, else the nearest ANSI color;
/// - the terminal's default color is -1 after `use_default_colors`, else white on black.
/// Without colors every role gets the theme's monochrome emphasis instead of its colors.
///
/// A cell on another role's background (`Cell.background`: a tag's dot on a sidebar row) takes the
/// foreground and emphasis of its role, the background of the other, and the emphasis of both
/// without colors (a dot on a selected row stays reversed); its pair is made the first time it is
/// drawn, and falls back to the role's own when the terminal has no pair left.
struct RoleAppearances {
  private var byRole: [StyleRole: RoleAppearance] = [:]
  /// Pairs made so far, by (foreground, background) color.
  private var pairs: [PairKey: Int32] = [:]
  private var combined: [Combination: RoleAppearance] = [:]
  private var theme: Theme?
  private var hasDefaults = true
  private var maxPairs = 0
  /// 0 when colors are not used.
  private(set) var colors = 0

  subscript(role: StyleRole) -> RoleAppearance { byRole[role] ?? RoleAppearance(attributes: 0, pair: 0) }

  private struct Combination: Hashable {
    var role: StyleRole
    var background: StyleRole
  }

  /// The appearance of `role` on `background`'s background.
  mutating func appearance(of role: StyleRole, on background: StyleRole?) -> RoleAppearance {
    guard let background, background != role else { return self[role] }
    let key = Combination(role: role, background: background)
    if let known = combined[key] { return known }
    var result = self[role]
    if let theme, colors > 0 {
      let fg = theme.style(for: role)
      let bg = theme.style(for: background)
      let direct = colors > 256
      result.attributes = Self.attributes(fg.attributes)
      var foreground = Self.number(fg.foreground, fallback: fg.foreground16, colors: colors, direct: direct)
      let backgroundColor = Self.number(bg.background, fallback: bg.background16, colors: colors, direct: direct)
      // A mark in the very color of the row under it would vanish (default-dark's ↓ n% and light's
      // on the selected row, high-contrast's star): it takes the row's own foreground instead.
      if foreground != nil, foreground == backgroundColor {
        foreground = Self.number(bg.foreground, fallback: bg.foreground16, colors: colors, direct: direct)
      }
      result.pair = pair(foreground: foreground, background: backgroundColor) ?? result.pair
    } else if let theme {
      result.attributes = Self.attributes(theme.monochromeAttributes(for: role).union(theme.monochromeAttributes(for: background)))
    }
    combined[key] = result
    return result
  }

  private struct Inked: Hashable {
    var role: StyleRole
    var ink: Ink
  }
  private var inked: [Inked: RoleAppearance] = [:]
  /// Pairs made for the roles, before any preview asked for one: those are never recycled.
  private var rolePairs = 0

  /// The appearance of preview content: `role`'s, with the ink's colors and emphasis over it.
  ///
  /// A picture asks for a pair per cell (its two pixels), so over a session the pairs run out:
  /// ``recycleInkPairs(keeping:)`` gives them back between frames.
  mutating func appearance(of role: StyleRole, ink: Ink) -> RoleAppearance {
    let key = Inked(role: role, ink: ink)
    if let known = inked[key] { return known }
    var result = self[role]
    var emphasis = ink.attributes
    if ink.token == .escape { emphasis.insert(.reverse) }
    if colors == 0 || theme == nil {
      // No colors: emphasis carries what color would (comments dim, keywords and headings bold).
      switch ink.token {
      case .comment?, .gutter?: emphasis.insert(.dim)
      case .keyword?, .heading?: emphasis.insert(.bold)
      default: break
      }
      result.attributes |= Self.inkAttributes(emphasis)
      inked[key] = result
      return result
    }
    let style = theme!.style(for: role)
    let direct = colors > 256
    var foreground = Self.number(style.foreground, fallback: style.foreground16, colors: colors, direct: direct)
    var background = Self.number(style.background, fallback: style.background16, colors: colors, direct: direct)
    if let token = ink.token, let color = Self.color(of: token) {
      foreground = Self.number(color, fallback: nil, colors: colors, direct: direct)
    }
    if !ink.foreground.isNone { foreground = Self.number(Self.themeColor(ink.foreground, colors: colors), fallback: nil, colors: colors, direct: direct) }
    if !ink.background.isNone { background = Self.number(Self.themeColor(ink.background, colors: colors), fallback: nil, colors: colors, direct: direct) }
    result.attributes |= Self.inkAttributes(emphasis)
    result.pair = pair(foreground: foreground, background: background) ?? result.pair
    inked[key] = result
    return result
  }

  /// Before a frame that may need `needed` new pairs: when fewer are left, the preview's pairs are
  /// forgotten and made again from the first one after the roles' (ncurses redraws the cells of a
  /// pair it redefines; every preview cell of the frame is drawn with its new pair anyway).
  mutating func recycleInkPairs(ifFewerThan needed: Int) {
    guard colors > 0, maxPairs - pairs.count - 1 < needed, pairs.count > rolePairs else { return }
    let kept = pairs.filter { $0.value <= Int32(rolePairs) }
    pairs = kept
    inked = [:]
    combined = combined.filter { $0.value.pair <= Int32(rolePairs) }
  }

  /// Pairs made so far: fewer after a frame than before it means they were recycled, and what
  /// is on the terminal was drawn with pairs that now mean other colors.
  var pairsInUse: Int { pairs.count }

  /// The palette color a syntax token is drawn in: the ANSI colors, which every terminal's own
  /// palette keeps readable on its background (a light theme included); nil keeps the role's.
  static func color(of token: SyntaxToken) -> ThemeColor? {
    switch token {
    case .keyword: return .magenta
    case .type: return .yellow
    case .function: return .blue
    case .string: return .green
    case .number, .constant: return .cyan
    case .comment, .gutter: return .brightBlack
    case .heading, .key: return .blue
    case .added: return .green
    case .removed: return .red
    case .punctuation, .operator, .escape: return nil
    }
  }

  /// An ink's color as a theme color: RGB stays RGB on a direct-color terminal and becomes the
  /// nearest of the 256 elsewhere (a picture in 256 colours).
  static func themeColor(_ color: InkColor, colors: Int) -> ThemeColor? {
    if let i = color.paletteIndex { return .indexed(i) }
    if let (r, g, b) = color.rgb {
      if colors > 256 { return .rgb(red: r, green: g, blue: b) }
      return color.nearestPaletteIndex.map { .indexed($0) }
    }
    return nil
  }

  /// A preview's emphasis as the UI's (italic has no ncurses attribute every terminal shows).
  static func inkAttributes(_ a: InkAttributes) -> attr_t {
    let pairs: [(InkAttributes, CellAttributes)] = [(.bold, .bold), (.reverse, .reverse), (.underline, .underline), (.dim, .dim)]
    return attributes(CellAttributes(pairs.filter { a.contains($0.0) }.map(\.1)))
  }

  /// The pair of two colors (nil: the terminal's default), made if new; nil when none is left.
  private mutating func pair(foreground: Int32?, background: Int32?) -> Int32? {
    var fg = foreground ?? -1
    var bg = background ?? -1
    if !hasDefaults {
      if fg < 0 { fg = 7 }
      if bg < 0 { bg = 0 }
    }
    if fg == -1 && bg == -1 { return 0 }  // the terminal's own colors: pair 0 after use_default_colors
    let key = PairKey(foreground: fg, background: bg)
    if let existing = pairs[key] { return existing }
    guard pairs.count + 1 < maxPairs, init_extended_pair(Int32(pairs.count + 1), fg, bg) != folio_err() else { return nil }
    let made = Int32(pairs.count + 1)
    pairs[key] = made
    return made
  }

  @MainActor static func allocate(theme: Theme, colorMode: ColorMode) -> RoleAppearances {
    var result = RoleAppearances()
    result.theme = theme
    let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
    guard colorMode == .auto, !noColor, has_colors(), start_color() != folio_err() else {
      for role in StyleRole.allCases {
        result.byRole[role] = RoleAppearance(attributes: attributes(theme.monochromeAttributes(for: role)), pair: 0)
      }
      return result
    }
    result.hasDefaults = use_default_colors() != folio_err()
    let colors = Int(folio_colors())
    let direct = colors > 256
    result.maxPairs = Int(folio_color_pairs())
    result.colors = colors
    for role in StyleRole.allCases {
      let style = theme.style(for: role)
      let pair = result.pair(
        foreground: number(style.foreground, fallback: style.foreground16, colors: colors, direct: direct),
        background: number(style.background, fallback: style.background16, colors: colors, direct: direct))
      result.byRole[role] = RoleAppearance(attributes: attributes(style.attributes), pair: pair ?? 0)
    }
    result.rolePairs = result.pairs.count
    return result
  }

  private struct PairKey: Hashable {
    var foreground: Int32
    var background: Int32
  }

  /// The ncurses color number of a theme color; nil for the terminal's default.
  private static func number(_ color: ThemeColor?, fallback: ThemeColor?, colors: Int, direct: Bool) -> Int32? {
    guard let color else { return nil }
    if direct {
      if case .default = color { return nil }
      // Direct-color terminfo sends 0–7 as the ANSI palette and anything else as 0xRRGGBB.
      if let index = color.paletteIndex, index < 8 { return Int32(index) }
      guard let c = color.rgbValue else { return nil }
      return max(8, Int32(c.red) << 16 | Int32(c.green) << 8 | Int32(c.blue))
    }
    let style = ThemeStyle(foreground: color, foreground16: fallback)
    return style.foregroundIndex(forColors: colors).map(Int32.init)
  }

  static func attributes(_ a: CellAttributes) -> attr_t {
    var result = folio_a_normal()
    if a.contains(.bold) { result |= folio_a_bold() }
    if a.contains(.reverse) { result |= folio_a_reverse() }
    if a.contains(.underline) { result |= folio_a_underline() }
    if a.contains(.dim) { result |= folio_a_dim() }
    return result
  }
}
