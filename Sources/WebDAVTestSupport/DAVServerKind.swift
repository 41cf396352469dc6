import Foundation

/// The three real servers the WebDAV suites run against, each started per test, and what each
/// does that matters to every suite (measured; the client's and the provider's own facts are
/// extensions in their test targets).
public enum DAVServerKind: String, CaseIterable, Sendable {
  /// Apache 2.4 mod_dav_fs: honours conditional writes, replaces a file when its upload is complete.
  case apache
  /// nginx dav + dav-ext: ignores conditional writes, lists no ETags, hides dot names from PROPFIND.
  case nginx
  /// rclone serve webdav (x/net/webdav): ignores conditional writes, writes uploads in place.
  case rclone

  public func start() throws -> any WebDAVTestServer {
    switch self {
    case .apache: try ApacheDAVServer()
    case .nginx: try NginxDAVServer()
    case .rclone: try RcloneDAVServer()
    }
  }

  /// Whether `If-Match` / `If-None-Match: *` on PUT are honoured.
  public var honoursConditionalWrites: Bool { self == .apache }
  /// Whether a PUT writes into the file itself while the body arrives.
  public var writesInPlace: Bool { self == .rclone }
}
