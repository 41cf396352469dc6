import AsyncHTTPClient
import FolioProtocol
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI

/// How answers and failures of a FolioServer become `ProviderError`s.
///
/// The wire `code` decides, not the status (docs/PROTOCOL.md, "Errors"); the status only counts
/// when the body is not a FolioServer error (a proxy's 502 page). Resolvable conditions keep their
/// File Provider codes so that the core latches them: 401 `notAuthenticated`, 507
/// `insufficientQuota`, no connection at all `serverUnreachable`. A server that is busy or failing
/// for a moment (5xx, 429) is `serverBusy`, transient, with its `Retry-After`. An answer Folio cannot
/// read is `cannotSynchronize`: a broken server, never a crash and never "nothing there" (F08).
///
/// Every text that came from the server goes through `TerminalText` before it lands in a
/// message: messages are printed.
package enum ServerErrorMapping {
  /// The error for a non-2xx answer.
  ///
  /// - Parameters:
  ///   - status: The HTTP status.
  ///   - headers: The answer's headers (`Retry-After`).
  ///   - body: The body, when it could be read.
  ///   - server: How to name the server in messages.
  package static func error(status: HTTPResponseStatus, headers: HTTPHeaders, body: Data?, server: String) -> ProviderError {
    let retryAfter = retryAfterSeconds(headers)
    let detail = body.flatMap { try? JSONDecoder().decode(WireErrorBody.self, from: $0) }?.error
    let message = detail.map { TerminalText.escape(oneLine($0.message)) }
    if let detail, let code = WireErrorCode(rawValue: detail.code) {
      let text = message ?? code.rawValue
      switch code {
      case .notAuthenticated: return ProviderError(.notAuthenticated, text)
      case .filenameCollision:
        let existing = detail.existing.flatMap { try? WireItemMapper.identifier($0) }
        return ProviderError(.filenameCollision, text, existingItem: existing)
      case .syncAnchorExpired: return ProviderError(.syncAnchorExpired, text)
      case .pageExpired: return ProviderError(.pageExpired, text)
      case .insufficientQuota: return ProviderError(.insufficientQuota, text)
      case .noSuchItem: return ProviderError(.noSuchItem, text)
      case .directoryNotEmpty: return ProviderError(.directoryNotEmpty, text)
      case .versionNoLongerAvailable: return ProviderError(.versionNoLongerAvailable, text)
      case .noPermission: return ProviderError(.noPermission, text)
      case .locked: return ProviderError(.itemLocked, text)
      case .invalidArgument: return ProviderError(.invalidArgument, text)
      case .contentMismatch:
        return ProviderError(.ioError, "the server received other bytes than Folio sent (nothing was stored): \(text)")
      case .serverError: return ProviderError(.serverBusy, "\(server) failed: \(text)", retryAfter: retryAfter)
      }
    }
    let suffix = message.map { ": \($0)" } ?? ""
    switch status.code {
    case 401: return ProviderError(.notAuthenticated, "\(server) asks to sign in again\(suffix)")
    case 403: return ProviderError(.noPermission, "\(server) refused access\(suffix)")
    case 404: return ProviderError(.noSuchItem, "no such item on \(server)\(suffix)")
    case 423: return ProviderError(.itemLocked, "the item is locked on \(server)\(suffix)")
    case 507: return ProviderError(.insufficientQuota, "not enough space left on \(server)\(suffix)")
    case 408, 425, 429, 500...599:
      return ProviderError(
        .serverBusy, "\(server) is busy or failing (HTTP \(status.code))\(suffix)", retryAfter: retryAfter)
    default:
      return ProviderError(
        .cannotSynchronize, "\(server) gave an unexpected answer (HTTP \(status.code))\(suffix)")
    }
  }

  /// The error for a request that got no answer: the connection failed, timed out or was cut.
  ///
  /// - Parameter phase: What was happening ("connecting", "reading the answer"), for the message.
  /// - Parameter ownCertificates: The account trusts its own certificates (`tls_ca`): a refused
  ///   one is then not answered with the advice to trust it.
  static func transport(_ error: any Error, server: String, ownCertificates: Bool = false) -> ProviderError {
    if let e = error as? ProviderError { return e }
    if error is CancellationError || Task.isCancelled { return .cancelledError }
    if let e = error as? HTTPClientError {
      if e == .cancelled || e == .requestStreamCancelled { return .cancelledError }
      if e == .connectTimeout || e == .getConnectionFromPoolTimeout {
        return ProviderError(.serverUnreachable, "cannot connect to \(server) (no answer within 10 s)")
      }
      if e == .deadlineExceeded {
        return ProviderError(.serverUnreachable, "\(server) did not start answering in time")
      }
      if e == .readTimeout || e == .writeTimeout {
        return ProviderError(.serverUnreachable, "\(server) stopped responding (nothing for 60 s)")
      }
      if e == .remoteConnectionClosed {
        return ProviderError(.serverUnreachable, "\(server) closed the connection")
      }
      if e == .bodyLengthMismatch {
        return ProviderError(.ioError, "the file changed while it was being sent to \(server); nothing was stored")
      }
    }
    if let io = error as? IOError {
      // NIO's own text ("connection reset (error set): Connection refused (errno: 111)") names its
      // internals; the system's words for the errno are what a person can act on.
      let words = String(cString: strerror(io.errnoCode))
      let said = words.prefix(1).lowercased() + words.dropFirst()
      return ProviderError(.serverUnreachable, "cannot reach \(server): \(said)", underlying: io.errnoCode)
    }
    let description = TerminalText.escape(oneLine(String(describing: error)))
    let typeName = String(reflecting: type(of: error))
    if typeName.contains("NIOSSL") || typeName.contains("TLS") {
      // Never retried blindly: a certificate that fails verification stays failed (test-plan K5).
      // The way to trust a server's own certificate, only where that is the question: a
      // certificate no trusted authority signed, on an account that trusts none of its own. Not for
      // a wrong name or an expired one, where trusting what was shown would be the mistake.
      let unverified = description.contains("CERTIFICATE_VERIFY_FAILED")
      let hint =
        unverified && !ownCertificates
        ? " (if this server has its own certificate, get it from its administrator, not from the connection, and trust it with folio domain add --ca-file or tls_ca = \"/path/cert.pem\" in its [[domain]])"
        : ""
      return ProviderError(.cannotSynchronize, "the TLS connection to \(server) was refused: \(description)\(hint)")
    }
    return ProviderError(.serverUnreachable, "cannot reach \(server): \(description)")
  }

  /// A body Folio could not decode.
  static func unreadable(_ what: String, server: String, error: any Error) -> ProviderError {
    let why: String
    switch error {
    case DecodingError.dataCorrupted(let c): why = c.debugDescription
    case DecodingError.keyNotFound(let key, _): why = "the key '\(key.stringValue)' is missing"
    case DecodingError.typeMismatch(_, let c): why = "wrong type at \(path(c.codingPath))"
    case DecodingError.valueNotFound(_, let c): why = "missing value at \(path(c.codingPath))"
    default: why = String(describing: error)
    }
    return ProviderError(
      .cannotSynchronize, "\(server) sent \(what) Folio cannot read: \(TerminalText.escape(oneLine(why)))")
  }

  private static func path(_ keys: [any CodingKey]) -> String {
    keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
  }

  /// `Retry-After` in seconds: a number of seconds or an HTTP date; nil when absent or unreadable.
  static func retryAfterSeconds(_ headers: HTTPHeaders, now: Date = Date()) -> Double? {
    guard let raw = headers.first(name: "Retry-After")?.trimmingCharacters(in: .whitespaces), !raw.isEmpty else {
      return nil
    }
    if let seconds = Double(raw), seconds.isFinite, seconds >= 0 { return min(seconds, 24 * 3600) }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
    guard let date = formatter.date(from: raw) else { return nil }
    return min(max(0, date.timeIntervalSince(now)), 24 * 3600)
  }

  static func oneLine(_ s: String) -> String {
    String(s.prefix(500).map { $0.isNewline ? " " : $0 })
  }
}
