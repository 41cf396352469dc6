import Foundation
import ProviderAPI
import S3Client

extension S3Provider {
  public func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item {
    if let original = trashedPath(identifier) {
      try requireTrash()
      return try await withClient { c in
        guard let e = try await self.trashedEntries(c).first(where: { $0.key == Self.key(original) }) else {
          throw ProviderError.noSuchItem("\(original.displayString) in the trash")
        }
        return self.trashedItem(e.key, marker: e.marker, kept: e.kept)
      }
    }
    return try await item(at: requirePath(identifier))
  }

  /// HEAD for a file; when no object has the key, a folder if any key starts with "path/" (a
  /// marker, or the common prefix of what is below).
  public func item(at path: ItemPath) async throws(ProviderError) -> Item {
    guard path == .root || PathIdentifiers.isInside(path) else {
      throw ProviderError(.invalidArgument, "\(path.displayString) is not a path inside this location")
    }
    if path == .root { return folderItem(.root) }
    return try await withClient { c in try await self.stat(path, c) }
  }

  func stat(_ path: ItemPath, _ c: S3Client) async throws -> Item {
    do {
      let info = try await c.headObject(Self.key(path))
      return fileItem(path, size: info.size, lastModified: info.lastModified, etag: info.etag, versionID: info.versionID)
    } catch let error as S3Error where error.code == .accessDenied {
      // A HEAD answer has no body: a wrong secret and a missing permission both read "403". A
      // listing's answer says which (SignatureDoesNotMatch is a sign-in, not a permission).
      _ = try await c.listObjects(prefix: Self.folderPrefix(path.parent), delimiter: "/", maxKeys: 1)
      throw error
    } catch let error as S3Error where error.code == .noSuchKey {
      let below = try await c.listObjects(prefix: Self.folderPrefix(path), delimiter: "/", maxKeys: 1)
      guard below.objects.isEmpty && below.commonPrefixes.isEmpty else { return folderItem(path) }
      throw error
    }
  }

  /// Whether anything is at `path` (a file, or a folder's keys).
  func exists(_ path: ItemPath, _ c: S3Client) async throws -> Bool {
    do {
      _ = try await stat(path, c)
      return true
    } catch let error as S3Error where error.code == .noSuchKey {
      return false
    }
  }

  func makeItem(_ folder: ItemPath, _ e: S3ListingEntry) -> Item {
    if !e.unshownKeys.isEmpty { return unshownItem(folder, e) }
    let path = folder.appending(ItemName(bytes: e.name))
    return e.isFolder ? folderItem(path) : fileItem(path, size: e.size, lastModified: e.lastModified, etag: e.etag, versionID: e.versionID)
  }

  /// A file: its ETag (and version id, on a versioned bucket) is the content version
  /// (``S3ContentVersion``). Dataless: the core downloads on demand.
  func fileItem(_ path: ItemPath, size: Int64, lastModified: Date?, etag: String, versionID: String? = nil) -> Item {
    let name = path.lastComponent ?? ItemName(bytes: Array(endpoint.bucket.utf8))
    return Item(
      identifier: identifier(for: path), parentIdentifier: identifier(for: path.parent), filename: name, path: path,
      contentType: ContentType.forExtension(name.pathExtension),
      capabilities: [.reading, .writing, .reparenting, .renaming, .deleting, .evicting],
      version: S3ContentVersion.make(etag: etag, versionID: versionID), documentSize: size,
      contentModificationDate: lastModified, isDownloaded: false, isMostRecentVersionDownloaded: false)
  }

  /// The row that says which keys of `folder` Folio cannot show, through the mechanism of entries
  /// listed by name only (`metadataError`): `folio ls` prints it with `?` and ends in error, the
  /// browser says why in its status line and Info, the poller never indexes it, and no operation
  /// reaches it (its identifier names no key, so nothing can rename or delete those keys through
  /// it). The keys stay on the store as they are.
  func unshownItem(_ folder: ItemPath, _ e: S3ListingEntry) -> Item {
    let shown = e.unshownKeys.prefix(5).map { "'" + TerminalText.escape(bytes: $0) + "'" }.joined(separator: ", ")
    let more = e.unshownKeys.count > 5 ? " and \(e.unshownKeys.count - 5) more" : ""
    let what = e.unshownKeys.count == 1 ? "1 key" : "\(e.unshownKeys.count) keys"
    let error = ProviderError(
      .featureUnsupported,
      "\(what) under \(folder.displayString) cannot be shown: \(shown)\(more) (an empty, '.' or '..' name has no place in a "
        + "folder); Folio leaves them on the store untouched: rename them with another S3 client to see them here")
    let name = ItemName(bytes: e.name)
    return Item(
      identifier: ItemIdentifier(Self.unshownScheme + Base64URL.encode(folder.bytes)),
      parentIdentifier: identifier(for: folder), filename: name, path: folder.appending(name), contentType: .data,
      capabilities: [], version: .empty, metadataError: error)
  }

  /// The scheme of the rows standing for keys Folio cannot show: not ``identifiers``' "k:", so
  /// ``path(for:)`` maps none of them to a key.
  static let unshownScheme = "k!unshown:"

  /// A folder: a prefix. It has no version of its own (S3 keeps no folder): empty, so the poller
  /// has no hint that could pass for "unchanged" and always lists it (ListingPoller.hint(of:)).
  func folderItem(_ path: ItemPath) -> Item {
    let isRoot = path == .root
    let name = path.lastComponent ?? ItemName(bytes: Array((endpoint.bucket).utf8))
    return Item(
      identifier: identifier(for: path), parentIdentifier: isRoot ? .root : identifier(for: path.parent), filename: name,
      path: .root == path ? .root : path, contentType: .folder,
      capabilities: isRoot ? [.reading, .writing] : [.reading, .writing, .reparenting, .renaming, .deleting],
      version: .empty)
  }

  /// The ETag a content version names (nil for another provider's version, or a folder's): what
  /// `If-Match` compares, without the version id.
  static func etag(_ version: ItemVersion) -> String? { S3ContentVersion.etag(version) }
}
