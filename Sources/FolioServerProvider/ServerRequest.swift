import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI

/// One request to a FolioServer, as a value: it is built again for every attempt, so that a
/// request sent a second time after a transparent re-login streams its upload from the start.
struct ServerRequest: Sendable {
  enum Body: Sendable {
    case none
    case json(Data)
    /// File content streamed from disk, with the length and SHA-256 the server checks.
    case file(URL, size: Int64, sha256: String)
  }

  var method: HTTPMethod
  /// Path segments after `/v1`, unencoded (`["items", id, "children"]`).
  var segments: [String]
  var query: [(String, String)] = []
  var body: Body = .none
  /// How long until the answer's head must have arrived; nil: the connection's first-byte timeout.
  var timeout: TimeAmount?
  /// False only for the sign-in itself.
  var authenticated = true
  var headers: [(String, String)] = []
  /// Told the bytes of a `.file` body handed to the connection so far (an upload's `↑ n%`).
  var uploadProgress: (@Sendable (TransferProgress) -> Void)?

  init(
    _ method: HTTPMethod, _ segments: [String], query: [(String, String)] = [], body: Body = .none,
    timeout: TimeAmount? = nil, authenticated: Bool = true
  ) {
    self.method = method
    self.segments = segments
    self.query = query
    self.body = body
    self.timeout = timeout
    self.authenticated = authenticated
  }

  /// Only reads may be sent again after a connection was dropped before the answer.
  var isIdempotentRead: Bool { method == .GET }

  /// The full URL under `base` (`http://host:port[/prefix]`).
  func url(base: URL) -> String {
    var s = base.absoluteString
    while s.hasSuffix("/") { s.removeLast() }
    s += "/v1"
    for segment in segments { s += "/" + Self.percentEncoded(segment) }
    if !query.isEmpty {
      s += "?" + query.map { Self.percentEncoded($0.0) + "=" + Self.percentEncoded($0.1) }.joined(separator: "&")
    }
    return s
  }

  /// Every byte but the unreserved ones (RFC 3986) escaped, so that `+`, `&`, `/`, `?`, `#` and
  /// `%` in a name or an opaque token reach the server as themselves.
  static func percentEncoded(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for b in s.utf8 {
      switch b {
      case 0x41...0x5A, 0x61...0x7A, 0x30...0x39, 0x2D, 0x2E, 0x5F, 0x7E: out.unicodeScalars.append(Unicode.Scalar(b))
      default:
        let hex = Array("0123456789ABCDEF".utf8)
        out.unicodeScalars.append("%")
        out.unicodeScalars.append(Unicode.Scalar(hex[Int(b >> 4)]))
        out.unicodeScalars.append(Unicode.Scalar(hex[Int(b & 0xF)]))
      }
    }
    return out
  }
}
