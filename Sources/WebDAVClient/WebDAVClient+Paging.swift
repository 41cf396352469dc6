import AsyncHTTPClient
import Foundation
import NIOHTTP1

extension WebDAVClient {
  /// Nextcloud's request and answer headers for a PROPFIND in pages (NCPAG: `PaginatePlugin.php`).
  enum Paging {
    static let paginate = "X-NC-Paginate"
    static let count = "X-NC-Paginate-Count"
    static let token = "X-NC-Paginate-Token"
    static let offset = "X-NC-Paginate-Offset"
    static let total = "X-NC-Paginate-Total"
  }

  /// Lists a collection like ``list(_:properties:batchSize:entries:)``, in pages of `pageSize`
  /// `<response>`s where the server offers Nextcloud's paginated PROPFIND (`X-NC-Paginate`);
  /// a server without it answers the first request whole, and that is the listing.
  ///
  /// The protocol (NCPAG): the first PROPFIND says `X-NC-Paginate: true` and
  /// `X-NC-Paginate-Count: N`. When the folder has more, the answer holds the first N responses
  /// (the collection's own first) with `X-NC-Paginate-Token` and `X-NC-Paginate-Total` (every
  /// response, the collection's included), and the server keeps the rest as rendered for that
  /// token; each later PROPFIND names the token and an `X-NC-Paginate-Offset`, and a cached page
  /// comes back marked `X-NC-Paginate: true`, without a token. So the pages are one snapshot of the
  /// folder, whatever changes meanwhile. An unknown or expired token is not refused: the server
  /// lists the folder afresh from that offset, which shows as a page that carries a token of its
  /// own or lacks the mark. Such a listing mixes two snapshots: it throws `pagesExpired`, and the
  /// caller reads the folder again (batches already delivered are to be dropped, as for any throw).
  ///
  /// Each page is parsed as a stream, as a whole listing is; a request is bounded by `pageSize`
  /// entries, where one PROPFIND of a 100k-entry folder keeps a Nextcloud worker busy for the
  /// whole of it.
  ///
  /// - Parameters:
  ///   - pageSize: Responses per page (Nextcloud's default is 100).
  /// - Returns: As ``list(_:properties:batchSize:entries:)``; complete when every page came and no
  ///   response failed.
  public func listInPages(
    _ path: WebDAVPath, properties: WebDAVProperties = .standard, pageSize: Int, batchSize: Int = defaultBatchSize,
    entries: @Sendable ([WebDAVEntry]) async throws -> Void
  ) async throws -> WebDAVListing {
    let size = max(2, pageSize)
    let batch = max(1, batchSize)
    let first = try await propfindAnswer(
      path, depth: 1, collection: true, properties: properties, batchSize: batch,
      extra: [(Paging.paginate, "true"), (Paging.count, String(size))], entries: entries)
    guard let collection = first.outcome.requested else {
      throw WebDAVError(.malformedResponse, "the listing of \(path) on \(server) does not include the folder itself")
    }
    var listing = WebDAVListing(
      collection: collection, childCount: first.outcome.children, failedResponses: first.outcome.failedResponses)
    // No token: the folder fit in one page, or the server does not page (any non-Nextcloud one).
    guard let token = first.headers.first(name: Paging.token), !token.isEmpty else { return listing }
    guard let total = first.headers.first(name: Paging.total).flatMap({ Int($0) }), total >= 0 else {
      throw WebDAVError(.malformedResponse, "\(server) paged the listing of \(path) without saying how long it is")
    }
    var offset = size
    while offset < total {
      let page = try await propfindAnswer(
        path, depth: 1, collection: true, properties: properties, batchSize: batch,
        extra: [
          (Paging.paginate, "true"), (Paging.token, token), (Paging.offset, String(offset)), (Paging.count, String(size)),
        ], entries: entries)
      let fresh = page.headers.first(name: Paging.token) != nil
      let served = page.headers.first(name: Paging.paginate)?.lowercased() == "true"
      guard served, !fresh, page.outcome.requested == nil else {
        throw WebDAVError(
          .pagesExpired, "\(server) no longer had the pages of its listing of \(path) (they expire); it is read again")
      }
      listing.childCount += page.outcome.children
      listing.failedResponses += page.outcome.failedResponses
      offset += size
    }
    return listing
  }
}
