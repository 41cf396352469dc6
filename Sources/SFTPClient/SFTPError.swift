/// Every failure of the SFTP client: a code the provider maps to `ProviderError.Code`, and a one-line
/// message that is already safe to show (server text and ssh's stderr pass through ``DisplayText``).
public struct SFTPError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Code: String, Sendable, Equatable {
    // SSH_FX_* status codes 1–8 (draft §7).
    case endOfFile, noSuchFile, permissionDenied, failure, badMessage, noConnection, connectionLost,
      operationUnsupported
    // ssh's own failures, classified from its stderr and exit status.
    case hostNotFound, hostUnreachable, authenticationRefused, hostKeyRefused
    /// The server presents another key than known_hosts holds: maybe not the server the person
    /// knows. Not a sign-in matter (no password helps), and never accepted for them.
    case hostKeyChanged
    /// The first bytes were not an SFTP VERSION packet: a login shell printed text, or no SFTP server.
    case streamCorrupted
    /// ssh could not be started at all (missing binary, bad configuration file).
    case sshFailed
    /// The server's reply broke the protocol.
    case malformed
    /// A WRITE or CLOSE failed and statvfs shows no space left.
    case diskFull
    /// A safe replace found the target changed since the base version.
    case conflict
    /// A local file could not be read or written.
    case localIO
  }

  public var code: Code
  /// One line, escaped for display.
  public var message: String
  /// The SSH_FX_* status number when the server sent one.
  public var status: UInt32?

  public init(_ code: Code, _ message: String, status: UInt32? = nil) {
    self.code = code
    self.message = DisplayText.oneLine(message)
    self.status = status
  }

  public var description: String { message }

  static func malformed(_ what: String) -> SFTPError { SFTPError(.malformed, "the SFTP server sent a bad reply: \(what)") }

  /// Maps an SSH_FXP_STATUS reply; `context` names the operation and path for the message.
  static func fromStatus(_ status: UInt32, serverMessage: [UInt8], context: String) -> SFTPError {
    let code: Code =
      switch status {
      case 1: .endOfFile
      case 2: .noSuchFile
      case 3: .permissionDenied
      case 5: .badMessage
      case 6: .noConnection
      case 7: .connectionLost
      case 8: .operationUnsupported
      default: .failure
      }
    let said = DisplayText.escape(serverMessage)
    let reason = said.isEmpty ? Self.defaultReason(code) : said
    return SFTPError(code, "\(context): \(reason)", status: status)
  }

  private static func defaultReason(_ code: Code) -> String {
    switch code {
    case .endOfFile: "end of file"
    case .noSuchFile: "no such file"
    case .permissionDenied: "permission denied"
    case .operationUnsupported: "not supported by the server"
    default: "failed"
    }
  }
}
