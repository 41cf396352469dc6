import BrowserUI
import FolioConfig
import ProviderAPI

extension FolioConfiguration {
  /// config.toml as every command reads it: decoded, then its `[keys]` read by the browser's key
  /// map (FolioConfig cannot: the key names are BrowserUI's). A binding the key map refuses — an
  /// unknown command, a key name such as "hyper-q" — is a `badConfig` error on its line, exit 3,
  /// like any other mistake in the file. It used to be a status message once the UI was up, with
  /// the binding dropped: `quit = "hyper-q"` left Folio with no key that quits.
  static func loadChecked(paths: FolioPaths) throws(ProviderError) -> FolioConfiguration {
    let configuration = try load(paths: paths)
    let (_, problems) = KeyMap.standard.overridden(by: configuration.keyBindings)
    if let p = problems.first {
      throw configuration.keyBindingSource.error(command: p.command, key: p.key, TerminalText.escape(p.message))
    }
    return configuration
  }
}
