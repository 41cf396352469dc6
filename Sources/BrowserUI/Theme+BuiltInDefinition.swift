/// The built-in default-dark theme's definition as Swift values: what decoding
/// `Theme.builtInDefaultDarkText` gives (a test keeps the two equal). A launch without a theme
/// file, or with the installed default-dark.toml unchanged, takes it as it is instead of parsing
/// and checking the TOML: 5 M instructions before the first frame (issue 13, docs/BENCHMARKS.md).
extension ThemeDefinition {
  static let builtInDefaultDark: ThemeDefinition = {
    // "#5fafff", the selection's and the active tab's background.
    let sky = ThemeColor.rgb(red: 0x5f, green: 0xaf, blue: 0xff)
    return ThemeDefinition(roles: [
      .normal: ThemeStylePatch(foreground: .default, background: .default),
      .dim: ThemeStylePatch(foreground: .indexed(244)),
      .header: ThemeStylePatch(foreground: .indexed(255), setAttributes: [.bold]),
      .tabActive: ThemeStylePatch(
        foreground: .indexed(16), background: sky, foreground16: .black, setAttributes: [.bold]),
      .tabInactive: ThemeStylePatch(foreground: .indexed(250), background: .indexed(236)),
      .sidebar: ThemeStylePatch(foreground: .indexed(252), background: .indexed(235)),
      .sidebarHeading: ThemeStylePatch(foreground: .indexed(244), background: .indexed(235), setAttributes: [.bold]),
      .sidebarSelected: ThemeStylePatch(
        foreground: .indexed(255), background: .indexed(239), background16: .brightBlack, setAttributes: [.bold]),
      .sidebarFocused: ThemeStylePatch(
        foreground: .indexed(16), background: sky, foreground16: .black, setAttributes: [.bold]),
      .pathBar: ThemeStylePatch(foreground: .indexed(110), background: .indexed(236), setAttributes: [.bold]),
      .listRow: ThemeStylePatch(foreground: .default),
      .listSelected: ThemeStylePatch(
        foreground: .indexed(16), background: sky, foreground16: .black, setAttributes: [.bold]),
      .listMarked: ThemeStylePatch(foreground: .indexed(221), setAttributes: [.bold]),
      .listSelectedMarked: ThemeStylePatch(
        foreground: .indexed(16), background: .indexed(221), foreground16: .black, setAttributes: [.bold]),
      .listFolder: ThemeStylePatch(foreground: .indexed(75), setAttributes: [.bold]),
      .listDimmed: ThemeStylePatch(foreground: .indexed(242)),
      .columnHeader: ThemeStylePatch(foreground: .indexed(244), setAttributes: [.underline]),
      .status: ThemeStylePatch(foreground: .indexed(252), background: .indexed(236)),
      .statusMessage: ThemeStylePatch(foreground: .indexed(114), background: .indexed(236)),
      .statusError: ThemeStylePatch(
        foreground: .indexed(231), background: .indexed(160), background16: .red, setAttributes: [.bold]),
      .badgeCloud: ThemeStylePatch(foreground: .indexed(117)),
      .badgeDownloading: ThemeStylePatch(foreground: .indexed(75), setAttributes: [.bold]),
      .badgeUploading: ThemeStylePatch(foreground: .indexed(176), foreground16: .magenta, setAttributes: [.bold]),
      .badgeQueued: ThemeStylePatch(foreground: .indexed(244)),
      .badgeError: ThemeStylePatch(foreground: .indexed(203), foreground16: .brightRed, setAttributes: [.bold]),
      .badgeConflict: ThemeStylePatch(foreground: .indexed(214), foreground16: .yellow, setAttributes: [.bold]),
      .badgeShared: ThemeStylePatch(foreground: .indexed(146)),
      .badgePinned: ThemeStylePatch(foreground: .indexed(150)),
      .badgeFavorite: ThemeStylePatch(foreground: .indexed(220)),
      .badgeDecoration: ThemeStylePatch(foreground: .indexed(180)),
      .badgeExcluded: ThemeStylePatch(foreground: .indexed(240)),
      .tagRed: ThemeStylePatch(foreground: .indexed(196)),
      .tagOrange: ThemeStylePatch(foreground: .indexed(208), foreground16: .yellow),
      .tagYellow: ThemeStylePatch(foreground: .indexed(220)),
      .tagGreen: ThemeStylePatch(foreground: .indexed(40)),
      .tagBlue: ThemeStylePatch(foreground: .indexed(33), foreground16: .brightBlue),
      .tagPurple: ThemeStylePatch(foreground: .indexed(135), foreground16: .magenta),
      .tagGray: ThemeStylePatch(foreground: .indexed(245)),
      .tagCustom: ThemeStylePatch(foreground: .indexed(252)),
      .menu: ThemeStylePatch(foreground: .indexed(252), background: .indexed(237)),
      .menuSelected: ThemeStylePatch(
        foreground: .indexed(16), background: sky, foreground16: .black, setAttributes: [.bold]),
      .menuDisabled: ThemeStylePatch(foreground: .indexed(243), background: .indexed(237)),
      .menuBorder: ThemeStylePatch(foreground: .indexed(244), background: .indexed(237)),
      .menuHeading: ThemeStylePatch(foreground: .indexed(255), background: .indexed(237), setAttributes: [.bold]),
      .prompt: ThemeStylePatch(foreground: .indexed(252), background: .indexed(237)),
      .promptInput: ThemeStylePatch(foreground: .indexed(255), background: .indexed(239), background16: .brightBlack),
      .promptLabel: ThemeStylePatch(foreground: .indexed(75), background: .indexed(237), setAttributes: [.bold]),
      .promptBorder: ThemeStylePatch(foreground: .indexed(75), background: .indexed(237)),
      .error: ThemeStylePatch(foreground: .indexed(203), foreground16: .brightRed, setAttributes: [.bold]),
      .help: ThemeStylePatch(foreground: .indexed(252)),
      .helpKey: ThemeStylePatch(foreground: .indexed(221), setAttributes: [.bold]),
      .spinner: ThemeStylePatch(foreground: .indexed(75)),
    ])
  }()
}
