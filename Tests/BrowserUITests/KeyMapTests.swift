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
    #expect(problems.map(\.command) == ["bogus", "up"])
    #expect(problems.map(\.key) == [nil, "hyper-k"])
    #expect(problems[0].message.hasPrefix("unknown command \"bogus\""))
    #expect(problems[1].message.hasPrefix("unknown key \"hyper-k\""))
    #expect(map.command(for: .character("x")) == .quit)
    #expect(map.command(for: .control("q")) == .quit)
    #expect(map.command(for: .character("q")) == nil, "the old binding goes")
    #expect(map.command(for: .control("n")) == .down)
    #expect(map.command(for: .character("j")) == nil)
    #expect(map.command(for: .character("K")) == .up)
    #expect(map.command(for: .character(" ")) == .pageDown, "a key taken from another command")
    #expect(map.keys(for: .quit) == ["ctrl-c", "ctrl-q", "x"], "Ctrl-C always quits")
    // Commands not in the table keep their keys.
    #expect(map.command(for: .enter) == .open)
  }

  @Test func aTypoInACommandNameSuggestsTheCommand() {
    let (_, problems) = KeyMap.standard.overridden(by: ["quitt": ["x"], "page_down": ["n"]])
    #expect(problems.map(\.message).contains { $0.hasPrefix("unknown command \"quitt\" (did you mean \"quit\"?)") })
    #expect(problems.map(\.message).contains { $0.hasPrefix("unknown command \"page_down\" (did you mean \"page-down\"?)") })
  }

  @Test func ctrlCAlwaysQuitsAndCtrlZCannotBeBound() {
    // quit unbound, or bound to a key that does not parse: Ctrl-C still quits, from anywhere.
    for table: [String: [String]] in [["quit": []], ["quit": ["hyper-q"]], ["quit": ["x"]]] {
      var s = Fixture.state()
      s.keyMap = KeyMap.standard.overridden(by: table).0
      #expect(s.keyMap.keys(for: .quit).contains("ctrl-c"), "the help lists it")
      s.press(.character("r"))
      guard case .prompt = s.overlay else {
        Issue.record("the rename prompt is open")
        continue
      }
      #expect(s.press(.control("c")) == [.quit], "\(table)")
      #expect(s.isQuitting)
    }
    let (map, problems) = KeyMap.standard.overridden(by: ["sort": ["ctrl-c", "S"], "menu": ["ctrl-z"], "quit": ["ctrl-c"]])
    #expect(problems.map(\.key) == ["ctrl-z", "ctrl-c"])
    #expect(map.command(for: .control("c")) == .quit)
    #expect(map.command(for: .character("S")) == .sort)
    #expect(map.keys(for: .quit) == ["ctrl-c"])
  }

  @Test func aCustomActionIsBoundByItsId() {
    var s = Fixture.state()
    s.customActions = [
      CustomActionEntry(identifier: ActionIdentifier("user.terminal"), name: "Terminal Here", rule: try! ActivationRule(parsing: "TRUEPREDICATE"), domain: nil)
    ]
    let (map, problems) = KeyMap.standard.overridden(by: ["user.terminal": ["ctrl-t"], "user.gone": ["ctrl-g"]])
    #expect(problems.isEmpty, "an id has a dot: it is an action's, checked when pressed")
    s.keyMap = map
    let effects = s.press(.control("t"))
    guard case .runAction(let id, let items, _)? = effects.first else {
      Issue.record("the action runs: \(effects)")
      return
    }
    #expect(id == ActionIdentifier("user.terminal") && items == [s.currentItem!])
    #expect(s.press(.control("g")).isEmpty)
    #expect(s.message?.isError == true && s.message?.text.contains("user.gone") == true)
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
    #expect(lines.contains { $0.contains("│ ctrl-c x ") && $0.contains("Quit") })
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
