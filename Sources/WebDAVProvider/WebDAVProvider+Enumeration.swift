import Foundation
import ProviderAPI
import Synchronization
import WebDAVClient

extension WebDAVProvider {
  /// A page of a folder, in any of Folio's sorts: the folder is read whole (PROPFIND Depth 1,
  /// streamed: memory holds the entries, not the XML) into a sorted snapshot, and pages are
  /// slices of it. A token names its snapshot and offset; one that outlived its snapshot reads
  /// the folder again and goes on at the same offset.
  public func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    if request.container == .trash { return try await enumerateTrash(request, page: page) }
    let folder = try requirePath(request.container)
    return try await listings.page(
      request, folder: folder, page: page,
      read: { () async throws(ProviderError) in try await read(folder, request, progress: progress) },
      item: { makeItem(folder, $0) })
  }

  /// Tokens are positions in a snapshot: any offset can be named without I/O.
  public func pageToken(at offset: Int, from known: Page, in request: EnumerationRequest) -> Page? {
    FolderListingCache<WebDAVListingEntry>.token(at: offset, from: known)
  }

  /// Every child of `folder`. Only a complete listing is returned (a 207 that holds the folder
  /// itself and no failed response): anything less is an error, never a shorter folder, so the
  /// poller cannot read deletions into it (remote-providers.md §1.3).
  ///
  /// On Nextcloud the folder is read in pages of ``nextcloudPageSize`` (`X-NC-Paginate`: one
  /// snapshot, a bounded request each); pages that expired midway are read again once from the
  /// start. Other servers get the plain PROPFIND, unchanged.
  private func read(
    _ folder: ItemPath, _ request: EnumerationRequest, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> FolderListing<WebDAVListingEntry> {
    let path = try Self.davPath(folder)
    let collected = Mutex<[WebDAVListingEntry]>([])
    let includeHidden = request.includeHidden
    let take: @Sendable ([WebDAVEntry]) async throws -> Void = { batch in
      let kept = batch.filter { Self.isUsableName($0.name) && (includeHidden || $0.name.first != 0x2E) }
      let count = collected.withLock { list in
        list += kept.map(WebDAVListingEntry.init)
        return list.count
      }
      progress(EnumerationProgress(phase: .reading, completed: count, total: nil))
    }
    let listing = try await withClient { c -> WebDAVListing in
      guard self.dialect == .nextcloud else { return try await c.list(path, properties: self.dialect.listingProperties, entries: take) }
      do {
        return try await c.listInPages(
          path, properties: self.dialect.listingProperties, pageSize: self.nextcloudPageSize, entries: take)
      } catch let error as WebDAVError where error.code == .pagesExpired {
        collected.withLock { $0.removeAll() }
        return try await c.listInPages(
          path, properties: self.dialect.listingProperties, pageSize: self.nextcloudPageSize, entries: take)
      }
    }
    guard listing.collection.isCollection else {
      throw ProviderError(.invalidArgument, "\(folder.displayString) is a file, not a folder")
    }
    guard listing.isComplete else {
      throw ProviderError(
        .serverBusy,
        "\(domain.rawValue): the server could not describe \(listing.failedResponses) item(s) of \(folder.displayString); Folio reads it again later")
    }
    let entries = collected.withLock { $0 }
    progress(EnumerationProgress(phase: .sorting, completed: 0, total: entries.count))
    let snapshot = FolderListing(folder: folder, sort: request.sort, includeHidden: request.includeHidden, unsorted: entries)
    listings.store(snapshot)
    return snapshot
  }

  /// A name Folio can show and address.
  static func isUsableName(_ name: [UInt8]) -> Bool {
    !name.isEmpty && name != [0x2E] && name != [0x2E, 0x2E] && !name.contains(0) && !name.contains(0x2F)
  }
}
