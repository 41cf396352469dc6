import FolioProtocol
import Foundation

/// A failure the server answers with: a wire code (docs/PROTOCOL.md, "Errors"), a one-line message
/// for a person, and for collisions the identifier of the item holding the name.
///
/// Every handler throws only this type, so the status and the body of an error answer are decided
/// in one place (`ErrorMiddleware`) and a client can always map the code, never the status.
package struct ServerError: Error, Sendable, Equatable, CustomStringConvertible {
  let code: WireErrorCode
  package let message: String
  let existing: String?
  /// The HTTP status when it is not the code's usual one (416 for an unsatisfiable range, 404 for
  /// an unknown endpoint).
  let status: Int?

  init(_ code: WireErrorCode, _ message: String, existing: String? = nil, status: Int? = nil) {
    self.code = code
    self.message = message
    self.existing = existing
    self.status = status
  }

  var httpStatus: Int { status ?? code.httpStatus }

  package var description: String { "\(code.rawValue): \(message)" }

  var body: WireErrorBody { WireErrorBody(code: code.rawValue, message: message, existing: existing) }

  static func noSuchItem(_ id: String) -> ServerError { ServerError(.noSuchItem, "no item \(id)") }
  static func invalid(_ message: String) -> ServerError { ServerError(.invalidArgument, message) }
  static func collision(_ name: String, existing: String) -> ServerError {
    ServerError(.filenameCollision, "the name \(name) is taken in that folder", existing: existing)
  }
  static let notAuthenticated = ServerError(.notAuthenticated, "sign in first")
}

/// Wraps an error from a library (GRDB, the file system) as `serverError`, keeping ours as they are.
func asServerError(_ error: any Error) -> ServerError {
  if let e = error as? ServerError { return e }
  return ServerError(.serverError, String(describing: error))
}
