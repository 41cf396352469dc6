import AsyncHTTPClient
import FolioProtocol
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI

extension FolioServerProvider {
  /// One page of a folder or of the trash, through the server's keyset paging.
  ///
  /// The page token is the server's, as it sent it (opaque, at most 500 bytes); the sort travels
  /// with every request, so the token needs nothing else. Pages hold exactly
  /// `suggestedPageSize` items until the last (the enumeration service counts offsets by page
  /// number): hidden items are filtered here, and the server is asked again until the page is
  /// full. Kind sorting is not a server sort: it becomes name order with folders first.
  public func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    if request.container == .workingSet { return try await workingSetPage(page) }
    let container = try WireItemMapper.wireID(request.container)
    let key: String
    var foldersFirst = request.sort.foldersFirst
    switch request.sort.key {
    case .name: key = "name"
    case .date: key = "date"
    case .size: key = "size"
    case .kind:
      key = "name"
      foldersFirst = true
    }
    let wanted = max(1, request.suggestedPageSize)
    var items: [Item] = []
    var token: String? = try page.map { (p: Page) throws(ProviderError) -> String in
      guard let s = String(data: p.data, encoding: .utf8) else {
        throw ProviderError(.pageExpired, "this page token did not come from a Folio server")
      }
      return s
    }
    var total: Int?
    var requests = 0
    repeat {
      if Task.isCancelled { throw ProviderError.cancelledError }
      let limit = min(wanted - items.count, WireRoutes.maxPageSize)
      var query: [(String, String)] = [
        ("sort", key), ("order", request.sort.ascending ? "asc" : "desc"), ("foldersFirst", foldersFirst ? "1" : "0"),
        ("limit", String(limit)),
      ]
      if let token { query.append(("page", token)) }
      let answer = try await connection.json(
        ServerRequest(.GET, ["items", container, "children"], query: query), as: PageResponse.self, what: "a listing")
      guard answer.items.count <= limit else {
        throw ProviderError(
          .cannotSynchronize, "\(connection.serverName) sent \(answer.items.count) items when \(limit) were asked for")
      }
      let mapped = try mapper.items(answer.items, in: request.container)
      items += request.includeHidden ? mapped : mapped.filter { !$0.filename.isHidden }
      total = answer.total
      if let next = answer.nextPage, next == token {
        throw ProviderError(.cannotSynchronize, "\(connection.serverName) sent the same page token twice")
      }
      token = answer.nextPage
      requests += 1
      if requests > 1 { progress(EnumerationProgress(phase: .reading, completed: items.count, total: wanted)) }
    } while items.count < wanted && token != nil && requests < 10_000
    let next = try token.map { (t: String) throws(ProviderError) -> Page in try Page(Data(t.utf8)) }
    // With hidden items left out, the server's total counts items this listing does not show.
    return ItemPage(items: items, nextPage: next, totalCount: request.includeHidden ? total : nil)
  }
}
