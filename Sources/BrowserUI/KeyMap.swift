import ProviderAPI

/// What a key means. Bindings can be changed in config.toml's `[keys]` table by command name.
public enum Command: String, Sendable, CaseIterable {
  case up, down, pageUp = "page-up", pageDown = "page-down", top, bottom
  case open, parent, nextTab = "next-tab", previousTab = "previous-tab", browseTab = "browse-tab"
  case recentsTab = "recents-tab", sidebar, filter, sort, hidden, mark, help, quit, menu
  case rename, bulkRename = "bulk-rename", tags, favorite, delete, info, newFolder = "new-folder", refresh
  case copy, paste, preview, previewFull = "preview-full"
  // The shell (AppState+Shell.swift): lf's and ranger's `!`, ranger's `S`, yazi's copy path.
  case shellCommand = "shell-command", shell, copyPaths = "copy-paths"
  // Moving around and the marks (AppState+GoTo.swift, AppState+Marks.swift): ranger's H/L, mc's `*`.
  case goTo = "go-to", home, historyBack = "history-back", historyForward = "history-forward"
  case markAll = "mark-all", invertMarks = "invert-marks", clearMarks = "clear-marks", markRange = "mark-range"
  // Acting (AppState+Undo.swift, AppState+Clipboard.swift): yazi's cut, the Files app's undo.
  case cut, undo, redo, openWith = "open-with"
  // The rough edges (issue 13 §5): ranger's `W`, the log of every status message.
  case messageLog = "message-log"

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
    case .preview: return "Show or hide the preview pane"
    case .previewFull: return "The preview full screen, to read"
    case .shellCommand: return "Shell command on the selection (\"$@\")"
    case .shell: return "Open $SHELL in this folder"
    case .copyPaths: return "Copy the paths (system clipboard too)"
    case .bulkRename: return "Rename in Editor… (marked, or all)"
    case .goTo: return "Go to a path… (Tab completes)"
    case .home: return "Home folder"
    case .historyBack: return "Back in history"
    case .historyForward: return "Forward in history"
    case .markAll: return "Mark all"
    case .invertMarks: return "Invert the marks"
    case .clearMarks: return "Clear the marks"
    case .markRange: return "Mark from the last marked to here"
    case .cut: return "Cut (p then moves it here)"
    case .undo: return "Undo a rename, move or delete"
    case .redo: return "Redo what was undone"
    case .openWith: return "Open With… (a command, arguments)"
    case .messageLog: return "Message log (every message, whole)"
    }
  }
}

public struct KeyMap: Sendable, Equatable {
  public private(set) var bindings: [KeyEvent: Command]
  /// Keys bound to custom actions by id in `[keys]` (`"user.terminal" = "ctrl-t"`): the action
  /// runs on the selection when it applies there, as its menu entry would.
  public private(set) var actionBindings: [KeyEvent: ActionIdentifier] = [:]

  /// Ctrl-C quits whatever `[keys]` says, so a typo there can never leave Folio without a way out
  /// (raw mode: Ctrl-C is a key, not SIGINT). It cannot be given to another command.
  public static let alwaysQuits = KeyEvent.control("c")
  /// Ctrl-Z suspends Folio (the backend handles it; the app never sees it): not bindable.
  static let suspends = KeyEvent.control("z")

  public init(bindings: [KeyEvent: Command]) {
    self.bindings = bindings
  }

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
    .character("y"): .copy, .character("p"): .paste, .character("v"): .preview, .character("V"): .previewFull,
    .character("!"): .shellCommand, .character("S"): .shell, .character("Y"): .copyPaths,
    .character("R"): .bulkRename,
    .character(":"): .goTo, .character("~"): .home, .character("H"): .historyBack, .character("L"): .historyForward,
    .character("A"): .markAll, .character("*"): .invertMarks, .character("C"): .clearMarks, .character("M"): .markRange,
    .character("x"): .cut, .character("u"): .undo, .character("U"): .redo, .character("o"): .openWith,
    .character("W"): .messageLog,
  ])

  public func command(for key: KeyEvent) -> Command? { key == Self.alwaysQuits ? .quit : bindings[key] }

  public func action(for key: KeyEvent) -> ActionIdentifier? { bindings[key] == nil ? actionBindings[key] : nil }

  /// The keys bound to a command, for the help screen, always in the same order: named keys first
  /// (Enter, Backspace, …, the arrows, PgUp/PgDn, Home/End), then Ctrl combinations, then
  /// characters — "up k" and "down j", never "k up" next to "down j". Quit always lists Ctrl-C.
  public func keys(for command: Command) -> [String] {
    var keys = bindings.filter { $0.value == command }.map(\.key)
    if command == .quit && !keys.contains(Self.alwaysQuits) { keys.append(Self.alwaysQuits) }
    return keys.sorted { Self.helpOrder($0) < Self.helpOrder($1) }.map(\.description)
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

  /// What is wrong with one line of `[keys]`: the command (or action id) it binds, the key name
  /// at fault (nil: the command itself), and why. The caller says it with the file and line.
  public struct Problem: Sendable, Equatable, CustomStringConvertible {
    public var command: String
    public var key: String?
    public var message: String
    public var description: String { message }
  }

  /// Applies `[keys]` overrides: command name (or a custom action's id, which has a dot) → key
  /// names. Every unknown command, unknown key name or reserved key is a problem: the caller
  /// refuses to start with it (exit 3, file:line), as with any other config error, since a
  /// binding silently dropped can leave a command — quit — with no key at all.
  public func overridden(by table: [String: [String]]) -> (KeyMap, [Problem]) {
    var map = self
    var problems: [Problem] = []
    for (name, keys) in table.sorted(by: { $0.key < $1.key }) {
      let command = Command(rawValue: name)
      if command == nil && !name.contains(".") {
        let close = Self.closest(to: name, among: Command.allCases.map(\.rawValue))
        problems.append(
          Problem(
            command: name, key: nil,
            message: "unknown command \"\(name)\" "
              + (close.map { "(did you mean \"\($0)\"?)" }
                ?? "(? in the browser lists the commands; a custom action is bound by its id, e.g. \"user.terminal\")")))
        continue
      }
      if let command {
        map.bindings = map.bindings.filter { $0.value != command }
      } else {
        map.actionBindings = map.actionBindings.filter { $0.value.rawValue != name }
      }
      for k in keys {
        guard let key = Self.parse(k) else {
          problems.append(
            Problem(
              command: name, key: k,
              message: "unknown key \"\(k)\" (write e.g. \"q\", \"enter\", \"ctrl-r\", \"f5\", \"space\", \"shift-tab\", \"pgdn\")"))
          continue
        }
        if key == Self.alwaysQuits && command != .quit {
          problems.append(Problem(command: name, key: k, message: "ctrl-c always quits Folio: it cannot be bound to \(name)"))
          continue
        }
        if key == Self.suspends {
          problems.append(Problem(command: name, key: k, message: "ctrl-z suspends Folio (fg comes back): it cannot be bound"))
          continue
        }
        if let command {
          map.bindings[key] = command
          map.actionBindings[key] = nil
        } else {
          map.actionBindings[key] = ActionIdentifier(name)
          map.bindings[key] = nil
        }
      }
    }
    return (map, problems)
  }

  /// The name closest to `name` by a couple of typos, or nil.
  static func closest(to name: String, among names: [String]) -> String? {
    let wanted = String(name.lowercased().map { $0 == "_" ? "-" : $0 })
    let scored = names.map { ($0, EditDistance.between(wanted, $0)) }.filter { $0.1 <= max(1, min(2, $0.0.count / 3)) }
    return scored.min { $0.1 < $1.1 }?.0
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
