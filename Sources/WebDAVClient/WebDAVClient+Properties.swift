import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

extension WebDAVClient {
  /// Marks an item as a favorite of the account, or not: a PROPPATCH setting ownCloud's
  /// `oc:favorite` to `1` or `0`, as Nextcloud documents it (NC basic.rst, "Settings favorites").
  ///
  /// Nextcloud answers 207 with one propstat per property (SabreDAV's PROPPATCH; 204 when the
  /// client prefers a minimal answer): each propstat's status is checked, since a 207 can carry a
  /// refusal (403) of the very property asked for. A generic server would store a dead property
  /// instead, which is why only the Nextcloud dialect calls this.
  ///
  /// - Parameter isCollection: Sends the collection's URL with its final `/`.
  /// - Throws: `notFound`, `permissionDenied`, or the status of a refused property.
  public func setFavorite(_ on: Bool, _ path: WebDAVPath, isCollection: Bool = false) async throws(WebDAVError) {
    let response = try await send(
      .PROPPATCH, try url(path, collection: isCollection),
      headers: headers([("Content-Type", "application/xml; charset=utf-8")]), body: .bytes(PropPatchBody.favorite(on)),
      operation: .proppatch, subject: path)
    guard response.status.code == 207 else { return await drain(response) }
    let body: ByteBuffer
    do {
      body = try await response.body.collect(upTo: 64 << 10)
    } catch {
      throw WebDAVError(.malformedResponse, "the answer to PROPPATCH \(path) on \(server) could not be read: \(error)")
    }
    let statuses = PropPatchAnswer.statuses(Array(buffer: body))
    guard !statuses.isEmpty else {
      throw WebDAVError(.malformedResponse, "the answer to PROPPATCH \(path) on \(server) names no property status")
    }
    if let refused = statuses.first(where: { !(200..<300).contains($0) }) {
      throw StatusMapping.error(
        status: refused, headers: response.headers, operation: .proppatch, subject: path.description, server: server)
    }
  }
}

/// The body of a PROPPATCH (RFC 4918 §9.2, §14.19).
enum PropPatchBody {
  static func favorite(_ on: Bool) -> [UInt8] {
    Array(
      ("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<d:propertyupdate xmlns:d=\"DAV:\" xmlns:oc=\"\(MultistatusParser.ownCloud)\">"
        + "<d:set><d:prop><oc:favorite>\(on ? 1 : 0)</oc:favorite></d:prop></d:set></d:propertyupdate>\n").utf8)
  }
}
