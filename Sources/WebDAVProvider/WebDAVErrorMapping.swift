import Foundation
import ProviderAPI
import WebDAVClient

/// WebDAV's failures as `ProviderError` codes (remote-providers.md §1.5): 401 is a sign-in, 507
/// insufficient quota, an unreachable server or a TLS refusal is retried later, a busy one backed
/// off. A 412 is mapped by the caller, which knows what it sent (a conditional PUT, `Overwrite: F`).
enum WebDAVErrorMapping {
  static func map(_ error: any Error, location: String) -> ProviderError {
    if let error = error as? ProviderError { return error }
    if error is CancellationError { return ProviderError(.cancelled, "cancelled") }
    guard let e = error as? WebDAVError else { return ProviderError(.ioError, "\(location): \(error)") }
    let message = "\(location): \(e.message)"
    switch e.code {
    case .needsSignIn: return ProviderError(.notAuthenticated, message)
    case .permissionDenied: return ProviderError(.noPermission, message)
    case .notFound, .parentMissing: return ProviderError(.noSuchItem, message)
    case .conflict: return ProviderError(.filenameCollision, message)
    case .preconditionFailed: return ProviderError(.localVersionConflictingWithServer, message)
    case .locked: return ProviderError(.itemLocked, message)
    case .insufficientStorage: return ProviderError(.insufficientQuota, message)
    case .retryable, .pagesExpired: return ProviderError(.serverBusy, message, retryAfter: e.retryAfter)
    case .unreachable: return ProviderError(.serverUnreachable, message)
    case .tlsRefused: return ProviderError(.cannotSynchronize, message + " (a server with its own certificate: add it with --ca-file)")
    case .insecureTransport, .badConfiguration: return ProviderError(.badConfig, message)
    case .nameNotAddressable: return ProviderError(.invalidArgument, message)
    case .malformedResponse, .rangeIgnored, .unexpectedStatus: return ProviderError(.cannotSynchronize, message)
    case .localIO: return ProviderError(.ioError, message)
    case .cancelled: return ProviderError(.cancelled, message)
    }
  }
}
