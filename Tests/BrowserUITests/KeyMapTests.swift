import ProviderAPI
import Testing

@testable import BrowserUI

/// Bindings and their `[keys]` overrides from config.toml.
@Suite struct KeyMapTests {
  @Test func overridesRebindCommandsAndReportUnknownNames() {
    let table: [String: [String]] = [
      "quit": ["x", "ctrl-q"], "down": ["ctrl-n", "J"], "page-down": ["space"], "bogus": ["z"], "up": ["hyper-k", "K"],
    ]
    let (map, problems) = KeyMap.standard.overridden(by: table)
    #expect(problems == ["unknown command 'bogus' in [keys]", "unknown key 'hyper-k' for up"])
    #expect(map.command(for: .character("x")) == .quit)
    #expect(map.command(for: .control("q")) == .quit)
    #expect(map.command(for: .character("q")) == nil, "the old binding goes")
    #expect(map.command(for: .control("n")) == .down)
    #expect(map.command(for: .character("j")) == nil)
    #expect(map.command(for: .character("K")) == .up)
    #expect(map.command(for: .character(" ")) == .pageDown, "a key taken from another command")
    #expect(map.keys(for: .quit) == ["ctrl-q", "x"])
    // Commands not in the table keep their keys.
    #expect(map.command(for: .enter) == .open)
  }

  @Test func theReducerUsesTheOverriddenMap() {
    var s = Fixture.state()
    s.keyMap = KeyMap.standard.overridden(by: ["quit": ["x"], "down": ["n"]]).0
    s.press(.character("n"), .character("n"))
    #expect(s.browse.cursor == 2)
    #expect(s.press(.character("q")).isEmpty)
    #expect(!s.isQuitting)
    #expect(s.press(.character("x")) == [.quit])
    // Help lists the new keys.
    _ = Snapshots.setUp
    var h = Fixture.state(height: 60)
    h.keyMap = s.keyMap
    h.press(.character("?"))
    let lines = AppView.render(h).textLines()
    #expect(lines.contains { $0.contains("│ x ") && $0.contains("Quit") })
  }

  @Test(arguments: [
    ("enter", KeyEvent.enter), ("Return", .enter), ("esc", .escape), ("shift-tab", .backTab), ("ctrl-r", .control("r")),
    ("CTRL-A", .control("a")), ("f5", .function(5)), ("F12", .function(12)), ("space", .character(" ")),
    ("pgdn", .pageDown), ("pageup", .pageUp), ("del", .delete), ("menu", .menu), ("G", .character("G")),
    ("é", .character("é")),
  ])
  func keyNamesParse(_ name: String, _ key: KeyEvent) {
    #expect(KeyMap.parse(name) == key)
  }

  @Test(arguments: ["", "ctrl-", "ctrl-ab", "ctrl-1", "f0", "f25", "shift-x", "jj"])
  func badKeyNamesDoNotParse(_ name: String) {
    #expect(KeyMap.parse(name) == nil)
  }

  @Test func everyCommandHasAKeyAndAHelpLine() {
    for c in Command.allCases {
      #expect(!KeyMap.standard.keys(for: c).isEmpty, "\(c) has no key")
      #expect(!c.help.isEmpty)
      #expect(Command(rawValue: c.rawValue) == c)
    }
    // Every key's name parses back to the key.
    for key in KeyMap.standard.bindings.keys { #expect(KeyMap.parse(key.description) == key, "\(key)") }
  }
}
