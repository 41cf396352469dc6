import Foundation

/// Where a FolioServer domain lives and who signs in there. The secret is not part of it: it comes
/// from the credentials file, a `password_command` or the authentication prompt.
public struct ServerAccount: Sendable, Equatable {
  /// `http://host:port` or `https://…`, without the `/v1`.
  public var baseURL: URL
  public var user: String
  public init(baseURL: URL, user: String) {
    self.baseURL = baseURL
    self.user = user
  }
}
