import Foundation
import ProviderAPI
import WebDAVClient

/// One child of a collection as a PROPFIND listed it.
struct WebDAVListingEntry: FolderListingEntry, Equatable {
  var name: [UInt8]
  var isFolder: Bool
  var size: Int64
  var lastModified: Date?
  /// The content version (``WebDAVVersion``).
  var version: String
  /// Nextcloud's `oc:permissions`.
  var permissions: String?
  /// The ETag as listed (a collection's: the folder's version).
  var etag: String?
  /// Nextcloud's `oc:favorite` (nil where the server does not say).
  var isFavorite: Bool?
  /// Nextcloud's system tags (nil where the server does not say).
  var tags: [String]?

  init(_ entry: WebDAVEntry) {
    name = entry.name
    isFolder = entry.isCollection
    size = entry.isCollection ? 0 : max(0, entry.size ?? 0)
    lastModified = entry.lastModified
    version = WebDAVVersion.of(entry)
    permissions = entry.permissions
    etag = entry.etag
    isFavorite = entry.isFavorite
    tags = entry.systemTags
  }
}

/// An item's content version on a WebDAV server: its ETag without a weak `W/` prefix (Apache's
/// ETag of a file less than a second old is weak, the same one strong afterwards: one version,
/// not two), or, where the server lists none (nginx), its size and last-modified date. A version
/// longer than an item version may hold is replaced by its SHA-256.
enum WebDAVVersion {
  static func of(_ entry: WebDAVEntry) -> String {
    of(etag: entry.etag, size: entry.size, lastModified: entry.lastModified)
  }

  static func of(etag: String?, size: Int64?, lastModified: Date?) -> String {
    if let etag = strong(etag), !etag.isEmpty { return etag }
    let seconds = lastModified.map { String(Int64($0.timeIntervalSince1970)) } ?? "?"
    return "size \(size.map(String.init) ?? "?") modified \(seconds)"
  }

  /// The ETag without `W/`: what `If-Match` takes (strong comparison, RFC 9110 §13.1.1).
  static func strong(_ etag: String?) -> String? {
    guard let etag else { return nil }
    return etag.hasPrefix("W/") ? String(etag.dropFirst(2)) : etag
  }

  /// The ETag in a version (nil when the version is a size and date, or another provider's).
  static func etag(_ version: ItemVersion) -> String? {
    guard let text = String(data: version.content, encoding: .utf8), text.hasPrefix("\"") else { return nil }
    return text
  }

  static func text(_ version: ItemVersion) -> String? { String(data: version.content, encoding: .utf8) }
}
