/// How one role looks: colors and emphasis.
///
/// A nil color means "as the theme's `normal` role": a theme that paints its own background sets
/// it once on `normal`, and every role that names only a foreground sits on that background.
/// `.default` means the terminal's own color. `foreground16`/`background16` are optional choices for
/// 8- and 16-color terminals, for when the computed nearest ANSI color is a poor match (a purple
/// that would come out bright blue); they must be ANSI colors (0–15).
public struct ThemeStyle: Sendable, Hashable {
  public var foreground: ThemeColor?
  public var background: ThemeColor?
  public var attributes: CellAttributes
  public var foreground16: ThemeColor?
  public var background16: ThemeColor?

  public init(
    foreground: ThemeColor? = nil, background: ThemeColor? = nil, attributes: CellAttributes = [],
    foreground16: ThemeColor? = nil, background16: ThemeColor? = nil
  ) {
    self.foreground = foreground
    self.background = background
    self.attributes = attributes
    self.foreground16 = foreground16
    self.background16 = background16
  }

  /// The foreground's palette index on a terminal with `colors` colors; nil for the default color.
  public func foregroundIndex(forColors colors: Int) -> Int? {
    Self.index(foreground, fallback: foreground16, colors: colors)
  }

  /// The background's palette index on a terminal with `colors` colors; nil for the default color.
  public func backgroundIndex(forColors colors: Int) -> Int? {
    Self.index(background, fallback: background16, colors: colors)
  }

  private static func index(_ color: ThemeColor?, fallback: ThemeColor?, colors: Int) -> Int? {
    if colors < 256, let fallback {
      return fallback.paletteIndex(forColors: colors)
    }
    return color?.paletteIndex(forColors: colors)
  }
}

/// The colors of every ``StyleRole``, and the emphasis each role gets when there are no colors.
///
/// Views name roles, never colors; the backend asks the theme once, when it allocates its color
/// pairs. `styles` holds what the theme (and the themes it extends) wrote; ``style(for:)`` fills the
/// gaps from `normal`. `monochrome` is used instead of the colors with `NO_COLOR`, on terminals
/// without colors (`TERM=vt100`) and by the `monochrome` theme; a theme may override it, and roles
/// it leaves out use ``defaultMonochrome``. Themes are loaded from TOML files: see
/// ``load(named:searchPaths:)`` and Themes/default-dark.toml.
public struct Theme: Sendable, Equatable {
  /// The name it was asked for (`default-dark`), or the file's base name.
  public var name: String
  /// Where it was read from: a path, or `built-in`.
  public var source: String
  /// The styles the theme defines, merged along its `extends` chain.
  public var styles: [StyleRole: ThemeStyle]
  /// Emphasis without colors, for the roles the theme overrides.
  public var monochrome: [StyleRole: CellAttributes]

  public init(
    name: String, source: String = "built-in", styles: [StyleRole: ThemeStyle],
    monochrome: [StyleRole: CellAttributes] = [:]
  ) {
    self.name = name
    self.source = source
    self.styles = styles
    self.monochrome = monochrome
  }

  /// The style of `role` with every color filled in: a role the theme does not define looks like
  /// `normal`, a missing color is `normal`'s (and `.default` when `normal` has none either).
  public func style(for role: StyleRole) -> ThemeStyle {
    let normal = styles[.normal] ?? ThemeStyle()
    var s = styles[role] ?? normal
    if s.foreground == nil {
      s.foreground = normal.foreground ?? .default
      if s.foreground16 == nil { s.foreground16 = normal.foreground16 }
    }
    if s.background == nil {
      s.background = normal.background ?? .default
      if s.background16 == nil { s.background16 = normal.background16 }
    }
    return s
  }

  public subscript(role: StyleRole) -> ThemeStyle { style(for: role) }

  /// The emphasis of `role` on a terminal without colors.
  public func monochromeAttributes(for role: StyleRole) -> CellAttributes {
    monochrome[role] ?? Self.defaultMonochrome[role] ?? []
  }

  /// Emphasis that keeps every role recognizable without colors: selection in reverse video,
  /// headings bold, secondary text dim. Themes/monochrome.toml spells out the same values.
  public static let defaultMonochrome: [StyleRole: CellAttributes] = [
    .normal: [], .dim: [.dim], .header: [.bold],
    .tabActive: [.reverse, .bold], .tabInactive: [],
    .sidebar: [], .sidebarHeading: [.bold], .sidebarSelected: [.reverse], .sidebarFocused: [.reverse, .bold],
    .pathBar: [.bold],
    .listRow: [], .listSelected: [.reverse], .listMarked: [.bold, .underline],
    .listSelectedMarked: [.reverse, .bold, .underline], .listFolder: [.bold], .listDimmed: [.dim],
    .columnHeader: [.underline],
    .status: [.reverse], .statusMessage: [.reverse, .bold], .statusError: [.reverse, .bold, .underline],
    .badgeCloud: [], .badgeDownloading: [.bold], .badgeUploading: [.bold], .badgeQueued: [.dim],
    .badgeError: [.bold], .badgeConflict: [.bold], .badgeShared: [], .badgePinned: [],
    .badgeFavorite: [.bold], .badgeDecoration: [], .badgeExcluded: [.dim],
    .tagRed: [.bold], .tagOrange: [.bold], .tagYellow: [.bold], .tagGreen: [.bold], .tagBlue: [.bold],
    .tagPurple: [.bold], .tagGray: [.dim], .tagCustom: [],
    .menu: [], .menuSelected: [.reverse], .menuDisabled: [.dim], .menuBorder: [], .menuHeading: [.bold],
    .prompt: [], .promptInput: [.underline], .promptLabel: [.bold], .promptBorder: [],
    .error: [.bold],
    .help: [], .helpKey: [.bold],
    .spinner: [.bold],
  ]
}

extension StyleRole {
  /// The role's key in a theme file: `listSelected` → `list-selected`.
  ///
  /// The raw values are ASCII identifiers, so the key is made from their bytes: a theme's load
  /// looks up every role it names, and `Character.isUppercase` with `lowercased()` per character,
  /// over every role for each name, was 14 M instructions of a launch (docs/BENCHMARKS.md, issue 13).
  public var themeKey: String {
    var key: [UInt8] = []
    key.reserveCapacity(rawValue.utf8.count + 4)
    for byte in rawValue.utf8 {
      if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") {
        key.append(UInt8(ascii: "-"))
        key.append(byte + 32)
      } else {
        key.append(byte)
      }
    }
    return String(decoding: key, as: UTF8.self)
  }

  /// Every role by its theme-file key, made once.
  private static let byThemeKey: [String: StyleRole] = Dictionary(
    uniqueKeysWithValues: allCases.map { ($0.themeKey, $0) })

  /// The role a theme file names, or nil.
  public init?(themeKey: String) {
    guard let role = StyleRole.byThemeKey[themeKey] else { return nil }
    self = role
  }
}

extension CellAttributes {
  /// The attribute names theme files use, in the order they are written back.
  public static let themeNames: [(name: String, attribute: CellAttributes)] = [
    ("bold", .bold), ("dim", .dim), ("underline", .underline), ("reverse", .reverse),
  ]
}
