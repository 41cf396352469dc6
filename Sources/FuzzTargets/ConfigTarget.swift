import BrowserUI
import FolioConfig
import ProviderAPI

/// config.toml as `folio` reads it (TOMLKit's parser, then FolioConfig's decoding).
///
/// Property: any text is a configuration or a `.badConfig` error value with a one-line message
/// that names the file and is safe to show; never a trap.
enum ConfigTarget {
  static let target = FuzzTarget(
    name: "config-toml", summary: "config.toml: a configuration or a .badConfig value with a safe one-line message",
    dictionary: FuzzDictionary.toml
  ) { bytes in
    let text = String(decoding: bytes, as: UTF8.self)
    do throws(ProviderError) {
      _ = try FolioConfiguration.parse(text, file: "config.toml", paths: paths)
      return nil
    } catch {
      guard error.code == .badConfig else { return FuzzViolation("config.toml failed with \(error.code), not badConfig") }
      guard error.message.hasPrefix("config.toml:") else {
        return FuzzViolation("a config error does not name the file: \(TerminalText.escape(error.message))")
      }
      if error.message.contains("\n") { return FuzzViolation("a config error runs over several lines") }
      return TerminalSafety.check(error.message, from: "a config error message")
    }
  }

  /// A home that does not exist: `~` expands, nothing is read.
  static let paths = FolioPaths(environment: ["HOME": "/nonexistent-folio-fuzz"])
}

/// A theme file (`Themes/*.toml`, `[theme] file = …`) as the browser loads it.
///
/// Property: a theme, or a `ThemeError` value whose message is safe to show.
enum ThemeTarget {
  static let target = FuzzTarget(
    name: "theme", summary: "theme files: a Theme or a ThemeError value with a safe message",
    dictionary: FuzzDictionary.toml
  ) { bytes in
    let text = String(decoding: bytes, as: UTF8.self)
    do throws(ThemeError) {
      _ = try Theme.parse(text, file: "fuzz.toml", searchPaths: [])
      return nil
    } catch {
      if error.description.isEmpty { return FuzzViolation("a theme error with no message") }
      return TerminalSafety.check(error.description, from: "a theme error message")
    }
  }
}
