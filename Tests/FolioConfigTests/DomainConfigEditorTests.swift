import FolioConfig
import Foundation
import ProviderAPI
import Testing

@Suite("DomainConfigEditor")
struct DomainConfigEditorTests {
  let hand = """
    # My config
    theme = "light"   # I like it

    [[opener]]
    extensions = ["md"]
    command = ["nvim", "{path}"]

    [[domain]]
    name = "projects"
    type = "local"
    root = "~/projects"

    # The server at home
    [[domain]]
    name = "home"
    type = "folio"
    server = "http://nas:8470"
    user = "ana"

    # keys below
    [keys]
    open = ["enter"]

    """

  func add(_ text: String, _ name: String, settings: [(String, String)]) throws(ProviderError) -> String {
    try DomainConfigEditor.adding(
      name: DomainIdentifier(name), type: "folio", settings: settings, displayName: nil, to: text, file: "config.toml",
      paths: anaPaths)
  }

  @Test func addingAppendsATableAndKeepsEverythingElse() throws {
    let out = try add(hand, "work", settings: [("server", "https://files.example.com"), ("user", "a\"na\\")])
    #expect(out.hasPrefix(hand))
    #expect(out.hasSuffix("\n[[domain]]\nname = \"work\"\ntype = \"folio\"\nserver = \"https://files.example.com\"\nuser = \"a\\\"na\\\\\"\n"))
    let config = try parse(out)
    #expect(config.domains.map(\.identifier.rawValue) == ["projects", "home", "work"])
    #expect(config.domains[2].kind == .remote(type: "folio", settings: ["server": "https://files.example.com", "user": "a\"na\\"]))
    #expect(config.theme == "light" && config.keyBindings == ["open": ["enter"]])
  }

  @Test func addingToAnEmptyFile() throws {
    let out = try add("", "work", settings: [("server", "http://127.0.0.1:1"), ("user", "ana")])
    #expect(out == "[[domain]]\nname = \"work\"\ntype = \"folio\"\nserver = \"http://127.0.0.1:1\"\nuser = \"ana\"\n")
    #expect(try parse(out).domains.count == 1)
  }

  @Test func addingATakenNameIsRefused() throws {
    let error = #expect(throws: ProviderError.self) { try add(hand, "home", settings: [("server", "http://x"), ("user", "a")]) }
    #expect(error?.message.contains("already has a location named 'home'") == true)
  }

  @Test func addingAfterATableWithoutTrailingNewlineStaysValid() throws {
    let text = "[keys]\nopen = [\"enter\"]"
    let out = try add(text, "work", settings: [("server", "http://x"), ("user", "a")])
    let config = try parse(out)
    #expect(config.keyBindings == ["open": ["enter"]] && config.domains.count == 1)
  }

  @Test func removingCutsOnlyThatTableAndKeepsTheNextTablesComments() throws {
    let out = try DomainConfigEditor.removing(DomainIdentifier("home"), from: hand, file: "config.toml", paths: anaPaths)
    #expect(!out.contains("name = \"home\""))
    #expect(out.contains("# The server at home\n"))
    #expect(out.contains("# keys below\n[keys]"))
    #expect(try parse(out).domains.map(\.identifier.rawValue) == ["projects"])
    let again = try DomainConfigEditor.removing(DomainIdentifier("projects"), from: out, file: "config.toml", paths: anaPaths)
    #expect(try parse(again).domains.isEmpty)
    #expect(again.contains("theme = \"light\"   # I like it"))
  }

  @Test func addThenRemoveGivesTheFileBack() throws {
    let added = try add(hand, "work", settings: [("server", "http://x"), ("user", "a")])
    let removed = try DomainConfigEditor.removing(DomainIdentifier("work"), from: added, file: "config.toml", paths: anaPaths)
    #expect(removed.trimmingCharacters(in: .newlines) == hand.trimmingCharacters(in: .newlines))
  }

  @Test func removingAnUnknownNameSaysSo() throws {
    let error = #expect(throws: ProviderError.self) {
      try DomainConfigEditor.removing(DomainIdentifier("nope"), from: hand, file: "config.toml", paths: anaPaths)
    }
    #expect(error?.code == .noSuchItem)
  }

  @Test func writeReplacesTheFileAtomicallyKeepingItsMode() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("folio-editor-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dir) }
    let url = dir.appendingPathComponent("folio/config.toml")
    #expect(try DomainConfigEditor.read(url) == "")
    try DomainConfigEditor.write("theme = \"light\"\n", to: url)
    chmod(url.path, 0o640)
    try DomainConfigEditor.write(hand, to: url)
    #expect(try DomainConfigEditor.read(url) == hand)
    var st = stat()
    stat(url.path, &st)
    #expect(st.st_mode & 0o777 == 0o640)
    #expect(try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path) == ["config.toml"])
  }

  @Test func passwordCommandIsAnArgvWithoutPlaceholders() throws {
    let config = try parse(
      """
      [[domain]]
      name = "work"
      type = "folio"
      server = "http://x"
      user = "ana"
      password_command = ["pass", "show", "folio/work"]
      """)
    #expect(config.domains[0].passwordCommand == ["pass", "show", "folio/work"])
    #expect(
      parseError("[[domain]]\nname = \"w\"\ntype = \"folio\"\nserver = \"x\"\npassword_command = \"pass show w\"")?
        .contains("commands run without a shell") == true)
    #expect(
      parseError("[[domain]]\nname = \"w\"\ntype = \"folio\"\nserver = \"x\"\npassword_command = [\"cat\", \"{path}\"]")?
        .contains("means nothing here") == true)
    #expect(
      parseError("[[domain]]\nname = \"w\"\ntype = \"local\"\nroot = \"/x\"\npassword_command = [\"pass\"]")?
        .contains("not used by a domain of type \"local\"") == true)
  }
}
