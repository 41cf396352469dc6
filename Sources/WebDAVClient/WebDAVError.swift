import Foundation
import ProviderAPI

/// Every failure of the WebDAV client: a code the provider maps to `ProviderError.Code`, a one-line
/// message that is already safe to print (server text passes through `TerminalText`), and what
/// the answer carried that a caller acts on (the realm to sign in to, when to try again).
///
/// The code says what the caller can do, not which status came: a 412 is one code whether it
/// answered `If-Match`, `If-None-Match: *` or `Overwrite: F` — the caller knows which it sent.
public struct WebDAVError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Code: String, Sendable, Equatable {
    /// 401: the server wants (other) credentials; ``WebDAVError/realm`` names what it asks for.
    case needsSignIn
    /// 403.
    case permissionDenied
    /// 404 or 410.
    case notFound
    /// 405 on MKCOL, PUT, MOVE or COPY: something already has that name (RFC 4918 §9.3.1), or a
    /// file was written where a collection is.
    case conflict
    /// 409: a collection on the way is missing (RFC 4918 §9.3.1, §9.7.1, §9.9.4).
    case parentMissing
    /// 412: `If-Match` found another version, `If-None-Match: *` or `Overwrite: F` found the name
    /// taken.
    case preconditionFailed
    /// 423.
    case locked
    /// 507 (RFC 4918 §11.5): over quota or out of space. Not retried blindly (test-plan F02).
    case insufficientStorage
    /// 5xx (but 501, 505, 507), 408, 425, 429: busy or failing for a moment; see ``retryAfter``.
    case retryable
    /// Nextcloud no longer had the pages of a paged listing (their token expired) and listed the
    /// folder afresh midway: the pages are of two snapshots. Read the folder again.
    case pagesExpired
    /// No answer: refused, reset, timed out, name not resolved.
    case unreachable
    /// The TLS handshake failed (an unknown authority, a wrong name, an expired certificate).
    case tlsRefused
    /// Plain http to another machine: the password would travel in clear.
    case insecureTransport
    /// The configuration cannot be used (a URL that is not http(s), an unreadable CA file, a user
    /// name Basic authentication cannot carry).
    case badConfiguration
    /// A name this client cannot put into a request (bytes that are not UTF-8: see
    /// docs/DECISIONS.md), said rather than sent somewhere else.
    case nameNotAddressable
    /// An answer that breaks the protocol: XML that does not parse, an href outside the listed
    /// collection, a Content-Range that does not match.
    case malformedResponse
    /// A ranged GET answered with the whole file (test-plan F07): nothing was written.
    case rangeIgnored
    /// Any other status (a redirect, 400, 415, 501…).
    case unexpectedStatus
    /// A local file could not be read or written.
    case localIO
    /// The calling task was cancelled.
    case cancelled
  }

  public var code: Code
  /// One line, escaped for display.
  public var message: String
  /// The HTTP status when an answer came.
  public var status: Int?
  /// From `WWW-Authenticate: Basic realm="…"` on a 401.
  public var realm: String?
  /// Seconds from `Retry-After`, on a retryable answer that said it.
  public var retryAfter: Double?

  public init(_ code: Code, _ message: String, status: Int? = nil, realm: String? = nil, retryAfter: Double? = nil) {
    self.code = code
    self.message = TerminalText.escapeMessage(Self.oneLine(message))
    self.status = status
    self.realm = realm
    self.retryAfter = retryAfter
  }

  public var description: String { message }

  /// Whether trying the same request again later may succeed.
  public var isTransient: Bool { code == .retryable || code == .unreachable }

  static func oneLine(_ s: String) -> String {
    String(s.prefix(500).map { $0.isNewline ? " " : $0 })
  }

  static let cancelledError = WebDAVError(.cancelled, "cancelled")
}
