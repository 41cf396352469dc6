import ProviderAPI

/// A location from `[[domain]]`: a folder on this computer, or an account on a server.
public struct DomainConfig: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    /// A folder on this computer; `root` is absolute, with `~` already expanded.
    case local(root: String)
    /// A server. `type` is "folio", "webdav", "s3" or "sftp"; `settings` holds the table's other
    /// string keys (`server`, `url`, `user`). Secrets never appear here: they live in the
    /// credentials file.
    case remote(type: String, settings: [String: String])
  }

  /// Types a `[[domain]]` may have.
  public static let types = ["local", "folio", "webdav", "s3", "sftp", "extension"]

  /// The `name` key: short, stable, used in paths of the content cache and on the command line.
  public var identifier: DomainIdentifier
  /// What the sidebar shows; the name when the config gives none.
  public var displayName: String
  public var kind: Kind
  /// For remote domains: a program that prints the password on its first line of output
  /// (`password_command = ["pass", "show", "folio/work"]`), run with this argv, never a shell.
  /// Used when the credentials file has no secret for the domain.
  public var passwordCommand: [String]?
  /// For `type = "extension"` (kind `.remote("extension", [:])`): the extension's argv
  /// (`command = ["folio-ext-sqlite"]`), and `[domain.config]`, its settings, passed verbatim
  /// in `initialize` (docs/EXTENSIONS.md).
  public var extensionCommand: [String]?
  public var extensionConfig: [String: String]

  public init(
    identifier: DomainIdentifier, displayName: String, kind: Kind, passwordCommand: [String]? = nil,
    extensionCommand: [String]? = nil, extensionConfig: [String: String] = [:]
  ) {
    self.identifier = identifier
    self.displayName = displayName
    self.kind = kind
    self.passwordCommand = passwordCommand
    self.extensionCommand = extensionCommand
    self.extensionConfig = extensionConfig
  }
}
