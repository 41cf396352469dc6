import Foundation
import Synchronization

/// The last few ``FolderListing``s of a location, for page tokens and for a second visit painted
/// at once (the poller reads the folder again behind it).
public final class FolderListingCache<Entry: FolderListingEntry>: Sendable {
  private let capacity: Int
  private let snapshots = Mutex<[FolderListing<Entry>]>([])

  public init(capacity: Int) { self.capacity = capacity }

  public func store(_ snapshot: FolderListing<Entry>) {
    snapshots.withLock { list in
      list.removeAll { $0.id == snapshot.id }
      list.append(snapshot)
      if list.count > capacity { list.removeFirst(list.count - capacity) }
    }
  }

  public func snapshot(_ id: UUID) -> FolderListing<Entry>? { snapshots.withLock { $0.first { $0.id == id } } }

  /// The newest reading of `folder` with these options, if younger than `maxAge`.
  public func recent(_ folder: ItemPath, sort: ItemSort, includeHidden: Bool, maxAge: Duration) -> FolderListing<Entry>? {
    let now = ContinuousClock.now
    return snapshots.withLock { list in
      list.last { $0.folder == folder && $0.sort == sort && $0.includeHidden == includeHidden && now - $0.readAt < maxAge }
    }
  }

  /// Forgets what was read of `folder` (after a change Folio made there).
  public func forget(_ folder: ItemPath) { snapshots.withLock { $0.removeAll { $0.folder == folder } } }

  /// A page of `request` from a snapshot: the one `page` names when it is still kept (a token
  /// that outlived it reads the folder again and goes on at the same offset), else a recent one
  /// for a `.recent` first page, else a fresh reading by `read`.
  public func page(
    _ request: EnumerationRequest, folder: ItemPath, page: Page?,
    read: () async throws(ProviderError) -> FolderListing<Entry>,
    item: (Entry) -> Item
  ) async throws(ProviderError) -> ItemPage {
    var listing: FolderListing<Entry>
    var offset = 0
    if let page {
      let token = try FolderListingToken(page)
      guard token.belongs(to: folder) else { throw ProviderError(.pageExpired, "the page token belongs to another folder") }
      if let kept = snapshot(token.snapshot), kept.folder == folder, kept.sort == request.sort,
        kept.includeHidden == request.includeHidden
      {
        listing = kept
      } else {
        listing = try await read()
      }
      offset = min(token.offset, listing.entries.count)
    } else if request.freshness == .recent,
      let kept = recent(folder, sort: request.sort, includeHidden: request.includeHidden, maxAge: .seconds(60))
    {
      listing = kept
    } else {
      listing = try await read()
    }
    let end = min(listing.entries.count, offset + max(1, request.suggestedPageSize))
    let items = listing.entries[offset..<end].map(item)
    let next =
      end < listing.entries.count ? try FolderListingToken(snapshot: listing.id, folder: folder, offset: end).encoded() : nil
    return ItemPage(items: items, nextPage: next, totalCount: listing.entries.count)
  }

  /// The token of another offset of the snapshot `known` names (no I/O).
  public static func token(at offset: Int, from known: Page) -> Page? {
    guard offset >= 0, var token = try? FolderListingToken(known) else { return nil }
    token.offset = offset
    return try? token.encoded()
  }
}
