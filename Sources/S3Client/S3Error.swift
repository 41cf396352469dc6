/// Every failure of the S3 client: a code the provider maps to `ProviderError.Code`, and a one-line
/// message already safe to show (server text and keys pass through ``S3DisplayText``).
///
/// The code comes from the `<Code>` of S3's error body when there is one, else from the HTTP
/// status (HEAD answers carry no body), else from what failed on this side.
public struct S3Error: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Code: String, Sendable, Equatable {
    /// NoSuchKey, or a HEAD answered 404: the object (or that version) is not there.
    case noSuchKey
    /// NoSuchBucket: the bucket is not there (a typo, another account's name, or deleted).
    case noSuchBucket
    /// NoSuchUpload: a multipart upload id that was completed, aborted or expired.
    case noSuchUpload
    /// NoSuchVersion, or a version id the server refuses.
    case noSuchVersion
    /// AccessDenied, or a HEAD answered 403. A wrong secret on a HEAD looks like this too (no body).
    case accessDenied
    /// InvalidAccessKeyId: the key id is unknown to the server.
    case invalidAccessKey
    /// SignatureDoesNotMatch: the secret is wrong (or the request was changed on its way).
    case signatureMismatch
    /// ExpiredToken, InvalidToken, TokenRefreshRequired: the session token is no longer good.
    case expiredToken
    /// PreconditionFailed (412): an If-Match / If-None-Match / copy-source condition did not hold.
    case preconditionFailed
    /// 409 ConditionalRequestConflict or OperationAborted: a concurrent write to the same key won.
    case conflict
    /// 304 on a conditional read (not sent by this client; mapped for completeness).
    case notModified
    /// InvalidRange (416): the range starts past the end.
    case invalidRange
    /// SlowDown / 503 / 429: retry later, with backoff.
    case slowDown
    /// ServiceUnavailable, InternalError, 500, 502, 504: the server failed; retrying may work.
    case serviceUnavailable
    /// RequestTimeout (400): the server waited too long for the body; retrying may work.
    case requestTimeout
    /// RequestTimeTooSkewed: this machine's clock is too far from the server's.
    case clockSkewed
    /// PermanentRedirect / AuthorizationHeaderMalformed about the region: the bucket is elsewhere.
    case wrongRegion
    /// EntityTooSmall, InvalidPart, InvalidPartOrder: a multipart upload's parts do not fit.
    case invalidPart
    /// NotImplemented (501) or a parameter the server does not know (an S3-compatible).
    case notImplemented
    /// The store is full or the bucket is over its quota: 507 Insufficient Storage, or a vendor's
    /// code for it (``S3Error/storageFullCodes``). Not worth retrying until space is freed.
    case insufficientStorage
    /// A key S3 cannot carry (empty, not UTF-8, over 1024 bytes) or another invalid argument
    /// caught before anything was sent.
    case invalidArgument
    /// Any other 4xx the server explained with a code of its own (`serverCode` says which).
    case badRequest
    /// The server's answer broke the protocol: unparsable XML, a listing without its token,
    /// keys outside the requested prefix, a body shorter or longer than announced, a range ignored.
    case malformed
    /// The connection failed: refused, reset, timed out, TLS.
    case transport
    /// A local file could not be read or written.
    case localIO
    /// No credentials were found, or a profile uses a way of getting them this client does not run.
    case noCredentials
  }

  public var code: Code
  /// One line, escaped for display.
  public var message: String
  /// The HTTP status, when the server answered.
  public var httpStatus: Int?
  /// The `<Code>` of S3's error body (`NoSuchKey`, `SlowDown`, …), when there was one.
  public var serverCode: String?
  /// The request id S3 sent (`x-amz-request-id` or `<RequestId>`), for support requests.
  public var requestID: String?

  public init(
    _ code: Code, _ message: String, httpStatus: Int? = nil, serverCode: String? = nil, requestID: String? = nil
  ) {
    self.code = code
    self.message = S3DisplayText.oneLine(message)
    self.httpStatus = httpStatus
    self.serverCode = serverCode
    self.requestID = requestID
  }

  public var description: String { message }

  /// Worth trying again as is, after a pause: the server or the network failed, not the request.
  public var isRetryable: Bool {
    switch code {
    case .slowDown, .serviceUnavailable, .requestTimeout, .transport: true
    default: false
    }
  }

  /// The credentials are the problem: the person should be asked to sign in again. AccessDenied is
  /// included because a HEAD with a wrong secret gets a bare 403 that cannot be told apart from it;
  /// a provider that knows the credentials worked a moment ago may treat it as a per-key refusal.
  public var needsSignIn: Bool {
    switch code {
    case .accessDenied, .invalidAccessKey, .signatureMismatch, .expiredToken: true
    default: false
    }
  }

  static func malformed(_ what: String) -> S3Error { S3Error(.malformed, "the S3 server sent a bad reply: \(what)") }

  /// The `<Code>`s that mean "no space left" — AWS itself has none (remote-providers.md §1.5
  /// "vendor codes, to be collected as they are seen"), so each is a vendor's, from its source:
  /// MinIO `XMinioStorageFull` (507: its drives are under the free-space threshold) and
  /// `XMinioAdminBucketQuotaExceeded` (400: a hard bucket quota; minio `cmd/api-errors.go`), Ceph
  /// RGW `QuotaExceeded` (403: a user or bucket quota; `rgw_common.cc` ERR_QUOTA_EXCEEDED, also
  /// Versity's gateway). Any other code under a 507 Insufficient Storage is full as well. Wasabi's
  /// published S3 error table names no quota code, and none was found for Backblaze B2's S3 API:
  /// theirs stay what their status says. Read before the status, since Ceph's 403 would otherwise
  /// ask for a sign-in.
  public static let storageFullCodes: Set<String> = ["XMinioStorageFull", "XMinioAdminBucketQuotaExceeded", "QuotaExceeded"]

  /// The code for S3's `<Code>` string, or for the status when the string is unknown or absent.
  static func code(serverCode: String?, status: Int) -> Code {
    if let serverCode, storageFullCodes.contains(serverCode) { return .insufficientStorage }
    switch serverCode {
    case "NoSuchKey": return .noSuchKey
    case "NoSuchBucket": return .noSuchBucket
    case "NoSuchUpload": return .noSuchUpload
    case "NoSuchVersion": return .noSuchVersion
    case "AccessDenied", "AllAccessDisabled", "AccountProblem": return .accessDenied
    case "InvalidAccessKeyId": return .invalidAccessKey
    case "SignatureDoesNotMatch": return .signatureMismatch
    case "ExpiredToken", "InvalidToken", "TokenRefreshRequired": return .expiredToken
    case "PreconditionFailed": return .preconditionFailed
    case "ConditionalRequestConflict", "OperationAborted": return .conflict
    case "InvalidRange": return .invalidRange
    case "SlowDown", "TooManyRequests", "Throttling", "ThrottlingException": return .slowDown
    case "ServiceUnavailable", "InternalError": return .serviceUnavailable
    case "RequestTimeout": return .requestTimeout
    case "RequestTimeTooSkewed": return .clockSkewed
    case "PermanentRedirect", "TemporaryRedirect", "AuthorizationHeaderMalformed", "IllegalLocationConstraintException":
      return .wrongRegion
    case "EntityTooSmall", "InvalidPart", "InvalidPartOrder": return .invalidPart
    case "NotImplemented": return .notImplemented
    default: break
    }
    switch status {
    case 304: return .notModified
    case 301, 307: return .wrongRegion
    case 403: return .accessDenied
    case 404: return .noSuchKey
    case 409: return .conflict
    case 412: return .preconditionFailed
    case 416: return .invalidRange
    case 429, 503: return .slowDown
    case 501: return .notImplemented
    case 507: return .insufficientStorage
    case 500...599: return .serviceUnavailable
    default: return .badRequest
    }
  }
}
