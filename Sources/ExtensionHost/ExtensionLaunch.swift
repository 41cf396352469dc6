import Foundation
import ProviderAPI

/// What it takes to start one location's extension: its argv, its settings, its folders, and
/// the host's policies (deadlines, backoff, breaker), which tests shorten.
public struct ExtensionLaunch: Sendable {
  public var domain: DomainIdentifier
  public var displayName: String
  /// The argv, argv[0] found by ``ExtensionCommand``.
  public var command: [String]
  /// `[domain.config]`, passed verbatim in `initialize.params.config`.
  public var config: [String: String]
  /// `$XDG_CACHE_HOME/folio/content/.staging/<domain>`: on the content cache's filesystem.
  public var stagingDirectory: URL
  /// This process's own folder in it (`<pid>`): what the extension is given as `stagingDir`, and
  /// what a start empties. The browser and `folio sync` may run one location's extension at the
  /// same time; one emptying the other's staging folder would cut its transfers short.
  public var processStagingDirectory: URL {
    stagingDirectory.appendingPathComponent(String(getpid()), isDirectory: true)
  }
  /// `$XDG_STATE_HOME/folio/extensions/<domain>`: the extension's working directory.
  public var stateDirectory: URL
  /// `$XDG_STATE_HOME/folio/extensions/<domain>.log`.
  public var logFile: URL
  /// Where argv[0] is also looked for after PATH.
  public var searchDirectories: [String]
  public var deadlines: ExtensionDeadlines
  /// The delay before restart number `n` (1, 2, …) after crashes: Folio's RetryPolicy.
  public var backoff: @Sendable (Int) -> TimeInterval
  /// This many crashes within ``breakerWindow`` stop restarts until the user retries.
  public var breakerCrashes: Int
  public var breakerWindow: TimeInterval
  public var hostVersion: String

  public init(
    domain: DomainIdentifier, displayName: String, command: [String], config: [String: String],
    stagingDirectory: URL, stateDirectory: URL, logFile: URL, searchDirectories: [String] = [],
    deadlines: ExtensionDeadlines = .standard,
    backoff: @escaping @Sendable (Int) -> TimeInterval = ExtensionLaunch.standardBackoff,
    breakerCrashes: Int = 5, breakerWindow: TimeInterval = 180, hostVersion: String = "0.14"
  ) {
    self.domain = domain
    self.displayName = displayName
    self.command = command
    self.config = config
    self.stagingDirectory = stagingDirectory
    self.stateDirectory = stateDirectory
    self.logFile = logFile
    self.searchDirectories = searchDirectories
    self.deadlines = deadlines
    self.backoff = backoff
    self.breakerCrashes = breakerCrashes
    self.breakerWindow = breakerWindow
    self.hostVersion = hostVersion
  }

  /// 1 s doubling to 5 min, with equal jitter: ProviderCore's RetryPolicy.standard, restated
  /// here so this module needs ProviderAPI only (FolioCommandLine passes RetryPolicy itself).
  public static let standardBackoff: @Sendable (Int) -> TimeInterval = { n in
    let full = min(300, pow(2, Double(max(0, min(n - 1, 40)))))
    return full * (0.5 + 0.5 * Double.random(in: 0..<1))
  }
}
