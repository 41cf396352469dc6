import Foundation

/// How `folio serve` was asked to run (docs/PROTOCOL.md).
public struct ServerOptions: Sendable, Equatable {
  /// Holds `server.sqlite`, `content/` and `uploads/`.
  public var root: URL
  public var host: String
  /// 0 picks a free port; the chosen one is printed on start.
  public var port: Int
  /// Lines `name:password[:quota-bytes]` applied at start.
  public var usersFile: URL?
  public var tlsCertificate: URL?
  public var tlsKey: URL?
  /// Accept `/v1/_faults` (tests only).
  public var faultsEnabled: Bool
  /// How long a login token stays valid.
  public var tokenLifetime: TimeInterval

  public init(
    root: URL, host: String = "127.0.0.1", port: Int = 8470, usersFile: URL? = nil, tlsCertificate: URL? = nil,
    tlsKey: URL? = nil, faultsEnabled: Bool = false, tokenLifetime: TimeInterval = 30 * 24 * 3600
  ) {
    self.root = root
    self.host = host
    self.port = port
    self.usersFile = usersFile
    self.tlsCertificate = tlsCertificate
    self.tlsKey = tlsKey
    self.faultsEnabled = faultsEnabled
    self.tokenLifetime = tokenLifetime
  }
}
