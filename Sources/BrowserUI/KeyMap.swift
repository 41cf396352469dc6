/// What a key means. Bindings can be changed in config.toml's `[keys]` table by command name.
public enum Command: String, Sendable, CaseIterable {
  case up, down, pageUp = "page-up", pageDown = "page-down", top, bottom
  case open, parent, nextTab = "next-tab", previousTab = "previous-tab", browseTab = "browse-tab"
  case recentsTab = "recents-tab", sidebar, filter, sort, hidden, mark, help, quit, menu
  case rename, tags, favorite, delete, info, newFolder = "new-folder", refresh
  case copy, paste

  public var help: String {
    switch self {
    case .up: return "Move up"
    case .down: return "Move down"
    case .pageUp: return "Page up"
    case .pageDown: return "Page down"
    case .top: return "First item (gg)"
    case .bottom: return "Last item"
    case .open: return "Open a file, enter a folder"
    case .parent: return "Parent folder"
    case .nextTab: return "Next tab"
    case .previousTab: return "Previous tab"
    case .browseTab: return "Browse"
    case .recentsTab: return "Recents"
    case .sidebar: return "Focus the sidebar"
    case .filter: return "Filter (search in Recents)"
    case .sort: return "Sort"
    case .hidden: return "Show hidden files"
    case .mark: return "Mark for multi-selection"
    case .help: return "This help"
    case .quit: return "Quit"
    case .menu: return "Context menu"
    case .rename: return "Rename…"
    case .tags: return "Tags…"
    case .favorite: return "Favorite / Unfavorite"
    case .delete: return "Delete (to Recently Deleted)"
    case .info: return "Info"
    case .newFolder: return "New folder…"
    case .refresh: return "Reload"
    case .copy: return "Copy (to Folio's clipboard)"
    case .paste: return "Paste into this folder"
    }
  }
}

public struct KeyMap: Sendable, Equatable {
  public private(set) var bindings: [KeyEvent: Command]

  public static let standard = KeyMap(bindings: [
    .up: .up, .character("k"): .up, .down: .down, .character("j"): .down,
    .pageUp: .pageUp, .control("b"): .pageUp, .pageDown: .pageDown, .control("f"): .pageDown,
    .home: .top, .end: .bottom, .character("G"): .bottom,
    .enter: .open, .right: .open, .character("l"): .open,
    .backspace: .parent, .left: .parent, .character("h"): .parent,
    .tab: .nextTab, .backTab: .previousTab, .character("1"): .browseTab, .character("2"): .recentsTab,
    .character("b"): .sidebar, .character("/"): .filter, .character("s"): .sort, .character("."): .hidden,
    .character(" "): .mark, .character("?"): .help, .character("q"): .quit, .character("m"): .menu, .menu: .menu,
    .character("r"): .rename, .character("t"): .tags, .character("f"): .favorite, .character("d"): .delete,
    .delete: .delete, .character("i"): .info, .character("n"): .newFolder, .control("r"): .refresh,
    .character("y"): .copy, .character("p"): .paste,
  ])

  public func command(for key: KeyEvent) -> Command? { bindings[key] }

  /// The keys bound to a command, for the help screen, always in the same order: named keys first
  /// (Enter, Backspace, …, the arrows, PgUp/PgDn, Home/End), then Ctrl combinations, then
  /// characters — "up k" and "down j", never "k up" next to "down j".
  public func keys(for command: Command) -> [String] {
    bindings.filter { $0.value == command }.map(\.key).sorted { Self.helpOrder($0) < Self.helpOrder($1) }
      .map(\.description)
  }

  /// Where a key goes in the help's list: (group, rank within it, name).
  static func helpOrder(_ key: KeyEvent) -> HelpOrder {
    let named: [KeyEvent] = [
      .enter, .backspace, .delete, .escape, .tab, .backTab, .up, .down, .left, .right, .pageUp, .pageDown, .home,
      .end, .insert, .menu,
    ]
    switch key {
    case .character(let c): return HelpOrder(group: 2, rank: 0, name: String(c))
    case .control(let c): return HelpOrder(group: 1, rank: 0, name: String(c))
    case .function(let n): return HelpOrder(group: 0, rank: named.count + n, name: "")
    default: return HelpOrder(group: 0, rank: named.firstIndex(of: key) ?? named.count + 100, name: key.description)
    }
  }

  struct HelpOrder: Comparable {
    var group: Int
    var rank: Int
    var name: String
    static func < (a: Self, b: Self) -> Bool { (a.group, a.rank, a.name) < (b.group, b.rank, b.name) }
  }

  /// Applies `[keys]` overrides: command name → key names. Unknown names are reported, not fatal.
  public func overridden(by table: [String: [String]]) -> (KeyMap, [String]) {
    var map = self
    var problems: [String] = []
    for (name, keys) in table.sorted(by: { $0.key < $1.key }) {
      guard let command = Command(rawValue: name) else {
        problems.append("unknown command '\(name)' in [keys]")
        continue
      }
      map.bindings = map.bindings.filter { $0.value != command }
      for k in keys {
        guard let key = Self.parse(k) else {
          problems.append("unknown key '\(k)' for \(name)")
          continue
        }
        map.bindings[key] = command
      }
    }
    return (map, problems)
  }

  /// A key from its name: "j", "enter", "ctrl-r", "f5", "space", "shift-tab", "pgdn", …
  public static func parse(_ name: String) -> KeyEvent? {
    let named: [String: KeyEvent] = [
      "enter": .enter, "return": .enter, "esc": .escape, "escape": .escape, "tab": .tab, "shift-tab": .backTab,
      "backspace": .backspace, "delete": .delete, "del": .delete, "up": .up, "down": .down, "left": .left,
      "right": .right, "home": .home, "end": .end, "pgup": .pageUp, "pageup": .pageUp, "pgdn": .pageDown,
      "pagedown": .pageDown, "insert": .insert, "menu": .menu, "space": .character(" "),
    ]
    let lower = name.lowercased()
    if let k = named[lower] { return k }
    if lower.hasPrefix("ctrl-"), lower.count == 6, let c = lower.last, c.isLetter { return .control(c) }
    if lower.hasPrefix("f"), let n = Int(lower.dropFirst()), (1...24).contains(n) { return .function(n) }
    if name.count == 1, let c = name.first { return .character(c) }
    return nil
  }
}
