import FolioConfig
import Foundation
import ProviderAPI
import Testing

/// `[[domain]] type = "extension"`: an argv and a `[domain.config]` table (docs/EXTENSIONS.md §1).
@Suite struct ExtensionDomainConfigTests {
  @Test func anExtensionDomainHasItsCommandAndItsSettings() throws {
    let c = try parse(
      """
      [[domain]]
      name = "store"
      display_name = "My store"
      type = "extension"
      command = ["folio-ext-sqlite", "--verbose"]
      [domain.config]
      root = "/srv/store"
      depth = 3
      fast = true
      """)
    let d = try #require(c.domains.first)
    #expect(d.kind == .remote(type: "extension", settings: [:]))
    #expect(d.extensionCommand == ["folio-ext-sqlite", "--verbose"])
    #expect(d.extensionConfig == ["root": "/srv/store", "depth": "3", "fast": "true"])
  }

  @Test func itsMistakesAreSaidWhereTheyAre() {
    #expect(
      parseError("[[domain]]\nname = \"x\"\ntype = \"extension\"")
        == "config.toml:1: domain[0]: missing key \"command\" (the extension to run, e.g. command = [\"folio-ext-sqlite\"])")
    #expect(
      parseError("[[domain]]\nname = \"x\"\ntype = \"extension\"\ncommand = \"folio-rclone --x\"")?
        .contains("an extension runs without a shell") == true)
    #expect(
      parseError("[[domain]]\nname = \"x\"\ntype = \"extension\"\ncommand = [\"e\"]\nserver = \"s\"")?
        .contains("domain[0].server: unknown key") == true)
    #expect(
      parseError("[[domain]]\nname = \"x\"\ntype = \"extension\"\ncommand = [\"e\"]\n[domain.config]\nlist = [1]")?
        .contains("domain[0].config.list: expected a string") == true)
  }

  @Test func theEditorWritesAnExtensionThatParsesBackTheSame() throws {
    let paths = FolioPaths(environment: ["HOME": "/home/ana"])
    let text = try DomainConfigEditor.addingExtension(
      name: DomainIdentifier("drive"), command: ["folio-rclone"], config: [("remote", "gdrive:Documents \"x\""), ("rclone config", "/c")],
      displayName: "Drive", to: "theme = \"light\"\n", file: "config.toml", paths: paths)
    let d = try #require(try FolioConfiguration.parse(text, file: "config.toml", paths: paths).domains.first)
    #expect(d.extensionCommand == ["folio-rclone"] && d.displayName == "Drive")
    #expect(d.extensionConfig == ["remote": "gdrive:Documents \"x\"", "rclone config": "/c"])
    #expect(text.hasPrefix("theme = \"light\"\n\n[[domain]]\n"))
  }
}
