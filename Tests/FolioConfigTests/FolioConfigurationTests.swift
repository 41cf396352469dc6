import FolioConfig
import Foundation
import ProviderAPI
import Testing

@Suite struct FolioConfigurationTests {
  @Test func emptyTextGivesTheDefaults() throws {
    let config = try parse("")
    #expect(config == .defaults)
    #expect(config.theme == "default-dark")
    #expect(config.cacheBudgetBytes == 10 * 1024 * 1024 * 1024)
    #expect(config.openers.isEmpty && config.actions.isEmpty && config.domains.isEmpty && config.keyBindings.isEmpty)
  }

  @Test func aMissingFileGivesTheDefaults() throws {
    let dir = try TemporaryDirectory()
    let config = try FolioConfiguration.load(from: dir.url.appendingPathComponent("folio/config.toml"), paths: anaPaths)
    #expect(config == .defaults)
  }

  @Test func loadsTheConfigFileOfThePaths() throws {
    let dir = try TemporaryDirectory()
    let paths = FolioPaths(environment: ["HOME": "/home/ana", "XDG_CONFIG_HOME": dir.url.path])
    try FileManager.default.createDirectory(
      at: paths.configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("theme = \"paper\"\n".utf8).write(to: paths.configFile)
    #expect(try FolioConfiguration.load(paths: paths).theme == "paper")
  }

  @Test func aFullConfigParsesIntoItsValues() throws {
    let config = try parse(
      """
      theme = "solarized"
      cache_budget = "512 MiB"

      [[opener]]
      extensions = ["md", ".TXT"]
      command = ["nvim", "{path}"]

      [[opener]]
      content_type = "public.image"
      command = ["feh", "--", "{paths}"]

      [[action]]
      name = "Compress to .tar.gz"
      rule = "TRUEPREDICATE"
      command = ["tar", "-czf", "archive.tar.gz", "--", "{paths}"]

      [[action]]
      name = "Shred"
      id = "user.shred-now"
      rule = 'count == 1 AND isFolder == NO'
      command = ["shred", "-u", "{path}"]
      confirm = true

      [[domain]]
      name = "projects"
      type = "local"
      root = "~/projects/"
      display_name = "Projects"

      [[domain]]
      name = "work-dav"
      type = "webdav"
      url = "https://dav.example.com/remote.php/dav"
      user = "ana"

      [keys]
      open = ["enter", "l"]
      quit = "q"
      "user.shred-now" = []
      """)

    #expect(config.theme == "solarized")
    #expect(config.cacheBudgetBytes == 512 << 20)
    #expect(
      config.openers == [
        OpenerRule(match: .extensions(["md", "txt"]), argv: ["nvim", "{path}"]),
        OpenerRule(match: .contentType(.image), argv: ["feh", "--", "{paths}"]),
      ])
    #expect(
      config.actions == [
        CustomActionConfig(
          identifier: ActionIdentifier("user.compress-to-tar-gz"), name: "Compress to .tar.gz",
          rule: try ActivationRule(parsing: "TRUEPREDICATE"),
          command: ["tar", "-czf", "archive.tar.gz", "--", "{paths}"]),
        CustomActionConfig(
          identifier: ActionIdentifier("user.shred-now"), name: "Shred",
          rule: try ActivationRule(parsing: "count == 1 AND isFolder == NO"),
          command: ["shred", "-u", "{path}"], confirm: true),
      ])
    #expect(
      config.domains == [
        DomainConfig(
          identifier: DomainIdentifier(unchecked: "projects"), displayName: "Projects",
          kind: .local(root: "/home/ana/projects")),
        DomainConfig(
          identifier: DomainIdentifier(unchecked: "work-dav"), displayName: "work-dav",
          kind: .remote(type: "webdav", settings: ["url": "https://dav.example.com/remote.php/dav", "user": "ana"])),
      ])
    #expect(config.keyBindings == ["open": ["enter", "l"], "quit": ["q"], "user.shred-now": []])
  }

  @Test(arguments: [
    ("cache_budget = 1048576", Int64(1 << 20)),
    ("cache_budget = 0", 0),
    ("cache_budget = \"10GiB\"", 10 << 30),
    ("cache_budget = \"1.5 GiB\"", 3 << 29),
    ("cache_budget = \"500 MB\"", 500_000_000),
    ("cache_budget = \"2 tib\"", 2 << 40),
  ])
  func cacheBudgetAcceptsBytesAndUnits(line: String, bytes: Int64) throws {
    #expect(try parse(line).cacheBudgetBytes == bytes)
  }

  @Test func theFirstMatchingOpenerWins() throws {
    let config = try parse(
      """
      [[opener]]
      extensions = ["svg"]
      command = ["inkscape", "{path}"]
      [[opener]]
      content_type = "public.image"
      command = ["feh", "{path}"]
      """)
    let svg = try #require(config.opener(for: ItemName("logo.SVG"), contentType: ContentType("public.svg-image")))
    #expect(svg.argv.first == "inkscape")
    let png = try #require(config.opener(for: ItemName("a.png"), contentType: ContentType("public.png")))
    #expect(png.argv.first == "feh")
    #expect(config.opener(for: ItemName("notes.txt"), contentType: .plainText) == nil)
    #expect(png.arguments(for: ItemPath("/home/ana/a.png")) == [Array("feh".utf8), Array("/home/ana/a.png".utf8)])
  }

  @Test func theExampleConfigParses() throws {
    let example = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("docs/config.example.toml")
    #expect(FileManager.default.fileExists(atPath: example.path))
    let config = try FolioConfiguration.load(from: example, paths: anaPaths)
    #expect(config.theme == FolioConfiguration.defaultTheme)
    #expect(config.cacheBudgetBytes == FolioConfiguration.defaultCacheBudgetBytes)
    #expect(config.openers.count == 3)
    #expect(
      config.actions.map(\.identifier.rawValue) == [
        "user.convert-to-pdf", "user.extract-here", "user.terminal", "user.shred",
      ])
    #expect(config.actions.last?.confirm == true)
    #expect(config.domains.map(\.kind) == [.local(root: "/home/ana/projects")])
    #expect(config.preview == PreviewSettings())
    #expect(config.previewers.map(\.argv.first) == ["glow"])
  }
}

/// A fresh directory under the system's temporary directory, removed when the value is released.
final class TemporaryDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("folio-config-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }
}
