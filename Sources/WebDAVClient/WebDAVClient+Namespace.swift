import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

extension WebDAVClient {
  /// MKCOL: a new, empty collection.
  ///
  /// - Throws: `conflict` when the name is taken (405), `parentMissing` when the collection it
  ///   goes into does not exist (409).
  public func makeCollection(_ path: WebDAVPath) async throws(WebDAVError) {
    let response = try await send(
      .MKCOL, try url(path, collection: true), headers: headers(), operation: .mkcol, subject: path)
    await drain(response)
  }

  /// DELETE; a collection goes with everything below it.
  ///
  /// - Parameters:
  ///   - isCollection: Sends the collection's URL with its final `/` (nginx refuses a collection's
  ///     DELETE without it).
  ///   - ifMatch: Only this version (where the server honours `If-Match`).
  /// - Throws: `notFound`; `preconditionFailed` when `ifMatch` did not hold; `unexpectedStatus`
  ///   when some items below a collection could not be deleted (a 207: list it again).
  public func delete(_ path: WebDAVPath, isCollection: Bool = false, ifMatch: String? = nil) async throws(WebDAVError) {
    if path.isRoot { throw WebDAVError(.permissionDenied, "refusing to delete the account's own folder on \(server)") }
    let response = try await send(
      .DELETE, try url(path, collection: isCollection), headers: headers(ifMatch.map { [("If-Match", $0)] } ?? []),
      operation: .delete, subject: path, timeout: configuration.serverWorkTimeout)
    await drain(response)
    if response.status.code == 207 {
      throw WebDAVError(.unexpectedStatus, "some items below \(path) on \(server) could not be deleted (HTTP 207)", status: 207)
    }
  }

  /// MOVE (a rename, or a move to another collection).
  ///
  /// - Parameters:
  ///   - overwrite: `Overwrite: T` replaces what is at `destination`; the default `F` refuses.
  ///     The header is always sent: x/net/webdav reads a missing one as F, RFC 4918 as T.
  /// - Returns: Whether the destination was new (201) rather than replaced (204).
  /// - Throws: `preconditionFailed` when `overwrite` is false and the destination exists (412);
  ///   `parentMissing` when its collection does not exist (409).
  @discardableResult
  public func move(
    _ source: WebDAVPath, to destination: WebDAVPath, isCollection: Bool = false, overwrite: Bool = false
  ) async throws(WebDAVError) -> Bool {
    try await transfer(.MOVE, .move, source, to: destination, isCollection: isCollection, overwrite: overwrite)
  }

  /// COPY, of a collection with everything below it.
  ///
  /// - Returns: Whether the destination was new (201) rather than replaced (204).
  /// - Throws: as ``move(_:to:isCollection:overwrite:)``.
  @discardableResult
  public func copy(
    _ source: WebDAVPath, to destination: WebDAVPath, isCollection: Bool = false, overwrite: Bool = false
  ) async throws(WebDAVError) -> Bool {
    try await transfer(.COPY, .copy, source, to: destination, isCollection: isCollection, overwrite: overwrite)
  }

  private func transfer(
    _ method: HTTPMethod, _ operation: DAVOperation, _ source: WebDAVPath, to destination: WebDAVPath, isCollection: Bool,
    overwrite: Bool
  ) async throws(WebDAVError) -> Bool {
    if source.isRoot || destination.isRoot {
      throw WebDAVError(.permissionDenied, "refusing to \(operation.rawValue) the account's own folder on \(server)")
    }
    // `Destination` is an absolute URL on the same server (Nextcloud documents "full url";
    // x/net/webdav answers 502 to another host), encoded as the request URL is.
    let target = try url(destination, collection: isCollection)
    let response = try await send(
      method, try url(source, collection: isCollection),
      headers: headers([("Destination", target), ("Overwrite", overwrite ? "T" : "F")]), operation: operation,
      subject: source, timeout: configuration.serverWorkTimeout)
    await drain(response)
    if response.status.code == 207 {
      throw WebDAVError(
        .unexpectedStatus, "some items below \(source) on \(server) failed to \(operation.rawValue) (HTTP 207)", status: 207)
    }
    return response.status.code == 201
  }
}
