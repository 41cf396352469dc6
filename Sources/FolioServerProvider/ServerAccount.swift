import Foundation

/// Where a FolioServer domain lives and who signs in there. The secret is not part of it: it comes
/// from the credentials file, a `password_command` or the authentication prompt.
public struct ServerAccount: Sendable, Equatable {
  /// `http://host:port` or `https://…`, without the `/v1`.
  public var baseURL: URL
  public var user: String
  /// A PEM file of the certificates to trust for https instead of the system's roots: a server
  /// with its own or a self-signed certificate (`tls_ca` in its `[[domain]]`). Nil: the system's.
  public var trustedCertificates: URL?
  public init(baseURL: URL, user: String, trustedCertificates: URL? = nil) {
    self.baseURL = baseURL
    self.user = user
    self.trustedCertificates = trustedCertificates
  }
}
