import ProviderAPI

/// Where each `[keys]` line of config.toml is, so that a binding the key map refuses (an unknown
/// command, a key name it cannot read) is reported as every other config error is:
/// `<file>:<line>: keys.<command>: <what is wrong>`, exit 3, before the browser starts.
///
/// The key names themselves are the browser's (BrowserUI's `KeyMap` reads them, and it does not
/// depend on this module): the decoder checks only their TOML shape and remembers their lines.
public struct KeyBindingSource: Sendable, Equatable {
  /// How messages name the file (its path, or `config.toml` for a text parsed alone).
  public var file: String
  /// The line of each command's `command = …`.
  var lines: [String: Int]
  /// The line of each key name, by command (a multi-line array has one per line).
  var keyLines: [String: [String: Int]]

  public init(file: String = "config.toml", lines: [String: Int] = [:], keyLines: [String: [String: Int]] = [:]) {
    self.file = file
    self.lines = lines
    self.keyLines = keyLines
  }

  /// Where the lines are is not part of what the configuration says: two configurations with the
  /// same bindings are equal wherever they were written (DomainConfigEditor compares the
  /// configuration before and after it adds or removes a `[[domain]]`, which moves `[keys]`).
  public static func == (a: Self, b: Self) -> Bool { true }

  /// A `badConfig` error about the binding of `command` (or of its key `key`), on its line.
  public func error(command: String, key: String?, _ what: String) -> ProviderError {
    let line = key.flatMap { keyLines[command]?[$0] } ?? lines[command] ?? 1
    return ProviderError(.badConfig, "\(file):\(line): keys.\(ConfigDecoder.oneLine(command)): \(ConfigDecoder.oneLine(what))")
  }
}
