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

  /// `error` as a `ProviderError` whose message names the paths it quotes as the person knows
  /// them: `“box:/docs/a.txt”`, the location and the path inside it, rather than the server's
  /// `“/home/u/shared/docs/a.txt”` (the client only knows server paths; the person typed the
  /// location's). A path outside the location's folder keeps its server form: that is where it is.
  ///
  /// - Parameters:
  ///   - root: The location's folder on the server, absolute, as `SFTPSession.Connection` holds it.
  ///   - location: How the person names the location (its identifier, as in `box:/path`).
  static func map(_ error: any Error, root: [UInt8], location: String) -> ProviderError {
    let mapped = map(error)
    let message = naming(mapped.message, root: root, location: location)
    guard message != mapped.message else { return mapped }
    return ProviderError(
      mapped.code, message, existingItem: mapped.existingItem, underlying: mapped.underlying,
      retryAfter: mapped.retryAfter)
  }

  /// Rewrites the quoted server paths under `root` in an already escaped message. Paths are
  /// quoted “…” and escaped byte for byte (`SFTPClient.describe`), so the escaped root followed by
  /// "/" or the closing quote is exactly a path inside the location.
  static func naming(_ message: String, root: [UInt8], location: String) -> String {
    let place = "“" + DisplayText.escape(Array(location.utf8)) + ":/"
    if root == [0x2F] { return message.replacingOccurrences(of: "“/", with: place) }
    let shownRoot = "“" + DisplayText.escape(root)
    return message.replacingOccurrences(of: shownRoot + "”", with: place + "”")
      .replacingOccurrences(of: shownRoot + "/", with: place)
  }

  static func code(of code: SFTPError.Code) -> ProviderError.Code {
    switch code {
    case .noSuchFile: .noSuchItem
    case .permissionDenied: .noPermission
    case .diskFull: .insufficientQuota
    case .hostNotFound, .hostUnreachable, .noConnection, .connectionLost: .serverUnreachable
    case .authenticationRefused, .hostKeyRefused: .notAuthenticated
    case .hostKeyChanged: .serverNotTrusted
    case .operationUnsupported: .featureUnsupported
    case .sshFailed: .badConfig
    // A login shell that prints text, or a server that breaks the protocol: nothing to retry blindly.
    case .streamCorrupted, .malformed: .cannotSynchronize
    case .conflict: .localVersionConflictingWithServer
    case .localIO, .endOfFile, .failure, .badMessage: .ioError
    }
  }
}
