import ProviderAPI

/// A `[[previewer]]`: the user's own program for previewing some files, chosen before the
/// built-in previews (the first rule in config order that matches wins, as for openers).
///
/// Its standard output is the preview, run with an argv and no shell, in the same sandbox as the
/// built-in tools (own session, stdin /dev/null, a deadline and an output cap), and shown through
/// the same sanitiser: a previewer cannot write to the terminal.
public struct PreviewerRule: Sendable, Equatable {
  public var match: OpenerRule.Match
  /// The command, with placeholders from ``placeholders`` as whole arguments.
  public var argv: [String]

  /// The placeholders a previewer's command takes: the file (`{path}`, `{name}`, `{folder}`)
  /// and the pane's size in cells (`{width}`, `{height}`). Not `{paths}`: a preview is of one file.
  public static let placeholders = ["{path}", "{name}", "{folder}", "{width}", "{height}"]

  public init(match: OpenerRule.Match, argv: [String]) {
    self.match = match
    self.argv = argv
  }

  /// True when this rule previews an item with this name and content type.
  public func matches(name: ItemName, contentType: ContentType) -> Bool {
    match.matches(name: name, contentType: contentType)
  }

  /// The arguments to run for `path` in a pane of `columns` × `rows` cells.
  public func arguments(for path: ItemPath, columns: Int, rows: Int) -> [[UInt8]] {
    argv.flatMap { argument -> [[UInt8]] in
      switch argument {
      case "{width}": return [Array(String(max(0, columns)).utf8)]
      case "{height}": return [Array(String(max(0, rows)).utf8)]
      default: return CommandTemplate.expand([argument], focused: path, selection: [path])
      }
    }
  }
}
