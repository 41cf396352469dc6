import Foundation

/// The body of every non-2xx answer: `{"error": {"code": …, "message": …}}`.
///
/// `code` is the name of a File Provider error code (`ProviderError.Code.name`: "noSuchItem",
/// "filenameCollision", …) so a client maps it without guessing from the HTTP status; the status
/// is there for proxies, curl and people (docs/PROTOCOL.md, "Errors").
public struct WireErrorBody: Codable, Sendable, Equatable {
  public struct Detail: Codable, Sendable, Equatable {
    public var code: String
    public var message: String
    /// For filenameCollision: the item holding the name.
    public var existing: String?
    public init(code: String, message: String, existing: String? = nil) {
      self.code = code
      self.message = message
      self.existing = existing
    }
  }
  public var error: Detail
  public init(code: String, message: String, existing: String? = nil) {
    error = Detail(code: code, message: message, existing: existing)
  }
}

/// Error codes on the wire and the HTTP status each is sent with.
public enum WireErrorCode: String, Sendable, CaseIterable {
  case notAuthenticated, filenameCollision, syncAnchorExpired, pageExpired, insufficientQuota
  case noSuchItem, directoryNotEmpty, versionNoLongerAvailable, noPermission, invalidArgument
  /// The upload's bytes do not match its stated size or SHA-256: nothing was stored.
  case contentMismatch
  /// The file is locked by another user: it refuses their content, renames and moves until
  /// unlocked (sent as 423 Locked; the message names who holds the lock).
  case locked
  case serverError

  public var httpStatus: Int {
    switch self {
    case .invalidArgument, .contentMismatch: 400
    case .notAuthenticated: 401
    case .noPermission: 403
    case .locked: 423
    case .noSuchItem: 404
    case .filenameCollision, .directoryNotEmpty: 409
    case .syncAnchorExpired, .pageExpired, .versionNoLongerAvailable: 410
    case .insufficientQuota: 507
    case .serverError: 500
    }
  }
}
