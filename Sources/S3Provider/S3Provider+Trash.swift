import Foundation
import ProviderAPI
import S3Client

/// Recently Deleted on a versioned bucket (issue 11 §2): a delete leaves a delete marker and every
/// earlier version, so a key whose newest version is a marker is an item in the trash. Put Back
/// removes the marker (the object is back as it was); Delete Forever removes every version of the
/// key. A folder goes to the trash as the files it holds, each restorable on its own.
///
/// A trashed item's identifier is `t:` + base64url of its original path; its path is the original
/// under `/#trash`, a path no live item of the location has — as the in-memory provider's trash.
extension S3Provider {
  static let trashIdentifiers = PathIdentifiers(scheme: "t:")
  static let trashRoot = ItemPath("/#trash")

  /// The original path a trashed item's identifier names.
  func trashedPath(_ identifier: ItemIdentifier) -> ItemPath? {
    identifier.rawValue.hasPrefix("t:") ? Self.trashIdentifiers.path(for: identifier) : nil
  }

  func requireTrash() throws(ProviderError) {
    guard versioned else {
      throw ProviderError(.featureUnsupported, "this bucket keeps no versions, so it has no trash: delete is for good")
    }
  }

  /// Every key under the location whose newest version is a delete marker, with that marker and
  /// the newest version before it (what Put Back brings back).
  func trashedEntries(_ c: S3Client) async throws -> [(key: [UInt8], marker: S3ObjectVersion, kept: S3ObjectVersion?)] {
    // Grouped by key whatever the answer's order: S3 interleaves versions and markers newest
    // first per key; moto lists every version first and every marker after.
    var byKey: [[UInt8]: [S3ObjectVersion]] = [:]
    var keyMarker: [UInt8]?
    var versionMarker: String?
    repeat {
      let page = try await c.listObjectVersions(delimiter: nil, keyMarker: keyMarker, versionIDMarker: versionMarker)
      for v in page.versions { byKey[v.key, default: []].append(v) }
      keyMarker = page.isTruncated ? page.nextKeyMarker : nil
      versionMarker = page.nextVersionIDMarker
    } while keyMarker != nil
    var out: [(key: [UInt8], marker: S3ObjectVersion, kept: S3ObjectVersion?)] = []
    for (key, versions) in byKey where key.last != 0x2F {
      // A folder's own marker ("a/") is not a file to show.
      guard let latest = versions.first(where: \.isLatest), latest.isDeleteMarker else { continue }
      let kept = versions.filter { !$0.isDeleteMarker }.max { ($0.lastModified ?? .distantPast) < ($1.lastModified ?? .distantPast) }
      if let kept { out.append((key, latest, kept)) }
    }
    return out.sorted { $0.key.lexicographicallyPrecedes($1.key) }
  }

  func trashedItem(_ key: [UInt8], marker: S3ObjectVersion, kept: S3ObjectVersion?) -> Item {
    let original = ItemPath(bytes: [0x2F] + key)
    let name = original.lastComponent ?? ItemName(bytes: key)
    return Item(
      identifier: Self.trashIdentifiers.identifier(for: original), parentIdentifier: .trash, filename: name,
      path: Self.trashRoot.appending(name), contentType: ContentType.forExtension(name.pathExtension),
      capabilities: [.reading, .deleting, .reparenting],
      version: (try? ItemVersion(content: kept?.etag ?? "", metadata: marker.versionID)) ?? .empty,
      documentSize: kept?.size, contentModificationDate: kept?.lastModified, originalPath: original,
      trashedDate: marker.lastModified, isDownloaded: false, isMostRecentVersionDownloaded: false)
  }

  /// The trash's items, newest deletion first, in pages of the request's size.
  func enumerateTrash(_ request: EnumerationRequest, page: Page?) async throws(ProviderError) -> ItemPage {
    try requireTrash()
    let entries = try await withClient { c in try await self.trashedEntries(c) }
      .sorted { ($0.marker.lastModified ?? .distantPast) > ($1.marker.lastModified ?? .distantPast) }
    let window = Self.trashWindow(page, count: entries.count, pageSize: request.suggestedPageSize)
    let end = window.upperBound
    let items = entries[window].map { trashedItem($0.key, marker: $0.marker, kept: $0.kept) }
    let next = end < entries.count ? try Page(Data(String(end).utf8)) : nil
    return ItemPage(items: items, nextPage: next, totalCount: entries.count)
  }

  /// Moves an item to the trash: a plain DELETE (the store keeps a marker and the versions).
  func trash(_ path: ItemPath) async throws(ProviderError) -> Item {
    try requireTrash()
    return try await withClient { c in
      let keys = try await self.keys(of: path, c)
      guard !keys.isEmpty else { throw ProviderError.noSuchItem(path.displayString) }
      for key in keys { _ = try await c.deleteObject(key) }
      let trashed = try await self.trashedEntries(c).first { $0.key == Self.key(path) }
      if let trashed { return self.trashedItem(trashed.key, marker: trashed.marker, kept: trashed.kept) }
      // A folder: its files are in the trash one by one; the folder itself answers as trashed.
      var folder = self.folderItem(path)
      folder.parentIdentifier = .trash
      folder.originalPath = path
      folder.trashedDate = Date()
      return folder
    }
  }

  /// Put Back: the delete marker goes, and the object is back as it was (into `parent`: copied
  /// from its last version to that folder, and the marker kept, so the old place stays empty).
  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?) async throws(ProviderError) -> Item {
    try await restoreItem(identifier, to: parent, as: nil)
  }

  /// Put Back under another name ("Keep Both"): copied from its last version to that key, as
  /// into another folder.
  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?, as name: ItemName?) async throws(ProviderError)
    -> Item
  {
    try requireTrash()
    guard let original = trashedPath(identifier) else {
      throw ProviderError(.invalidArgument, "\(identifier.rawValue) is not in the trash")
    }
    let target = try parent.map { (p: ItemIdentifier) throws(ProviderError) -> ItemPath in
      try requirePath(p).appending(name ?? original.lastComponent!)
    } ?? (name.map { original.parent.appending($0) } ?? original)
    defer { listings.forget(target.parent) }
    return try await withClient { c in
      guard let entry = try await self.trashedEntries(c).first(where: { $0.key == Self.key(original) }), let kept = entry.kept
      else { throw ProviderError.noSuchItem("\(original.displayString) in the trash") }
      if try await self.exists(target, c) { throw self.collision(target) }
      if target == original {
        _ = try await c.deleteObject(entry.key, versionID: entry.marker.versionID)
      } else {
        _ = try await c.copyObject(from: entry.key, sourceVersionID: kept.versionID, to: Self.key(target))
      }
      return try await self.stat(target, c)
    }
  }

  /// Delete Forever of a trashed item: every version of its key, markers included.
  func deleteForever(_ original: ItemPath) async throws(ProviderError) {
    try await withClient { c in
      var keyMarker: [UInt8]?
      var versionMarker: String?
      var doomed: [S3ObjectVersion] = []
      repeat {
        let page = try await c.listObjectVersions(
          prefix: Self.key(original), delimiter: nil, keyMarker: keyMarker, versionIDMarker: versionMarker)
        doomed += page.versions.filter { $0.key == Self.key(original) }
        keyMarker = page.isTruncated ? page.nextKeyMarker : nil
        versionMarker = page.nextVersionIDMarker
      } while keyMarker != nil
      for v in doomed { _ = try await c.deleteObject(v.key, versionID: v.versionID) }
    }
  }

  /// The entries a trash page shows: its token is the offset, in decimal.
  package static func trashWindow(_ page: Page?, count: Int, pageSize: Int) -> Range<Int> {
    // Clamped: a token is bytes from the index and may be anything ("-1" gave a negative slice,
    // Int.max an overflow: both traps, found by folio-fuzz).
    let asked = page.flatMap { Int(String(decoding: $0.data, as: UTF8.self)) } ?? 0
    let offset = min(max(0, asked), count)
    return offset..<(offset + min(max(1, pageSize), count - offset))
  }
}
