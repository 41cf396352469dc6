import Foundation
import ProviderAPI

/// Listings the host sorts itself: an order the extension does not do (FEP/1: `enumerate.sorts`,
/// default `["name"]`; "the host sorts other orders itself"). The whole folder is read by name, in
/// the extension's pages, sorted here, kept as a snapshot and answered in pages whose tokens are
/// the host's own (`#host:<snapshot>:<offset>`), never sent to the extension.
package final class HostSortedListings: @unchecked Sendable {
  static let prefix = "#host:"
  static let kept = 4

  private struct Snapshot {
    let id: String
    let items: [Item]
  }

  private let lock = NSLock()
  private var snapshots: [Snapshot] = []

  /// Whether the extension does this sort itself.
  static func extensionSorts(_ sort: ItemSort, _ caps: ExtensionCapabilities) -> Bool {
    switch sort.key {
    case .name: return caps.sorts.contains("name")
    case .date: return caps.sorts.contains("date")
    case .size: return caps.sorts.contains("size")
    case .kind: return false
    }
  }

  static func isHostToken(_ page: Page?) -> Bool {
    guard let page else { return false }
    return page.data.starts(with: Data(prefix.utf8))
  }

  func store(_ items: [Item]) -> String {
    let id = UUID().uuidString.lowercased()
    lock.withLock {
      snapshots.append(Snapshot(id: id, items: items))
      if snapshots.count > Self.kept { snapshots.removeFirst(snapshots.count - Self.kept) }
    }
    return id
  }

  /// The page at `offset` of a snapshot, with the token of the next.
  func page(_ id: String, offset: Int, size: Int) throws(ProviderError) -> ItemPage {
    guard let snapshot = lock.withLock({ snapshots.first { $0.id == id } }) else {
      throw ProviderError(.pageExpired, "the listing was read again meanwhile")
    }
    let start = min(max(0, offset), snapshot.items.count)
    let end = min(snapshot.items.count, start + max(1, size))
    let next = end < snapshot.items.count ? try Page(Data("\(Self.prefix)\(id):\(end)".utf8)) : nil
    return ItemPage(items: Array(snapshot.items[start..<end]), nextPage: next, totalCount: snapshot.items.count)
  }

  package static func parse(_ page: Page) -> (id: String, offset: Int)? {
    let text = String(decoding: page.data.dropFirst(prefix.utf8.count), as: UTF8.self)
    let parts = text.split(separator: ":")
    guard parts.count == 2, let offset = Int(parts[1]) else { return nil }
    return (String(parts[0]), offset)
  }

  /// `items` in `sort`'s order (folders first when asked; ties by name, as SFTPProvider sorts).
  static func sorted(_ items: [Item], by sort: ItemSort) -> [Item] {
    let kinds: [String] = sort.key == .kind ? items.map { $0.contentType.kindDescription.lowercased() } : []
    var order = Array(items.indices)
    order.sort { x, y in
      let a = items[x]
      let b = items[y]
      if sort.foldersFirst, a.isFolder != b.isFolder { return a.isFolder }
      let byName = NameOrdering.compare(a.filename.bytes, b.filename.bytes)
      switch sort.key {
      case .name: return sort.ascending ? byName < 0 : byName > 0
      case .date:
        let (ta, tb) = (a.contentModificationDate ?? .distantPast, b.contentModificationDate ?? .distantPast)
        if ta != tb { return sort.ascending ? ta < tb : ta > tb }
      case .size:
        let (sa, sb) = (a.isFolder ? 0 : a.documentSize ?? 0, b.isFolder ? 0 : b.documentSize ?? 0)
        if sa != sb { return sort.ascending ? sa < sb : sa > sb }
      case .kind:
        if kinds[x] != kinds[y] { return sort.ascending ? kinds[x] < kinds[y] : kinds[x] > kinds[y] }
      }
      return byName < 0
    }
    return order.map { items[$0] }
  }
}
