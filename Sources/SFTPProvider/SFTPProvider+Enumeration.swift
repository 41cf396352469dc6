import Foundation
import ProviderAPI
import SFTPClient

extension SFTPProvider {
  /// Reads the whole folder with OPENDIR/READDIR (each name comes with its attributes: no stat
  /// per entry), sorts it, keeps it as a snapshot and answers pages of it. A first page reads
  /// afresh, except on a second visit (`.recent`): the folder's last reading, if it is under a
  /// minute old and one STAT shows the folder's mtime unchanged, answers at once — a 100,000-entry
  /// folder paints without reading it again, and the poller, told the folder is shown again,
  /// reads it behind (`.current`). Later pages come from the snapshot. A token whose snapshot was
  /// dropped re-reads the folder and answers `pageExpired` if the folder's mtime moved meanwhile.
  public func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    if request.container == .workingSet {
      throw ProviderError(.featureUnsupported, "an SFTP location keeps no working set of its own")
    }
    let folder = try requirePath(request.container)
    let connection = try await session.connection()
    var snapshot: ListingSnapshot
    var offset = 0
    if let page {
      let token = try ListingToken(page)
      guard token.folderHash == ListingToken.hash(folder) else {
        throw ProviderError(.pageExpired, "the page token belongs to another folder")
      }
      if let kept = listings.snapshot(token.snapshot), kept.folder == folder, kept.sort == request.sort,
        kept.includeHidden == request.includeHidden
      {
        snapshot = kept
      } else if let again = listings.matching(
        folder, sort: request.sort, includeHidden: request.includeHidden, folderTime: token.folderTime)
      {
        // Its snapshot was dropped, and the folder was read again since while its mtime was the
        // same: that reading answers (it is what a reading now would be checked against).
        snapshot = again
      } else {
        snapshot = try await read(folder, request, connection, progress: progress)
        guard snapshot.folderTime == token.folderTime else {
          throw ProviderError(.pageExpired, "\(folder.displayString) changed while it was being listed")
        }
      }
      offset = min(token.offset, snapshot.entries.count)
    } else if request.freshness == .recent, let kept = try await recentSnapshot(folder, request, connection) {
      snapshot = kept
    } else {
      snapshot = try await read(folder, request, connection, progress: progress)
    }
    let end = min(snapshot.entries.count, offset + max(1, request.suggestedPageSize))
    let items = try await pageItems(folder, Array(snapshot.entries[offset..<end]), connection)
    let next =
      end < snapshot.entries.count
      ? try ListingToken(
        snapshot: snapshot.id, folderTime: snapshot.folderTime, folderHash: ListingToken.hash(folder), offset: end
      ).encoded() : nil
    let container = makeItem(folder, snapshot.folderAttributes, linkTarget: nil, root: connection.root)
    return ItemPage(items: items, nextPage: next, totalCount: snapshot.entries.count, container: container)
  }

  /// Tokens are positions in a snapshot: any offset can be named without I/O.
  public func pageToken(at offset: Int, from known: Page, in request: EnumerationRequest) -> Page? {
    guard offset >= 0, var token = try? ListingToken(known) else { return nil }
    token.offset = offset
    return try? token.encoded()
  }

  /// How old a reading a second visit may show (the poller reads the shown folder behind it).
  static let recentListingAge: Duration = .seconds(60)

  /// The folder's last reading with these options, if it may answer a second visit: under
  /// `recentListingAge` and the folder's mtime (one STAT) unchanged since. The mtime has whole
  /// seconds and does not move when a file is rewritten in place: what it misses, the poller's
  /// reading behind the visit brings.
  private func recentSnapshot(
    _ folder: ItemPath, _ request: EnumerationRequest, _ c: SFTPSession.Connection
  ) async throws(ProviderError) -> ListingSnapshot? {
    guard
      let kept = listings.recent(
        folder, sort: request.sort, includeHidden: request.includeHidden, maxAge: Self.recentListingAge)
    else { return nil }
    do {
      let attributes = try await c.client.stat(c.remote(folder))
      guard attributes.fileType == .directory, (attributes.modificationTime ?? 0) == kept.snapshot.folderTime else { return nil }
      return kept.snapshot
    } catch {
      throw SFTPErrorMapping.map(error)
    }
  }

  private func read(
    _ folder: ItemPath, _ request: EnumerationRequest, _ c: SFTPSession.Connection,
    progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ListingSnapshot {
    let remote = c.remote(folder)
    do {
      let attributes = try await c.client.stat(remote)
      guard attributes.fileType == .directory else {
        throw ProviderError(.invalidArgument, "\(folder.displayString) is not a folder")
      }
      let counter = Counter()
      let entries = try await c.client.listDirectory(remote) { batch in
        progress(EnumerationProgress(phase: .reading, completed: counter.add(batch.count), total: nil))
      }
      try Task.checkCancellation()
      let kept = entries.lazy.filter { request.includeHidden || $0.name.first != 0x2E }
        .map { ListingSnapshot.Entry(name: $0.name, attributes: $0.attributes) }
      progress(EnumerationProgress(phase: .sorting, completed: 0, total: kept.count))
      let snapshot = ListingSnapshot(
        id: UUID(), folder: folder, folderTime: attributes.modificationTime ?? 0, folderAttributes: attributes, sort: request.sort,
        includeHidden: request.includeHidden, entries: ListingSnapshot.sorted(Array(kept), by: request.sort))
      listings.store(snapshot)
      return snapshot
    } catch {
      throw c.mapped(error)
    }
  }

  /// The page's items; its symlinks' targets are read here (READLINK, pipelined), not for the
  /// whole folder.
  private func pageItems(_ folder: ItemPath, _ entries: [ListingSnapshot.Entry], _ c: SFTPSession.Connection)
    async throws(ProviderError) -> [Item]
  {
    var targets: [Int: [UInt8]] = [:]
    let links = entries.indices.filter { entries[$0].attributes.fileType == .symbolicLink }
    if !links.isEmpty {
      targets = await withTaskGroup(of: (Int, [UInt8]?).self) { group in
        for i in links {
          let remote = c.remote(folder.appending(ItemName(bytes: entries[i].name)))
          group.addTask { (i, try? await c.client.readLink(remote)) }
        }
        var found: [Int: [UInt8]] = [:]
        for await (i, target) in group { found[i] = target }
        return found
      }
    }
    return entries.indices.map { i in
      makeItem(
        folder.appending(ItemName(bytes: entries[i].name)), entries[i].attributes, linkTarget: targets[i], root: c.root)
    }
  }
}

/// A count shared with READDIR's batch callback.
private final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var value = 0
  func add(_ n: Int) -> Int {
    lock.withLock {
      value += n
      return value
    }
  }
}
