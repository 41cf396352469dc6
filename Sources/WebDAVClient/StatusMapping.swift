import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI

/// What a request was: the same status means different things to different methods (405 on MKCOL
/// is "exists", on PROPFIND "not a WebDAV server").
enum DAVOperation: String, Sendable {
  case list = "PROPFIND", stat = "PROPFIND (Depth 0)", get = "GET", put = "PUT", mkcol = "MKCOL", delete = "DELETE"
  case move = "MOVE", copy = "COPY", proppatch = "PROPPATCH", post = "POST"

  /// The operations that create a name, where 405 and 409 speak of the namespace.
  var creates: Bool { self == .put || self == .mkcol || self == .move || self == .copy }
}

/// How HTTP answers and transport failures become ``WebDAVError``s (remote-providers.md §1.5).
enum StatusMapping {
  /// The error for a non-2xx answer.
  ///
  /// - Parameters:
  ///   - subject: The escaped path the request named, for the message.
  ///   - body: Up to a few KiB of the answer, when read: its first line goes into the message of an
  ///     unexpected status only (a server's HTML error page says nothing more useful elsewhere).
  static func error(
    status: Int, headers: HTTPHeaders, operation: DAVOperation, subject: String, server: String, body: String? = nil
  ) -> WebDAVError {
    let what = "\(operation.rawValue) \(subject) on \(server)"
    switch status {
    case 401:
      let realm = realm(headers)
      let asked = realm.map { " (realm \"\(TerminalText.escape($0))\")" } ?? ""
      return WebDAVError(.needsSignIn, "\(server) refused the user name or password\(asked)", status: status, realm: realm)
    case 403: return WebDAVError(.permissionDenied, "permission denied: \(what)", status: status)
    case 404, 410: return WebDAVError(.notFound, "no such item: \(what)", status: status)
    case 405 where operation.creates:
      return WebDAVError(.conflict, "the name is taken or is a folder: \(what) (HTTP 405)", status: status)
    case 409 where operation.creates:
      return WebDAVError(.parentMissing, "the folder it goes into does not exist: \(what) (HTTP 409)", status: status)
    case 409: return WebDAVError(.conflict, "the server refused it as a conflict: \(what) (HTTP 409)", status: status)
    case 412:
      let why =
        operation == .move || operation == .copy
        ? "the destination already exists" : "the item is not in the state the request required"
      return WebDAVError(.preconditionFailed, "\(why): \(what) (HTTP 412)", status: status)
    case 423: return WebDAVError(.locked, "the item is locked: \(what)", status: status)
    case 507: return WebDAVError(.insufficientStorage, "not enough space left: \(what) (HTTP 507)", status: status)
    case 408, 425, 429, 500, 502, 503, 504, 509:
      return WebDAVError(
        .retryable, "\(server) is busy or failing (HTTP \(status)): \(what)", status: status,
        retryAfter: retryAfter(headers))
    case 300..<400:
      // Redirects are not followed: one to another host would take the password along (test-plan F12).
      let location = headers.first(name: "Location").map { " to \(TerminalText.escape($0))" } ?? ""
      return WebDAVError(.unexpectedStatus, "\(server) redirects\(location) (HTTP \(status)): \(what)", status: status)
    default:
      let said = body.flatMap { $0.split(whereSeparator: \.isNewline).first }.map { ": \(TerminalText.escape(String($0.prefix(200))))" } ?? ""
      return WebDAVError(.unexpectedStatus, "unexpected answer (HTTP \(status)) to \(what)\(said)", status: status)
    }
  }

  /// The error for a request that got no answer: the connection failed, timed out or was cut.
  static func transport(_ error: any Error, server: String) -> WebDAVError {
    if let e = error as? WebDAVError { return e }
    if error is CancellationError || Task.isCancelled { return .cancelledError }
    if let e = error as? HTTPClientError {
      if e == .cancelled || e == .requestStreamCancelled { return .cancelledError }
      if e == .connectTimeout || e == .getConnectionFromPoolTimeout {
        return WebDAVError(.unreachable, "cannot connect to \(server) (no answer in time)")
      }
      if e == .deadlineExceeded { return WebDAVError(.unreachable, "\(server) did not start answering in time") }
      if e == .readTimeout || e == .writeTimeout { return WebDAVError(.unreachable, "\(server) stopped responding") }
      if e == .remoteConnectionClosed { return WebDAVError(.unreachable, "\(server) closed the connection") }
      if e == .bodyLengthMismatch {
        return WebDAVError(.localIO, "the file changed while it was being sent to \(server)")
      }
    }
    if let io = error as? IOError {
      // The system's words for the errno, not NIO's internals ("connection reset (error set)…").
      let words = String(cString: strerror(io.errnoCode))
      return WebDAVError(.unreachable, "cannot reach \(server): \(words.prefix(1).lowercased() + words.dropFirst())")
    }
    let description = String(describing: error)
    let typeName = String(reflecting: type(of: error))
    if typeName.contains("NIOSSL") || typeName.contains("TLS") {
      return WebDAVError(.tlsRefused, "the TLS connection to \(server) was refused: \(description)")
    }
    if typeName.contains("NIOConnectionError") || typeName.contains("SocketAddressError") {
      return WebDAVError(.unreachable, "cannot reach \(server): \(description)")
    }
    return WebDAVError(.unreachable, "cannot reach \(server): \(description)")
  }

  /// The realm of a `Basic` challenge (`WWW-Authenticate: Basic realm="x"`), unquoted.
  static func realm(_ headers: HTTPHeaders) -> String? {
    for challenge in headers[canonicalForm: "WWW-Authenticate"] {
      let text = String(challenge)
      guard let range = text.range(of: "realm=", options: .caseInsensitive) else { continue }
      var rest = text[range.upperBound...]
      if rest.first == "\"" {
        rest = rest.dropFirst()
        var value = ""
        var escaped = false
        for character in rest {
          if escaped {
            value.append(character)
            escaped = false
          } else if character == "\\" {
            escaped = true
          } else if character == "\"" {
            return value
          } else {
            value.append(character)
          }
        }
        return value
      }
      return String(rest.prefix { $0 != "," && $0 != " " })
    }
    return nil
  }

  /// `Retry-After` in seconds: a number or an HTTP date; nil when absent or unreadable.
  static func retryAfter(_ headers: HTTPHeaders, now: Date = Date()) -> Double? {
    guard let raw = headers.first(name: "Retry-After")?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else {
      return nil
    }
    if let seconds = Double(raw), seconds.isFinite, seconds >= 0 { return min(seconds, 24 * 3600) }
    guard let date = HTTPDate.parse(raw) else { return nil }
    return min(max(0, date.timeIntervalSince(now)), 24 * 3600)
  }
}
