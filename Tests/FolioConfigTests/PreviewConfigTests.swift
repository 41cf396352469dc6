import FolioConfig
import Foundation
import ProviderAPI
import Testing

/// `[preview]` and `[[previewer]]`.
@Suite struct PreviewConfigTests {
  @Test func theDefaults() throws {
    let config = try parse("")
    #expect(config.preview == PreviewSettings(pane: .auto, images: .auto, tools: true))
    #expect(config.previewers.isEmpty)
    #expect(!config.preview.showsPane(columns: 80))
    #expect(config.preview.showsPane(columns: 120))
    #expect(config.preview.showsPictures)
  }

  @Test func thePreviewTable() throws {
    let config = try parse(
      """
      [preview]
      pane = "off"
      images = "text"
      tools = false
      """)
    #expect(config.preview == PreviewSettings(pane: .off, images: .text, tools: false))
    #expect(!config.preview.showsPane(columns: 300))
    #expect(try parse("[preview]\npane = \"on\"").preview.showsPane(columns: 80))
    #expect(!(try parse("[preview]\nimages = \"off\"").preview.showsPictures))
  }

  @Test func previewersInConfigOrder() throws {
    let config = try parse(
      """
      [[previewer]]
      extensions = ["MD", ".markdown"]
      command = ["glow", "--style", "dark", "--width", "{width}", "--", "{path}"]

      [[previewer]]
      content_type = "public.image"
      command = ["chafa", "--size", "{width}", "{height}", "{path}"]
      """)
    #expect(
      config.previewers == [
        PreviewerRule(
          match: .extensions(["md", "markdown"]),
          argv: ["glow", "--style", "dark", "--width", "{width}", "--", "{path}"]),
        PreviewerRule(match: .contentType(.image), argv: ["chafa", "--size", "{width}", "{height}", "{path}"]),
      ])
    let md = try #require(config.previewer(for: ItemName("README.md"), contentType: .plainText))
    #expect(
      md.arguments(for: ItemPath("/home/ana/-README.md"), columns: 72, rows: 30).map {
        String(decoding: $0, as: UTF8.self)
      }
        == ["glow", "--style", "dark", "--width", "72", "--", "/home/ana/-README.md"])
    let png = try #require(config.previewer(for: ItemName("a.png"), contentType: ContentType("public.png")))
    #expect(png.argv.first == "chafa")
    #expect(config.previewer(for: ItemName("a.txt"), contentType: .plainText) == nil)
  }

  @Test func aPreviewersNameStaysBytes() throws {
    let rule = PreviewerRule(match: .extensions(["x"]), argv: ["cat", "--", "{path}", "{name}", "{folder}"])
    let invalid = ItemPath(bytes: Array("/tmp/caf".utf8) + [0xE9])
    #expect(
      rule.arguments(for: invalid, columns: 1, rows: 1)
        == [Array("cat".utf8), Array("--".utf8), invalid.bytes, Array("caf".utf8) + [0xE9], Array("/tmp".utf8)])
  }

  @Test(arguments: [
    ("[preview]\npane = \"maybe\"", "config.toml:2: preview.pane: \"maybe\" is not one of \"auto\", \"on\", \"off\""),
    (
      "[preview]\n\nimages = \"sixel\"",
      "config.toml:3: preview.images: \"sixel\" is not one of \"auto\", \"text\", \"off\""
    ),
    (
      "[preview]\npane = \"aut\"",
      "config.toml:2: preview.pane: \"aut\" is not one of \"auto\", \"on\", \"off\" (did you mean \"auto\"?)"
    ),
    (
      "[preview]\npane = true",
      "config.toml:2: preview.pane: expected one of \"auto\", \"on\", \"off\", found a boolean"
    ),
    ("[preview]\ntools = \"yes\"", "config.toml:2: preview.tools: expected true or false, found a string"),
    ("[preview]\nimage = \"off\"", "config.toml:2: preview.image: unknown key (did you mean \"images\"?)"),
    (
      "[preview]\nwidth = 40",
      "config.toml:2: preview.width: unknown key (expected one of: pane, images, tools)"
    ),
    (
      "preview = \"on\"",
      "config.toml:1: preview: expected a table ([preview] with lines such as pane = \"auto\"), found a string"
    ),
    ("[previews]\npane = \"on\"", "config.toml:1: previews: unknown key (did you mean [preview]?)"),
    ("[[previewers]]\nextensions = [\"md\"]", "config.toml:1: previewers: unknown key (did you mean [[previewer]]?)"),
    ("pane = \"on\"", "config.toml:1: pane: unknown key (did you mean [preview]?)"),
  ])
  func badPreviewSettingsAreRefusedWhereTheyAre(text: String, expected: String) {
    #expect(parseError(text) == expected)
  }

  @Test(arguments: [
    (
      "[[previewer]]\nextensions = [\"md\"]\ncommand = \"glow {path}\"",
      "config.toml:3: previewer[0].command: expected an array of strings, found a string: commands run without a shell, so write each argument apart, e.g. [\"glow\", \"{path}\"]"
    ),
    (
      "[[previewer]]\nextensions = [\"md\"]",
      "config.toml:1: previewer[0]: missing key \"command\" (e.g. command = [\"glow\", \"{path}\"])"
    ),
    (
      "[[previewer]]\ncommand = [\"glow\", \"{path}\"]",
      "config.toml:1: previewer[0]: missing key \"extensions\" or \"content_type\" (which files this previewer is for)"
    ),
    (
      "[[previewer]]\nextensions = [\"md\"]\ncontent_type = \"public.text\"\ncommand = [\"glow\"]",
      "config.toml:1: previewer[0]: give either \"extensions\" or \"content_type\", not both (use two [[previewer]] entries)"
    ),
    (
      "[[previewer]]\nextensions = [\"*.md\"]\ncommand = [\"glow\"]",
      "config.toml:2: previewer[0].extensions: \"*.md\" is a pattern: write the extension alone, e.g. \"md\""
    ),
    (
      "[[previewer]]\nextensions = [\"md\"]\ncommand = [\n  \"glow\",\n  \"--width={width}\",\n]",
      "config.toml:5: previewer[0].command: \"--width={width}\" puts {width} inside an argument; a placeholder must be a whole argument (Folio never splices paths into strings or runs a shell): split it, e.g. \"--out\", \"{path}\""
    ),
    (
      "[[previewer]]\nextensions = [\"md\"]\ncommand = [\"glow\", \"{paths}\"]",
      "config.toml:3: previewer[0].command: \"{paths}\" means nothing here: a previewer gets one file (use \"{path}\")"
    ),
    (
      "[[previewer]]\nextensions = [\"md\"]\ncommand = [\"glow\", \"{file}\"]",
      "config.toml:3: previewer[0].command: unknown placeholder \"{file}\" (use {path}, {name}, {folder}, {width}, {height})"
    ),
    (
      "[[previewer]]\nextensions = [\"md\"]\ncmd = [\"glow\"]",
      "config.toml:3: previewer[0].cmd: unknown key (did you mean \"command\"?)"
    ),
  ])
  func badPreviewersAreRefusedWhereTheyAre(text: String, expected: String) {
    #expect(parseError(text) == expected)
  }

  /// `{width}` and `{height}` belong to previewers: an opener still refuses them.
  @Test func anOpenerTakesNoPaneSize() {
    #expect(
      parseError("[[opener]]\nextensions = [\"md\"]\ncommand = [\"nvim\", \"{width}\"]")
        == "config.toml:3: opener[0].command: unknown placeholder \"{width}\" (use {path}, {paths}, {name}, {folder})")
  }

  @Test func thePreviewCacheIsUnderTheCacheHome() {
    #expect(anaPaths.previewCache.path == "/home/ana/.cache/folio/preview")
    #expect(
      FolioPaths(environment: ["HOME": "/home/ana", "XDG_CACHE_HOME": "/var/cache/ana"]).previewCache.path
        == "/var/cache/ana/folio/preview")
  }
}
