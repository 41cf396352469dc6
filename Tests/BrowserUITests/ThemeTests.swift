import Foundation
import Testing

@testable import BrowserUI

/// The repository's Themes/ directory, found from this file's path.
private let repositoryThemes: String = {
  var url = URL(fileURLWithPath: #filePath)
  for _ in 0..<3 { url.deleteLastPathComponent() }
  return url.appendingPathComponent("Themes").path
}()

/// A fresh directory for theme files; removed by the caller.
private func temporaryDirectory() throws -> String {
  let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-theme-\(UUID().uuidString)").path
  try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
  return dir
}

private func write(_ text: String, to dir: String, as name: String) throws {
  try text.write(toFile: dir + "/" + name + ".toml", atomically: true, encoding: .utf8)
}

/// The one-line message `Theme.load` throws for `text` saved as `<dir>/bad.toml`.
private func loadError(_ text: String, others: [String: String] = [:]) throws -> String? {
  let dir = try temporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: dir) }
  try write(text, to: dir, as: "bad")
  for (name, other) in others { try write(other, to: dir, as: name) }
  do {
    _ = try Theme.load(named: "bad", searchPaths: [dir])
    return nil
  } catch {
    return error.description.replacingOccurrences(of: dir + "/", with: "")
  }
}

@Suite struct ThemeTests {
  static let shipped = ["default-dark", "light", "high-contrast", "monochrome"]

  // MARK: Shipped themes

  @Test(arguments: shipped)
  func shippedThemeLoadsAndDefinesEveryRole(name: String) throws {
    let theme = try Theme.load(named: name, searchPaths: [repositoryThemes])
    #expect(theme.source == repositoryThemes + "/" + name + ".toml")
    let missing = StyleRole.allCases.filter { theme.styles[$0] == nil }.map(\.themeKey)
    #expect(missing.isEmpty, "\(name).toml does not define: \(missing.joined(separator: ", "))")
    for role in StyleRole.allCases {
      let style = theme.style(for: role)
      #expect(style.foreground != nil && style.background != nil)
    }
  }

  @Test(arguments: shipped)
  func shippedThemeIsSelfContained(name: String) throws {
    let text = try String(contentsOfFile: repositoryThemes + "/" + name + ".toml", encoding: .utf8)
    let definition = try ThemeLocation.decode(text, file: name)
    #expect(definition.extends == nil)
    #expect(definition.roles.count == StyleRole.allCases.count)
  }

  /// docs/config.example.toml named a "default-light" theme that never existed: every name its
  /// `theme` paragraph quotes must load, from the built-ins or the shipped Themes folder.
  @Test func everyThemeTheExampleConfigNamesExists() throws {
    let example = URL(fileURLWithPath: repositoryThemes).deletingLastPathComponent()
      .appendingPathComponent("docs/config.example.toml")
    let lines = try String(contentsOf: example, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    let start = try #require(lines.firstIndex { $0.hasPrefix("# theme:") })
    let end = try #require(lines[start...].firstIndex { $0.hasPrefix("theme =") })
    let paragraph = lines[start...end].joined(separator: "\n")
    let names = paragraph.matches(of: /"([a-z0-9][a-z0-9-]*)"/).map { String($0.output.1) }
    #expect(Set(names).isSuperset(of: Theme.builtInNames + Self.shipped), "\(paragraph)")
    for name in Set(names) {
      #expect(throws: Never.self, "\(name)") { try Theme.load(named: name, searchPaths: [repositoryThemes]) }
    }
  }

  @Test func builtInDefaultDarkIsTheShippedFile() throws {
    let text = try String(contentsOfFile: repositoryThemes + "/default-dark.toml", encoding: .utf8)
    #expect(Theme.builtInDefaultDarkText == text, "copy Themes/default-dark.toml into Theme+BuiltIn.swift")
    let shipped = try Theme.load(named: "default-dark", searchPaths: [repositoryThemes])
    #expect(Theme.builtInDefaultDark.styles == shipped.styles)
    #expect(Theme.builtInDefaultDark.source == "<built-in default-dark>")
  }

  /// The built-in default-dark as Swift values (what a launch takes without parsing) is exactly
  /// what its TOML text decodes to.
  @Test func builtInDefinitionIsTheDecodedText() throws {
    let decoded = try ThemeLocation.decode(Theme.builtInDefaultDarkText, file: "default-dark.toml")
    #expect(decoded.roles == ThemeDefinition.builtInDefaultDark.roles)
    #expect(decoded.monochrome == ThemeDefinition.builtInDefaultDark.monochrome)
    #expect(decoded.extends == nil && ThemeDefinition.builtInDefaultDark.extends == nil)
    // An installed copy of the file, unchanged, is taken as the built-in definition.
    let bytes = Array(Theme.builtInDefaultDarkText.utf8)
    let installed = try ThemeLocation.file(path: "/usr/share/folio/themes/default-dark.toml", bytes: bytes).definition()
    #expect(installed.roles == decoded.roles)
  }

  @Test func builtInThemesNeedNoFiles() throws {
    let dark = try Theme.load(named: "default-dark", searchPaths: ["/nonexistent"])
    #expect(dark.styles.count == StyleRole.allCases.count)
    let mono = try Theme.load(named: "monochrome", searchPaths: [])
    #expect(mono.source == "<built-in monochrome>")
    let reversed = ThemeStyle(foreground: .default, background: .default, attributes: [.reverse])
    #expect(mono.style(for: .listSelected) == reversed)
  }

  @Test func monochromeFileSpellsOutTheDefaultMonochromeEmphasis() throws {
    let theme = try Theme.load(named: "monochrome", searchPaths: [repositoryThemes])
    for role in StyleRole.allCases {
      let style = theme.style(for: role)
      #expect(style.foreground == .default && style.background == .default, "\(role.themeKey)")
      #expect(style.attributes == Theme.defaultMonochrome[role], "\(role.themeKey)")
      #expect(theme.monochromeAttributes(for: role) == Theme.defaultMonochrome[role])
    }
    #expect(Set(Theme.defaultMonochrome.keys) == Set(StyleRole.allCases))
  }

  @Test func darkThemeValues() throws {
    let theme = try Theme.load(named: "default-dark", searchPaths: [repositoryThemes])
    let selected = theme.style(for: .listSelected)
    #expect(selected.foreground == .indexed(16))
    #expect(selected.background == .rgb(red: 0x5f, green: 0xaf, blue: 0xff))
    #expect(selected.attributes == [.bold])
    #expect(selected.backgroundIndex(forColors: 256) == 75)
    #expect(selected.foregroundIndex(forColors: 16) == 0)  // fg16 = "black"
    #expect(theme.style(for: .tagOrange).foregroundIndex(forColors: 256) == 208)
    #expect(theme.style(for: .tagPurple).foregroundIndex(forColors: 16) == 5)
    // A role without a background sits on normal's: the terminal's own.
    #expect(theme.style(for: .listFolder).background == .default)
    #expect(theme.style(for: .listFolder).backgroundIndex(forColors: 256) == nil)
  }

  @Test func lightThemeRolesInheritItsBackground() throws {
    let theme = try Theme.load(named: "light", searchPaths: [repositoryThemes])
    #expect(theme.style(for: .listFolder).background == .indexed(231))
    #expect(theme.style(for: .listFolder).backgroundIndex(forColors: 16) == 15)  // normal's bg16
    #expect(theme.style(for: .tagRed).background == .indexed(231))
  }

  // MARK: Search paths

  @Test func searchPathsFollowXDGThenTheExecutable() {
    let env = [
      "HOME": "/home/u", "XDG_CONFIG_HOME": "/cfg", "XDG_DATA_DIRS": "/opt/share:relative:/usr/share/",
    ]
    let paths = Theme.searchPaths(environment: env, executablePath: "/opt/folio/bin/folio")
    #expect(
      paths == [
        "/cfg/folio/themes", "/home/u/.local/share/folio/themes", "/opt/share/folio/themes",
        "/usr/share/folio/themes", "/opt/folio/share/folio/themes",
      ])
  }

  @Test func searchPathsDefaults() {
    let paths = Theme.searchPaths(environment: ["HOME": "/home/u", "XDG_CONFIG_HOME": ""], executablePath: nil)
    #expect(
      paths == [
        "/home/u/.config/folio/themes", "/home/u/.local/share/folio/themes", "/usr/local/share/folio/themes",
        "/usr/share/folio/themes",
      ])
  }

  @Test func searchPathsFindTheSourceTreeAboveTheExecutable() {
    let root = URL(fileURLWithPath: repositoryThemes).deletingLastPathComponent().path
    let executable = root + "/.build/x86_64-unknown-linux-gnu/debug/folio"
    let paths = Theme.searchPaths(environment: [:], executablePath: executable)
    #expect(paths.last == repositoryThemes)
    #expect(paths.contains(root + "/.build/x86_64-unknown-linux-gnu/share/folio/themes"))
    // This test process runs from .build too.
    #expect(Theme.defaultSearchPaths().contains(repositoryThemes))
  }

  @Test func availableThemesListsFilesAndBuiltIns() {
    let names = Theme.availableThemes(searchPaths: [repositoryThemes, "/nonexistent"])
    #expect(names == ["default-dark", "high-contrast", "light", "monochrome"])
    #expect(Theme.availableThemes(searchPaths: []) == ["default-dark", "monochrome"])
  }

  // MARK: Extends

  @Test func extendsChangesOnlyWhatTheChildWrites() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try write(
      """
      extends = "default-dark"
      [roles]
      list-selected = { bg = "#ff0000" }
      tag-purple = { fg = 99 }
      normal.bold = true
      """, to: dir, as: "mine")
    let theme = try Theme.load(named: "mine", searchPaths: [dir, repositoryThemes])
    let base = try Theme.load(named: "default-dark", searchPaths: [repositoryThemes])
    #expect(theme.name == "mine")
    #expect(theme.style(for: .listSelected).background == .rgb(red: 255, green: 0, blue: 0))
    #expect(theme.style(for: .listSelected).foreground == .indexed(16))
    #expect(theme.style(for: .listSelected).attributes == [.bold])
    // A new foreground drops the parent's fg16, chosen for the old color.
    #expect(theme.style(for: .tagPurple).foreground16 == nil)
    #expect(theme.style(for: .normal).attributes == [.bold])
    #expect(theme.style(for: .tagRed) == base.style(for: .tagRed))
  }

  @Test func aUserThemeCanShadowAndExtendTheShippedOneOfTheSameName() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try write("extends = \"default-dark\"\n[roles]\nerror = \"red\"\n", to: dir, as: "default-dark")
    let theme = try Theme.load(named: "default-dark", searchPaths: [dir, repositoryThemes])
    #expect(theme.style(for: .error).foreground == .red)
    #expect(theme.style(for: .error).attributes == [.bold])
    #expect(theme.styles.count == StyleRole.allCases.count)
    // With no shipped file, the built-in copy is the parent.
    let alone = try Theme.load(named: "default-dark", searchPaths: [dir])
    #expect(alone.style(for: .listSelected) == theme.style(for: .listSelected))
  }

  @Test func extendsMonochromeTable() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    try write("extends = \"light\"\n[monochrome]\nlist-selected = [\"underline\", \"bold\"]\n", to: dir, as: "m")
    let theme = try Theme.load(named: "m", searchPaths: [dir, repositoryThemes])
    #expect(theme.monochromeAttributes(for: .listSelected) == [.underline, .bold])
    #expect(theme.monochromeAttributes(for: .menuSelected) == [.reverse])
  }

  @Test func parsesTextThatExtendsAShippedTheme() throws {
    let theme = try Theme.parse(
      "extends = \"light\"\n[roles]\nerror = { fg = \"#ff0000\" }\n", file: "mine.toml",
      searchPaths: [repositoryThemes])
    #expect(theme.name == "mine")
    #expect(theme.style(for: .error).foreground == .rgb(red: 255, green: 0, blue: 0))
    #expect(theme.style(for: .error).background == .indexed(231))
    #expect(throws: ThemeError.self) { try Theme.parse("extends = \"nope\"\n", file: "x.toml", searchPaths: []) }
  }

  @Test func aPathLoadsAFileDirectly() throws {
    let theme = try Theme.load(named: repositoryThemes + "/light.toml", searchPaths: [])
    #expect(theme.name == "light")
    #expect(theme.styles.count == StyleRole.allCases.count)
  }

  // MARK: Errors: file:line: key: what

  @Test func unknownRoleSuggestsTheNearestName() throws {
    let text = """
      # my theme
      [roles]
      normal = { fg = "white" }
      list-selectd = { fg = "black" }
      """
    #expect(try loadError(text) == "bad.toml:4: roles.list-selectd: unknown role (did you mean \"list-selected\"?)")
    #expect(
      try loadError("[roles]\nlistSelected = \"red\"\n")
        == "bad.toml:2: roles.listSelected: unknown role (did you mean \"list-selected\"?)")
    let far = try #require(try loadError("[roles]\n\nwidget = \"red\"\n"))
    #expect(far.hasPrefix("bad.toml:3: roles.widget: unknown role (roles are: normal, dim, header,"))
  }

  @Test func theFirstErrorInFileOrderIsReported() throws {
    let text = "[roles]\nzzz-first = 1\naaa-second = 2\n"
    #expect(try loadError(text)?.hasPrefix("bad.toml:2: roles.zzz-first: unknown role") == true)
  }

  @Test func aNULCharacterIsRefusedWithItsLine() throws {
    let error = try #require(try loadError("[roles]\nnormal = \"red\"\n# \u{0}\n"))
    #expect(error.hasPrefix("bad.toml:3:") && error.contains("NUL character"), "\(error)")
    // A NUL before any newline, after a multi-byte character: still line 1.
    #expect(try loadError("# é\u{0}\n")?.hasPrefix("bad.toml:1:") == true)
  }

  @Test func badValuesNameTheirKey() throws {
    #expect(
      try loadError("[roles]\nerror = { fg = \"orange\" }\n")
        == "bad.toml:2: roles.error.fg: unknown color \"orange\" (did you mean 208?)")
    #expect(
      try loadError("[roles]\nerror = { fg = \"bright-whte\" }\n")
        == "bad.toml:2: roles.error.fg: unknown color \"bright-whte\" (did you mean \"bright-white\"?)")
    #expect(
      try loadError("[roles]\nerror = { bg = \"#12345\" }\n")
        == "bad.toml:2: roles.error.bg: unknown color \"#12345\" (expected #rrggbb with six hexadecimal digits)")
    #expect(
      try loadError("[roles]\nerror = { fg = 300 }\n")
        == "bad.toml:2: roles.error.fg: palette index 300 is out of range (0-255)")
    #expect(
      try loadError("[roles]\nerror = { bold = \"yes\" }\n")
        == "bad.toml:2: roles.error.bold: expected true or false, found the string \"yes\"")
    #expect(
      try loadError("[roles]\nerror = { fg16 = 208 }\n")
        == "bad.toml:2: roles.error.fg16: expected one of the 16 ANSI colors (a name such as \"magenta\" or 0-15), found 208")
    #expect(
      try loadError("[roles]\nerror = { foreground = \"red\" }\n")
        == "bad.toml:2: roles.error.foreground: unknown key (did you mean \"fg\"?)")
    #expect(
      try loadError("[roles]\nerror = { italic = true }\n")
        == "bad.toml:2: roles.error.italic: unknown key (expected one of: fg, bg, fg16, bg16, bold, dim, underline, reverse)")
    #expect(
      try loadError("[roles]\nerror = true\n")
        == "bad.toml:2: roles.error: expected a table such as { fg = \"black\", bg = \"#5fafff\", bold = true } or a color, found true")
    #expect(
      try loadError("[monochrome]\nerror = [\"blink\"]\n")
        == "bad.toml:2: monochrome.error: unknown attribute \"blink\" (expected: bold, dim, underline, reverse)")
  }

  @Test func perRoleTablesReportTheKeyLine() throws {
    let text = """
      [roles.list-selected]
      fg = "black"
      bg = "blu"
      """
    #expect(try loadError(text) == "bad.toml:3: roles.list-selected.bg: unknown color \"blu\" (did you mean \"blue\"?)")
  }

  @Test func rolesOutsideTheRolesTable() throws {
    #expect(
      try loadError("list-selected = { fg = \"black\" }\n")
        == "bad.toml:1: list-selected: a role belongs in the [roles] table (write [roles] on a line above it)")
    #expect(try loadError("extend = \"light\"\n") == "bad.toml:1: extend: unknown key (did you mean \"extends\"?)")
    #expect(try loadError("roles = 3\n") == "bad.toml:1: roles: expected a table ([roles]), found the integer 3")
  }

  @Test func syntaxErrorsHaveLineAndColumn() throws {
    let message = try #require(try loadError("[roles]\nerror = { fg = \"red\" \n"))
    #expect(message.hasPrefix("bad.toml:2:"))
    #expect(message.contains("syntax error"))
    #expect(!message.contains("\n"))
  }

  @Test func extendsErrors() throws {
    let missing = try #require(try loadError("\nextends = \"solarized\"\n"))
    #expect(missing.hasPrefix("bad.toml:2: extends: theme \"solarized\" not found (looked for solarized.toml in "))
    #expect(missing.hasSuffix("available: bad, default-dark, monochrome)"))
    #expect(
      try loadError("extends = \"other\"\n", others: ["other": "extends = \"bad\"\n"])
        == "other.toml:1: extends: \"bad\" leads back to a theme already in the chain (bad → other → bad)")
    // An error in a parent names the parent's file.
    #expect(
      try loadError("extends = \"other\"\n", others: ["other": "[roles]\nerorr = 1\n"])
        == "other.toml:2: roles.erorr: unknown role (did you mean \"error\"?)")
  }

  @Test func notFoundListsWhereItLookedAndWhatExists() {
    #expect(throws: ThemeError.self) { try Theme.load(named: "nope", searchPaths: [repositoryThemes]) }
    do {
      _ = try Theme.load(named: "nope", searchPaths: [repositoryThemes])
    } catch {
      #expect(
        error.description
          == "theme \"nope\" not found (looked for nope.toml in \(repositoryThemes); available: default-dark, high-contrast, light, monochrome)"
      )
    }
  }

  @Test func invalidUTF8IsReportedWithItsLine() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: dir) }
    let bytes: [UInt8] = Array("[roles]\nerror = \"".utf8) + [0xff] + Array("\"\n".utf8)
    FileManager.default.createFile(atPath: dir + "/u.toml", contents: Data(bytes))
    #expect(throws: ThemeError(file: dir + "/u.toml", line: 2, key: nil, reason: "the theme is not valid UTF-8 text")) {
      try Theme.load(named: "u", searchPaths: [dir])
    }
  }

  // MARK: Colors

  @Test(arguments: [
    ("default", ThemeColor.default), ("red", .red), ("bright-white", .brightWhite), ("brightWhite", .brightWhite),
    ("BRIGHT_BLACK", .brightBlack), ("208", .indexed(208)), ("#5fafff", .rgb(red: 0x5f, green: 0xaf, blue: 0xff)),
    ("#FA0", .rgb(red: 0xff, green: 0xaa, blue: 0)),
  ])
  func parsesColors(text: String, color: ThemeColor) {
    #expect(ThemeColor(text) == color)
  }

  @Test(arguments: ["", "orange", "256", "-1", "#12345", "#gggggg", "bright"])
  func rejectsColors(text: String) {
    #expect(ThemeColor(text) == nil)
  }

  @Test func descriptionsRoundTrip() {
    for color in [ThemeColor.default, .brightMagenta, .indexed(99), .rgb(red: 1, green: 2, blue: 255)] {
      #expect(ThemeColor(color.description) == color)
    }
    #expect(ThemeColor.rgb(red: 0x5f, green: 0xaf, blue: 0xff).description == "#5fafff")
  }

  @Test func nearest256() {
    #expect(ThemeColor("#ff8700")?.nearest256 == 208)
    #expect(ThemeColor("#5fafff")?.nearest256 == 75)
    #expect(ThemeColor("#000000")?.nearest256 == 16)
    #expect(ThemeColor("#ffffff")?.nearest256 == 231)
    #expect(ThemeColor("#808080")?.nearest256 == 244)  // the gray ramp beats the cube
    #expect(ThemeColor("#ff3b30")?.nearest256 == 203)  // Finder red
    #expect(ThemeColor.red.nearest256 == 1)  // ANSI names keep the user's palette
    #expect(ThemeColor.indexed(123).nearest256 == 123)
    #expect(ThemeColor.default.nearest256 == nil)
  }

  @Test func nearest16And8() {
    #expect(ThemeColor.indexed(196).nearest16 == 9)  // bright red
    #expect(ThemeColor.indexed(196).nearest8 == 1)  // red
    #expect(ThemeColor.indexed(208).nearest16 == 3)  // orange → yellow
    #expect(ThemeColor.indexed(245).nearest16 == 8)  // gray → bright black
    #expect(ThemeColor.indexed(245).nearest8 == 7)  // … → white on 8 colors
    #expect(ThemeColor.indexed(244).nearest8 == 7)  // grays stay gray (not xterm's nearer yellow)
    #expect(ThemeColor.indexed(236).nearest16 == 0)
    #expect(ThemeColor.indexed(252).nearest16 == 7)
    #expect(ThemeColor("#5fafff")?.nearest16 == 12)
    #expect(ThemeColor.brightRed.nearest16 == 9)
    #expect(ThemeColor.brightRed.nearest8 == 1)
    #expect(ThemeColor.indexed(4).nearest16 == 4)
    #expect(ThemeColor.default.nearest16 == nil)
  }

  @Test func styleIndexesPreferTheThemesSixteenColorChoice() {
    let style = ThemeStyle(
      foreground: .indexed(135), background: .rgb(red: 0, green: 0, blue: 0), foreground16: .magenta)
    #expect(style.foregroundIndex(forColors: 256) == 135)
    #expect(style.foregroundIndex(forColors: 16) == 5)
    #expect(style.foregroundIndex(forColors: 8) == 5)
    #expect(style.backgroundIndex(forColors: 256) == 16)
    #expect(style.backgroundIndex(forColors: 16) == 0)
    #expect(ThemeStyle(foreground: .brightMagenta, foreground16: .brightMagenta).foregroundIndex(forColors: 8) == 5)
  }

  @Test func roleKeys() {
    #expect(StyleRole.listSelectedMarked.themeKey == "list-selected-marked")
    #expect(StyleRole(themeKey: "tag-orange") == .tagOrange)
    #expect(StyleRole(themeKey: "tagOrange") == nil)
    #expect(Set(StyleRole.allCases.map(\.themeKey)).count == StyleRole.allCases.count)
  }

  /// The keys are made from the raw values' bytes and looked up in a table (issue 13): the same
  /// keys as the per-character spelling they replace, and every role found by its own.
  @Test func everyRoleIsFoundByItsKey() {
    for role in StyleRole.allCases {
      let spelled = role.rawValue.reduce(into: "") { key, ch in key += ch.isUppercase ? "-" + ch.lowercased() : String(ch) }
      #expect(role.themeKey == spelled)
      #expect(StyleRole(themeKey: role.themeKey) == role)
    }
    #expect(StyleRole(themeKey: "") == nil)
    #expect(StyleRole(themeKey: "LIST-SELECTED") == nil)
  }

  /// A theme error quotes the file's bytes and is shown: escaped (found by folio-fuzz;
  /// Fuzz/corpus/theme/regression-*).
  @Test(arguments: ["bold = t\u{1B}[2J\n", "[list]\n\"\u{1B}]0;x\u{7}\" = 1\n", "[}\n"])
  func themeErrorsAreEscaped(text: String) {
    do {
      _ = try Theme.parse(text, file: "x.toml", searchPaths: [])
      Issue.record("parsed")
    } catch {
      #expect(error.description.hasPrefix("x.toml:"))
      #expect(!error.description.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) })
    }
  }
}
