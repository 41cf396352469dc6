import ExtensionHost
import FolioConfig
import Foundation
import ProviderAPI
import ProviderCore

/// `[[domain]] type = "extension"`: a location served by an FEP/1 extension (docs/EXTENSIONS.md).
extension RemoteDomains {
  /// Built without starting anything: the extension starts at the first call.
  static func extensionProvider(for config: DomainConfig, paths: FolioPaths) throws(ProviderError) -> ExtensionProvider? {
    guard case .remote("extension", _) = config.kind else { return nil }
    return ExtensionProvider(launch: try extensionLaunch(for: config, paths: paths))
  }

  /// Where a location's extension runs, logs and stages content:
  /// `$XDG_STATE_HOME/folio/extensions/<name>/` (its working directory), `<name>.log` beside it,
  /// and `$XDG_CACHE_HOME/folio/content/.staging/<name>/` (the content cache's filesystem).
  static func extensionLaunch(for config: DomainConfig, paths: FolioPaths) throws(ProviderError) -> ExtensionLaunch {
    let id = config.identifier
    guard let command = config.extensionCommand, let first = command.first, !first.isEmpty else {
      throw ProviderError(.badConfig, "the location '\(id)' has no command (add command = [\"folio-ext-…\"] to its [[domain]])")
    }
    let folder = paths.stateHome.appendingPathComponent("folio/extensions", isDirectory: true)
    return ExtensionLaunch(
      domain: id, displayName: config.displayName, command: command, config: config.extensionConfig,
      stagingDirectory: paths.contentCache.appendingPathComponent(".staging", isDirectory: true)
        .appendingPathComponent(id.rawValue, isDirectory: true),
      stateDirectory: folder.appendingPathComponent(id.rawValue, isDirectory: true),
      logFile: folder.appendingPathComponent(id.rawValue + ".log", isDirectory: false),
      searchDirectories: extensionDirectories(paths),
      backoff: { n in RetryPolicy.standard.delay(afterFailures: n, jitter: Double.random(in: 0..<1)) })
  }

  /// After PATH: beside the folio binary (where `scripts/install` puts the shipped extensions),
  /// then `$XDG_DATA_HOME/folio/extensions`.
  static func extensionDirectories(_ paths: FolioPaths) -> [String] {
    [ExtensionCommand.binaryDirectory, paths.dataHome.appendingPathComponent("folio/extensions").path].compactMap { $0 }
  }
}
