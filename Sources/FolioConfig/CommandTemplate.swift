import ProviderAPI

/// A placeholder in an opener's or a custom action's command.
public enum CommandPlaceholder: String, Sendable, CaseIterable {
  /// The full path of the focused item.
  case path = "{path}"
  /// One argument per selected item, each a full path.
  case paths = "{paths}"
  /// The focused item's name (its last path component).
  case name = "{name}"
  /// The full path of the folder holding the focused item.
  case folder = "{folder}"
}

/// The argv of a command from the config, with its placeholders.
///
/// Folio runs commands with `posix_spawn`, never through a shell, and never splices a path into a
/// longer string: a placeholder is always a whole argument, so a name such as `-rf` or `$(reboot)`
/// can only ever be one argument, seen by the program as data. `"--out={path}"` is therefore
/// refused when the config is read (see ``validate(_:)``). `~` and `$VARS` are not expanded either.
public enum CommandTemplate {
  /// Why `argv` is not a valid command, or nil when it is.
  ///
  /// - Parameter placeholders: the placeholders this kind of command takes: every
  ///   ``CommandPlaceholder`` for openers and actions; a `[[previewer]]` takes its own set (see
  ///   ``PreviewerRule/placeholders``).
  /// - Returns: a one-line explanation and the offending argument (to find its line), or nil.
  public static func validate(
    _ argv: [String], placeholders names: [String] = CommandPlaceholder.allCases.map(\.rawValue)
  ) -> (message: String, argument: String)? {
    guard let program = argv.first else {
      return ("the command is empty: give at least the program, e.g. [\"xdg-open\", \"{path}\"]", "")
    }
    if program.isEmpty { return ("the program name is empty", program) }
    for argument in argv {
      if names.contains(argument) { continue }
      if let inside = names.first(where: { argument.contains($0) }) {
        let quoted = quote(argument)
        return (
          "\(quoted) puts \(inside) inside an argument; a placeholder must be a whole argument"
            + " (Folio never splices paths into strings or runs a shell): split it, e.g. \"--out\", \"{path}\"",
          argument
        )
      }
      if isPlaceholderShaped(argument) {
        return (
          "unknown placeholder \(quote(argument)) (use \(names.joined(separator: ", ")))", argument
        )
      }
    }
    return nil
  }

  /// The arguments to run, with placeholders replaced: bytes, because names are bytes on Linux.
  ///
  /// - Parameters:
  ///   - argv: a command that passed ``validate(_:)``.
  ///   - focused: the item `{path}`, `{name}` and `{folder}` describe.
  ///   - selection: the items `{paths}` expands to, in order (one argument each; none when empty).
  public static func expand(_ argv: [String], focused: ItemPath, selection: [ItemPath]) -> [[UInt8]] {
    var result: [[UInt8]] = []
    for argument in argv {
      switch CommandPlaceholder(rawValue: argument) {
      case .path: result.append(focused.bytes)
      case .paths: result.append(contentsOf: selection.map(\.bytes))
      case .name: result.append(focused.lastComponent?.bytes ?? focused.bytes)
      case .folder: result.append(focused.parent.bytes)
      case nil: result.append(Array(argument.utf8))
      }
    }
    return result
  }

  /// `{word}`: what a mistyped placeholder looks like (`{file}`), but not `{}` as find(1) uses it.
  private static func isPlaceholderShaped(_ s: String) -> Bool {
    guard s.count > 2, s.first == "{", s.last == "}" else { return false }
    return s.dropFirst().dropLast().allSatisfy { $0.isASCII && ($0.isLetter || $0 == "_") }
  }

  static func quote(_ s: String) -> String { "\"" + TerminalText.escape(s) + "\"" }
}
