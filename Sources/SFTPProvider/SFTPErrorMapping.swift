import Foundation
import ProviderAPI
import SFTPClient

/// SFTP and ssh failures as `ProviderError` codes (remote-providers.md §1.5). Messages are
/// already one line and escaped (`SFTPError` passes server text and ssh's stderr through
/// `DisplayText`).
enum SFTPErrorMapping {
  static func map(_ error: any Error) -> ProviderError {
    if let error = error as? ProviderError { return error }
    if error is CancellationError { return .cancelledError }
    guard let error = error as? SFTPError else {
      return ProviderError(.ioError, DisplayText.oneLine(String(describing: error)))
    }
    return ProviderError(code(of: error.code), error.message, underlying: error.status.map { Int32(bitPattern: $0) })
  }

  static func code(of code: SFTPError.Code) -> ProviderError.Code {
    switch code {
    case .noSuchFile: .noSuchItem
    case .permissionDenied: .noPermission
    case .diskFull: .insufficientQuota
    case .hostNotFound, .hostUnreachable, .noConnection, .connectionLost: .serverUnreachable
    case .authenticationRefused, .hostKeyRefused: .notAuthenticated
    case .operationUnsupported: .featureUnsupported
    case .sshFailed: .badConfig
    // A login shell that prints text, or a server that breaks the protocol: nothing to retry blindly.
    case .streamCorrupted, .malformed: .cannotSynchronize
    case .conflict: .localVersionConflictingWithServer
    case .localIO, .endOfFile, .failure, .badMessage: .ioError
    }
  }
}
