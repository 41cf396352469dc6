import Foundation
import Testing
import WebDAVClient
import WebDAVTestSupport

extension DAVServerKind: CustomTestStringConvertible {
  public var testDescription: String { rawValue }

  /// Whether PROPFIND lists `getetag`.
  var listsETags: Bool { self != .nginx }
  /// Whether PROPFIND shows names that begin with a dot (dav-ext skips them).
  var listsDotNames: Bool { self != .nginx }
  /// Whether PROPFIND shows names whose bytes are not UTF-8 (rclone's VFS leaves them out).
  var listsNamesThatAreNotUTF8: Bool { self != .rclone }
  /// Whether MKCOL of an existing name is refused (405); rclone answers 201.
  var refusesMakingAnExistingCollection: Bool { self != .rclone }
  /// Whether a file's MOVE or COPY to a new name answers 201; nginx answers 204 (201 for a
  /// collection).
  var saysCreatedOnMoveAndCopy: Bool { self != .nginx }
  /// What MOVE into a collection that does not exist gets (measured with curl): Apache 500,
  /// rclone 403, and nginx makes the missing collections and moves (nil: no error).
  var moveIntoAMissingCollection: WebDAVError.Code? {
    switch self {
    case .apache: .retryable
    case .nginx: nil
    case .rclone: .permissionDenied
    }
  }
  /// What PUT into a collection that does not exist gets: Apache 409 as RFC 4918 says, nginx 500,
  /// rclone 404.
  var putIntoAMissingCollection: WebDAVError.Code {
    switch self {
    case .apache: .parentMissing
    case .nginx: .retryable
    case .rclone: .notFound
    }
  }
}

extension WebDAVTestServer {
  func client(password: String? = nil) throws -> WebDAVClient {
    WebDAVClient(try WebDAVConfiguration(url: baseURL, user: user, password: password ?? self.password))
  }
}
