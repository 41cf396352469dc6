/// The Open With… prompt's last commands, kept between runs in `$XDG_STATE_HOME/folio/open-with`
/// (issue 13): one command a line, newest first, as a shell keeps its history in a file a person
/// can read and edit. What it cannot hold is dropped: a command with a line break (the prompt
/// cannot type one), an empty line, lines past the limit; `#` lines are comments.
public struct OpenWithHistory: Sendable, Equatable {
  public var commands: [String]

  public init(_ commands: [String] = []) {
    self.commands = Array(commands.filter(Self.keepable).prefix(AppState.openWithHistoryLimit))
  }

  /// The file's text.
  public var text: String {
    "# Folio's Open With… commands (o in the browser), newest first.\n"
      + commands.map { $0 + "\n" }.joined()
  }

  /// The commands a file's text holds.
  public init(text: String) {
    self.init(text.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.hasPrefix("#") })
  }

  private static func keepable(_ command: String) -> Bool {
    !command.isEmpty && !command.contains(where: \.isNewline) && command.contains { $0 != " " && $0 != "\t" }
  }
}
