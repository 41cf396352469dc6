import FolioProtocol
import Foundation
import NIOHTTP1
import ProviderAPI

/// The working set as a listing, for a client with no anchor (its first sync, or after
/// `syncAnchorExpired`).
///
/// The server has no working-set query: the change log read from its start (`since=` empty)
/// holds every live item once, in its latest state with this user's own fields. Each page is one
/// batch of it, keeping only the items that belong in the working set — used, tagged or favorite
/// for this user, shared, in the trash, or a conflict copy — so a client of a server with a
/// million files holds a page at a time, not the tree. The page token is the batch's anchor.
extension FolioServerProvider {
  func workingSetPage(_ page: Page?) async throws(ProviderError) -> ItemPage {
    let since = try page.map { (p: Page) throws(ProviderError) -> String in
      guard let s = String(data: p.data, encoding: .utf8), !s.isEmpty else {
        throw ProviderError(.pageExpired, "this page token did not come from a Folio server")
      }
      return s
    } ?? ""
    let answer = try await connection.json(
      ServerRequest(.GET, ["changes"], query: [("since", since), ("limit", "500")]), as: ChangesResponse.self,
      what: "the working set")
    let items = try mapper.items(answer.updated).filter(Self.belongsToWorkingSet)
    let next = answer.more ? try Page(Data(answer.anchor.utf8)) : nil
    return ItemPage(items: items, nextPage: next)
  }

  /// True for an item the working set holds by its own fields.
  static func belongsToWorkingSet(_ item: Item) -> Bool {
    if item.identifier.isReserved { return false }
    if case .string(let s)? = item.userInfo[conflictOfKey], !s.isEmpty { return true }
    return item.lastUsedDate != nil || !item.tags.isEmpty || item.favoriteRank != nil || item.isShared || item.isTrashed
  }
}
