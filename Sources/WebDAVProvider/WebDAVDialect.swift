import Foundation
import ProviderAPI
import WebDAVClient

/// What a WebDAV server speaks beyond RFC 4918, found at `folio domain add` (kept as `dialect`).
///
/// Nextcloud and ownCloud answer `oc:fileid` for the top: they also give `oc:permissions` (what
/// the user may do with each item), RFC 4331 quota and, at `remote.php/dav/trashbin/USER/`, the trash
/// bin (Recently Deleted with Put Back). Their code path is tested against a double written from
/// Nextcloud's documentation (Nextcloud cannot run here: docs/ARCHITECTURE.md).
public enum WebDAVDialect: String, Sendable {
  case generic
  case nextcloud

  /// What a listing asks for: on Nextcloud also the permissions and the favorite state (a
  /// favorite set on another device or in the web interface reaches the index with the listing).
  var listingProperties: WebDAVProperties {
    self == .nextcloud ? WebDAVProperties.standard.union([.permissions, .fileID, .favorite, .systemTags]) : .standard
  }

  /// Whether the server keeps the account's favorites (Nextcloud's `oc:favorite`, set with
  /// PROPPATCH): they are then the same on every device; elsewhere Folio's index keeps them.
  public var storesFavorites: Bool { self == .nextcloud }

  /// Whether a folder's ETag moves when anything below it changes, at any depth: Nextcloud's
  /// and ownCloud's do (the change is propagated to every ancestor, which is how their own
  /// clients find changes: remote-providers.md §4.5, nextcloud/desktop#8456); Apache's moves
  /// for its direct children only, nginx and rclone state none.
  public var folderVersionsCoverDescendants: Bool { self == .nextcloud }

  /// Whether the server keeps tags the account's other devices see: Nextcloud's system tags
  /// (the "collaborative tags" its Files app shows and filters by), listed as `nc:system-tags`.
  public var storesTags: Bool { self == .nextcloud }

  /// The account's DAV root of a Nextcloud files URL, `…/remote.php/dav/`, where its system tags
  /// and their assignments are (`systemtags/`, `systemtags-relations/`). Nil for another URL.
  public static func davRoot(of url: URL) -> URL? {
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
    let parts = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    guard let at = parts.indices.first(where: { i in
      i + 3 < parts.count && parts[i] == "remote.php" && parts[i + 1] == "dav" && parts[i + 2] == "files"
    })
    else { return nil }
    components.percentEncodedPath = "/" + (parts[..<at] + ["remote.php", "dav"]).joined(separator: "/") + "/"
    return components.url
  }

  /// The trash bin of a Nextcloud files URL: `…/remote.php/dav/files/USER/[SUB/]` has its bin at
  /// `…/remote.php/dav/trashbin/USER/`, and a location at SUB shows the items deleted below SUB.
  /// Nil for another URL (the older `remote.php/webdav/` has no bin Folio can reach).
  public static func trashbin(of url: URL) -> (url: URL, within: [UInt8])? {
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
    let parts = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    guard let at = parts.indices.first(where: { i in
      i + 3 < parts.count && parts[i] == "remote.php" && parts[i + 1] == "dav" && parts[i + 2] == "files"
    })
    else { return nil }
    let user = parts[at + 3]
    let within = parts[(at + 4)...].joined(separator: "/")
    components.percentEncodedPath = "/" + (parts[..<at] + ["remote.php", "dav", "trashbin", user]).joined(separator: "/") + "/"
    guard let trashURL = components.url, let decoded = within.removingPercentEncoding else { return nil }
    return (trashURL, Array(decoded.utf8))
  }

  /// The collection for chunked uploads of a Nextcloud files URL: `…/remote.php/dav/files/USER/[SUB/]`
  /// has it at `…/remote.php/dav/uploads/USER/` (Nextcloud developer manual, "Chunked file
  /// upload"). Nil for another URL: the older `remote.php/webdav/` uploads with one PUT.
  public static func uploads(of url: URL) -> URL? {
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return nil }
    let parts = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    guard let at = parts.indices.first(where: { i in
      i + 3 < parts.count && parts[i] == "remote.php" && parts[i + 1] == "dav" && parts[i + 2] == "files"
    })
    else { return nil }
    components.percentEncodedPath = "/" + (parts[..<at] + ["remote.php", "dav", "uploads", parts[at + 3]]).joined(separator: "/") + "/"
    return components.url
  }

  /// An item's capabilities from `oc:permissions` (Nextcloud's letters: G read, W write a file, C
  /// and K create in a folder, D delete, N rename, V move; S shared with the user).
  static func capabilities(_ permissions: String?, isFolder: Bool, base: ItemCapabilities) -> ItemCapabilities {
    guard let permissions else { return base }
    var out: ItemCapabilities = [.reading]
    if base.contains(.evicting) { out.insert(.evicting) }
    if isFolder ? (permissions.contains("C") || permissions.contains("K")) : permissions.contains("W") {
      out.insert(.writing)
    }
    if permissions.contains("D") { out.formUnion(base.intersection([.deleting, .trashing])) }
    if permissions.contains("N") && base.contains(.renaming) { out.insert(.renaming) }
    if permissions.contains("V") && base.contains(.reparenting) { out.insert(.reparenting) }
    return out
  }
}
