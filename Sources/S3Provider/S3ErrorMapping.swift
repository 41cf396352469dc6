import Foundation
import ProviderAPI
import S3Client

/// S3's failures as `ProviderError` codes (remote-providers.md §1.5): a wrong key or secret is a
/// sign-in, a store that cannot be reached or is overloaded is retried, a missing key is
/// `noSuchItem`, a failed condition a conflict, a full store or bucket `insufficientQuota` (as
/// WebDAV's 507: the core latches it and the location reads over quota until space is freed).
enum S3ErrorMapping {
  static func map(_ error: any Error, location: String, bucket: String) -> ProviderError {
    if let error = error as? ProviderError { return error }
    if error is CancellationError { return ProviderError(.cancelled, "cancelled") }
    guard let e = error as? S3Error else { return ProviderError(.ioError, "\(location): \(error)") }
    let message = "\(location): \(e.message)"
    switch e.code {
    case .noSuchKey, .noSuchVersion, .noSuchUpload: return ProviderError(.noSuchItem, message)
    case .noSuchBucket: return ProviderError(.badConfig, "\(location): the bucket \(bucket) does not exist (\(e.message))")
    case .accessDenied: return ProviderError(.noPermission, message)
    case .invalidAccessKey, .signatureMismatch, .expiredToken, .noCredentials:
      return ProviderError(.notAuthenticated, message)
    case .preconditionFailed, .conflict: return ProviderError(.localVersionConflictingWithServer, message)
    case .slowDown, .serviceUnavailable, .requestTimeout: return ProviderError(.serverBusy, message)
    case .transport: return ProviderError(.serverUnreachable, message)
    case .clockSkewed, .wrongRegion: return ProviderError(.badConfig, message)
    case .notImplemented: return ProviderError(.featureUnsupported, message)
    case .insufficientStorage: return ProviderError(.insufficientQuota, message)
    case .invalidArgument, .invalidRange, .invalidPart, .badRequest: return ProviderError(.invalidArgument, message)
    case .malformed, .notModified: return ProviderError(.cannotSynchronize, message)
    case .localIO: return ProviderError(.ioError, message)
    }
  }
}
