import Foundation
import ProviderAPI
import S3Client

extension S3Provider {
  /// A page of a folder, in any of Folio's sorts: the folder is read whole (ListObjectsV2,
  /// `delimiter=/`, 1000 keys a request) into a sorted snapshot, and pages are slices of it. A
  /// token names its snapshot and offset; one that outlived its snapshot reads the folder again
  /// and goes on at the same offset.
  public func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    if request.container == .trash { return try await enumerateTrash(request, page: page) }
    let folder = try requirePath(request.container)
    return try await listings.page(
      request, folder: folder, page: page, read: { () async throws(ProviderError) in try await read(folder, request, progress: progress) },
      item: { makeItem(folder, $0) })
  }

  /// Tokens are positions in a snapshot: any offset can be named without I/O.
  public func pageToken(at offset: Int, from known: Page, in request: EnumerationRequest) -> Page? {
    FolderListingCache<S3ListingEntry>.token(at: offset, from: known)
  }

  /// Every key and common prefix directly in `folder`, as snapshot entries. Only a listing that
  /// reached a page with `IsTruncated` false is returned: a failure on the way is an error, never
  /// a shorter folder (the poller must not read deletions into it).
  private func read(
    _ folder: ItemPath, _ request: EnumerationRequest, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> S3ListingSnapshot {
    let prefix = Self.folderPrefix(folder)
    let entries = try await withClient { c -> [S3ListingEntry] in
      var entries: [S3ListingEntry] = []
      var unshown: [[UInt8]] = []
      var seenPrefixes: Set<[UInt8]> = []
      var token: String?
      var sawAnything = folder == .root
      repeat {
        try Task.checkCancellation()
        let page = try await c.listObjects(prefix: prefix, delimiter: "/", continuationToken: token)
        sawAnything = sawAnything || !page.objects.isEmpty || !page.commonPrefixes.isEmpty
        // Some stores repeat every common prefix on each v1 page (moto does): each once.
        for p in page.commonPrefixes where seenPrefixes.insert(p).inserted {
          let name = Array(p.dropFirst(prefix.count).dropLast())
          if Self.isUsableName(name) {
            entries.append(S3ListingEntry(name: name, isFolder: true, size: 0, lastModified: nil, etag: ""))
          } else {
            unshown.append(p)
          }
        }
        for o in page.objects {
          let name = Array(o.key.dropFirst(prefix.count))
          // The folder's own marker ("a/b/" listed under "a/b/") is not an entry of it.
          if name.isEmpty { continue }
          guard Self.isUsableName(name) else {
            unshown.append(o.key)
            continue
          }
          entries.append(
            S3ListingEntry(name: name, isFolder: false, size: o.size, lastModified: o.lastModified, etag: o.etag))
        }
        progress(EnumerationProgress(phase: .reading, completed: entries.count, total: nil))
        token = page.isTruncated ? page.nextContinuationToken : nil
      } while token != nil
      if !sawAnything {
        // No key under the prefix: the folder is not there (or was a marker that is gone).
        throw S3Error(.noSuchKey, "\(folder.displayString) is not in the bucket")
      }
      if !unshown.isEmpty { entries.append(.unshown(unshown)) }
      return self.versioned ? try await self.withVersionIDs(entries, prefix: prefix, c) : entries
    }
    let kept = entries.filter { request.includeHidden || $0.name.first != 0x2E }
    progress(EnumerationProgress(phase: .sorting, completed: 0, total: kept.count))
    let snapshot = S3ListingSnapshot(folder: folder, sort: request.sort, includeHidden: request.includeHidden, unsorted: kept)
    listings.store(snapshot)
    return snapshot
  }

  /// The files of a versioned bucket's folder with the version id of each (ListObjectVersions,
  /// one level), so that a listed item's content version is the one HEAD gives
  /// (``S3ContentVersion``): ListObjectsV2 names no version. The V2 listing stays the authority on
  /// what is there (a versions listing also names folders whose keys are all deleted, and keys
  /// whose newest version is a delete marker); a key written again between the two listings takes
  /// the newer description from the versions listing.
  func withVersionIDs(_ entries: [S3ListingEntry], prefix: [UInt8], _ c: S3Client) async throws -> [S3ListingEntry] {
    var latest: [[UInt8]: S3ObjectVersion] = [:]
    var keyMarker: [UInt8]?
    var versionMarker: String?
    repeat {
      try Task.checkCancellation()
      let page = try await c.listObjectVersions(
        prefix: prefix, delimiter: "/", keyMarker: keyMarker, versionIDMarker: versionMarker)
      for v in page.versions where v.isLatest && !v.isDeleteMarker { latest[Array(v.key.dropFirst(prefix.count))] = v }
      // The client refuses a truncated page without its next key marker.
      (keyMarker, versionMarker) = page.isTruncated ? (page.nextKeyMarker, page.nextVersionIDMarker) : (nil, nil)
    } while keyMarker != nil
    return entries.map { e in
      guard !e.isFolder, let v = latest[e.name], let etag = v.etag else { return e }
      var e = e
      if etag != e.etag {
        (e.etag, e.size, e.lastModified) = (etag, v.size ?? e.size, v.lastModified ?? e.lastModified)
      }
      e.versionID = v.versionID
      return e
    }
  }

  /// A name Folio can show and address: not empty, not "." or "..", no NUL. A key "a//b" or
  /// "a/./b" has such a segment: it stays on the store as it is, never mangled into another name,
  /// and its folder's listing says so (``S3ListingEntry/unshown(_:)``).
  static func isUsableName(_ name: [UInt8]) -> Bool {
    !name.isEmpty && name != [0x2E] && name != [0x2E, 0x2E] && !name.contains(0) && !name.contains(0x2F)
  }
}
