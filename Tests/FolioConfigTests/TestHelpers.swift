import FolioConfig
import ProviderAPI

/// Paths for a user "ana" with no XDG variables set.
let anaPaths = FolioPaths(environment: ["HOME": "/home/ana"])

/// The config a text parses to, with `~` meaning /home/ana.
func parse(_ text: String) throws(ProviderError) -> FolioConfiguration {
  try FolioConfiguration.parse(text, file: "config.toml", paths: anaPaths)
}

/// The message of the error a text is rejected with, or nil when it parses.
func parseError(_ text: String) -> String? {
  do {
    _ = try parse(text)
    return nil
  } catch {
    return error.code == .badConfig ? error.message : "wrong code \(error.code): \(error.message)"
  }
}
