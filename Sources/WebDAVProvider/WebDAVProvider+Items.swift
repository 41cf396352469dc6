import Crypto
import Foundation
import ProviderAPI
import WebDAVClient

extension WebDAVProvider {
  public func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item {
    if let name = trashName(identifier) { return try await trashedItem(named: name) }
    return try await item(at: requirePath(identifier))
  }

  /// PROPFIND Depth 0. The top is answered without asking (it is there, or the listing says why).
  public func item(at path: ItemPath) async throws(ProviderError) -> Item {
    guard path == .root || PathIdentifiers.isInside(path) else {
      throw ProviderError(.invalidArgument, "\(path.displayString) is not a path inside this location")
    }
    if path == .root { return folderItem(.root) }
    return try await withClient { c in try await self.stat(path, c) }
  }

  /// PROPFIND Depth 0, the top included: its ETag, which on Nextcloud moves whenever anything
  /// in the account changes (the listing poller's sweep).
  public func currentFolder(at path: ItemPath) async throws(ProviderError) -> Item {
    try await withClient { c in try await self.stat(path, c) }
  }

  func stat(_ path: ItemPath, _ c: WebDAVClient) async throws -> Item {
    item(path, try await c.stat(try Self.davPath(path), properties: dialect.listingProperties))
  }

  /// What is at `path` (nil when nothing is).
  func existing(_ path: ItemPath, _ c: WebDAVClient) async throws -> WebDAVEntry? {
    do {
      return try await c.stat(try Self.davPath(path), properties: dialect.listingProperties)
    } catch let error as WebDAVError where error.code == .notFound {
      return nil
    }
  }

  func item(_ path: ItemPath, _ entry: WebDAVEntry) -> Item {
    var made =
      entry.isCollection
      ? folderItem(path, modified: entry.lastModified, permissions: entry.permissions, etag: entry.etag)
      : fileItem(
        path, size: max(0, entry.size ?? 0), lastModified: entry.lastModified, version: WebDAVVersion.of(entry),
        permissions: entry.permissions)
    made.favoriteRank = Self.favoriteRank(entry.isFavorite)
    made.tags = entry.systemTags ?? []
    return made
  }

  func makeItem(_ folder: ItemPath, _ e: WebDAVListingEntry) -> Item {
    let path = folder.appending(ItemName(bytes: e.name))
    var made =
      e.isFolder
      ? folderItem(path, modified: e.lastModified, permissions: e.permissions, etag: e.etag)
      : fileItem(path, size: e.size, lastModified: e.lastModified, version: e.version, permissions: e.permissions)
    made.favoriteRank = Self.favoriteRank(e.isFavorite)
    made.tags = e.tags ?? []
    return made
  }

  /// Nextcloud's `oc:favorite` as a rank: "a favorite, unranked" (the index ranks it), or none.
  /// Nil also where the server does not say; the core reads a listing's nil as "not a favorite"
  /// only for a provider whose traits say it stores favorites (the Nextcloud dialect).
  static func favoriteRank(_ isFavorite: Bool?) -> UInt64? {
    isFavorite == true ? Item.favoriteRankUnranked : nil
  }

  /// A file: its version is the ETag (or size and date). Dataless: the core downloads on demand.
  func fileItem(_ path: ItemPath, size: Int64, lastModified: Date?, version: String, permissions: String? = nil) -> Item {
    let name = path.lastComponent ?? ItemName(bytes: Array((url.host ?? "webdav").utf8))
    return Item(
      identifier: identifier(for: path), parentIdentifier: identifier(for: path.parent), filename: name, path: path,
      contentType: ContentType.forExtension(name.pathExtension),
      capabilities: WebDAVDialect.capabilities(permissions, isFolder: false, base: liveCapabilities(isFolder: false)),
      version: Self.itemVersion(version), documentSize: size, contentModificationDate: lastModified, isDownloaded: false,
      isMostRecentVersionDownloaded: false)
  }

  /// A folder. Its version is the collection's ETag where the server lists one (Apache's changes
  /// when a child is added, removed or renamed; Nextcloud's when anything below changes), else
  /// empty; with its date, that is the poller's hint of whether to list it again
  /// (`ListingPoller.hint(of:)`). The top, answered without a request, has neither: always listed.
  func folderItem(_ path: ItemPath, modified: Date? = nil, permissions: String? = nil, etag: String? = nil) -> Item {
    let isRoot = path == .root
    let name = path.lastComponent ?? ItemName(bytes: Array((url.host ?? "webdav").utf8))
    return Item(
      identifier: identifier(for: path), parentIdentifier: isRoot ? .root : identifier(for: path.parent), filename: name,
      path: path, contentType: .folder,
      capabilities: isRoot
        ? WebDAVDialect.capabilities(permissions, isFolder: true, base: [.reading, .writing])
        : WebDAVDialect.capabilities(permissions, isFolder: true, base: liveCapabilities(isFolder: true)),
      version: etag.flatMap(WebDAVVersion.strong).map(Self.itemVersion) ?? .empty, contentModificationDate: modified)
  }

  /// What any item below the top may be asked (before the server's permissions narrow it).
  func liveCapabilities(isFolder: Bool) -> ItemCapabilities {
    var out: ItemCapabilities = [.reading, .writing, .reparenting, .renaming, .deleting]
    if !isFolder { out.insert(.evicting) }
    if trashbin != nil { out.insert(.trashing) }
    return out
  }

  /// A version as an `ItemVersion` (its SHA-256 when longer than one may hold).
  static func itemVersion(_ text: String) -> ItemVersion {
    if let version = try? ItemVersion(content: text, metadata: "") { return version }
    return (try? ItemVersion(content: "sha256 " + SHA256.hash(data: Array(text.utf8)).map { String(format: "%02x", $0) }.joined(), metadata: "")) ?? .empty
  }
}
