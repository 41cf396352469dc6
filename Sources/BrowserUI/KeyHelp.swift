/// The rows of the `?` help: every command with its keys, the context menu's shortcuts that no
/// command takes, and Ctrl-Z.
///
/// One list for the help screen and for `folio help-keys`, from which the man page's KEYS section
/// is made (scripts/manpage): the man page can never describe keys the browser does not have.
public enum KeyHelp {
  /// One line of the help: the keys as the help writes them (`down j`, `^C q`) and what they do.
  public struct Row: Sendable, Equatable {
    public var keys: String
    public var help: String
    /// The command's name in config.toml's `[keys]` table; nil for a menu shortcut or Ctrl-Z.
    public var command: String?

    public init(keys: String, help: String, command: String? = nil) {
      self.keys = keys
      self.help = help
      self.command = command
    }
  }

  /// The rows for `keyMap`, in the help's order.
  public static func rows(for keyMap: KeyMap) -> [Row] {
    Command.allCases.map { Row(keys: keyMap.keys(for: $0).joined(separator: " "), help: $0.help, command: $0.rawValue) }
      + AppState.menuShortcuts.filter { keyMap.command(for: .character($0.key)) == nil }.map {
        Row(keys: String($0.key), help: $0.help)
      }
      + [Row(keys: "^Z", help: "Suspend to the shell (fg comes back)")]
  }
}
