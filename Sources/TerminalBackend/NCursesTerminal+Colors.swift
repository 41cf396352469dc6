import BrowserUI
import CNCursesW

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What one role looks like on this terminal: ncurses attributes and a color pair.
struct RoleAppearance {
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
struct RoleAppearances {
  private var byRole: [StyleRole: RoleAppearance] = [:]
  /// 0 when colors are not used.
  private(set) var colors = 0

  subscript(role: StyleRole) -> RoleAppearance { byRole[role] ?? RoleAppearance(attributes: 0, pair: 0) }

  @MainActor static func allocate(theme: Theme, colorMode: ColorMode) -> RoleAppearances {
    var result = RoleAppearances()
    let noColor = getenv("NO_COLOR").map { $0.pointee != 0 } ?? false
    guard colorMode == .auto, !noColor, has_colors(), start_color() != folio_err() else {
      for role in StyleRole.allCases {
        result.byRole[role] = RoleAppearance(attributes: attributes(theme.monochromeAttributes(for: role)), pair: 0)
      }
      return result
    }
    let hasDefaults = use_default_colors() != folio_err()
    let colors = Int(folio_colors())
    let direct = colors > 256
    let maxPairs = Int(folio_color_pairs())
    result.colors = colors
    var pairs: [PairKey: Int32] = [:]
    for role in StyleRole.allCases {
      let style = theme.style(for: role)
      var fg = number(style.foreground, fallback: style.foreground16, colors: colors, direct: direct) ?? -1
      var bg = number(style.background, fallback: style.background16, colors: colors, direct: direct) ?? -1
      if !hasDefaults {
        if fg < 0 { fg = 7 }
        if bg < 0 { bg = 0 }
      }
      let key = PairKey(foreground: fg, background: bg)
      var pair: Int32 = 0
      if fg == -1 && bg == -1 {
        pair = 0  // the terminal's own colors: pair 0 after use_default_colors
      } else if let existing = pairs[key] {
        pair = existing
      } else if pairs.count + 1 < maxPairs, init_extended_pair(Int32(pairs.count + 1), fg, bg) != folio_err() {
        pair = Int32(pairs.count + 1)
        pairs[key] = pair
      }
      result.byRole[role] = RoleAppearance(attributes: attributes(style.attributes), pair: pair)
    }
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
