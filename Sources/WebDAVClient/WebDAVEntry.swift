import Foundation

/// The properties a PROPFIND asks for by name (never `allprop`: it makes servers compute dead and
/// expensive properties for every entry, and still leaves out the quota ones).
public struct WebDAVProperties: OptionSet, Sendable, Hashable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }

  public static let resourceType = WebDAVProperties(rawValue: 1 << 0)
  public static let contentLength = WebDAVProperties(rawValue: 1 << 1)
  public static let lastModified = WebDAVProperties(rawValue: 1 << 2)
  public static let etag = WebDAVProperties(rawValue: 1 << 3)
  public static let contentType = WebDAVProperties(rawValue: 1 << 4)
  /// RFC 4331.
  public static let quotaAvailable = WebDAVProperties(rawValue: 1 << 5)
  /// RFC 4331.
  public static let quotaUsed = WebDAVProperties(rawValue: 1 << 6)
  /// ownCloud/Nextcloud `oc:fileid`: an id that survives renames and moves.
  public static let fileID = WebDAVProperties(rawValue: 1 << 7)
  /// ownCloud/Nextcloud `oc:permissions` (letters such as `RDNVW`).
  public static let permissions = WebDAVProperties(rawValue: 1 << 8)
  /// ownCloud/Nextcloud `oc:size`: a file's size, or the total below a folder.
  public static let ocSize = WebDAVProperties(rawValue: 1 << 9)
  /// ownCloud/Nextcloud `oc:favorite` ("1" for a favorite).
  public static let favorite = WebDAVProperties(rawValue: 1 << 10)
  /// Nextcloud's trash bin: `nc:trashbin-filename`, `-original-location`, `-deletion-time`.
  public static let trashbin = WebDAVProperties(rawValue: 1 << 11)
  /// Nextcloud's `nc:system-tags`: the collaborative tags its Files app shows on an item.
  public static let systemTags = WebDAVProperties(rawValue: 1 << 12)
  /// `oc:display-name`: a tag's name, in `remote.php/dav/systemtags/`.
  public static let tagName = WebDAVProperties(rawValue: 1 << 13)

  /// What a listing needs: kind, size, date, version, type.
  public static let standard: WebDAVProperties = [.resourceType, .contentLength, .lastModified, .etag, .contentType]
  /// RFC 4331 quota.
  public static let quota: WebDAVProperties = [.quotaAvailable, .quotaUsed]
  /// The ownCloud/Nextcloud dialect.
  public static let ownCloud: WebDAVProperties = [.fileID, .permissions, .ocSize]
}

/// One item of a PROPFIND answer, with the properties the server gave (a property it answered
/// 404 for, or never sent, is nil).
public struct WebDAVEntry: Sendable, Equatable {
  /// Relative to the configuration's base URL; decoded from the href to bytes.
  public var path: WebDAVPath
  /// `resourcetype` holds `collection`.
  public var isCollection: Bool = false
  /// `getcontentlength`.
  public var size: Int64?
  /// `getlastmodified` (1 s resolution).
  public var lastModified: Date?
  /// `getetag` exactly as sent, quotes and any `W/` included: what goes back in `If-Match`.
  public var etag: String?
  /// `getcontenttype`.
  public var contentType: String?
  /// `quota-available-bytes`; Nextcloud sends −1, −2, −3 for uncomputed, unknown, unlimited.
  public var quotaAvailableBytes: Int64?
  /// `quota-used-bytes`.
  public var quotaUsedBytes: Int64?
  /// `oc:fileid`.
  public var fileID: String?
  /// `oc:permissions`.
  public var permissions: String?
  /// `oc:size`.
  public var ocSize: Int64?
  /// `oc:favorite`.
  public var isFavorite: Bool?
  /// `nc:trashbin-filename`: the name the item had.
  public var trashFilename: String?
  /// `nc:trashbin-original-location`: where it was, relative to the user's files (with its name).
  public var trashOriginalLocation: String?
  /// `nc:trashbin-deletion-time`.
  public var trashDeletionTime: Date?
  /// `nc:system-tags`: the names of the item's system tags (nil where the server does not say).
  public var systemTags: [String]?
  /// `oc:display-name` of a system tag (an entry of `remote.php/dav/systemtags/`).
  public var tagName: String?

  public init(path: WebDAVPath) { self.path = path }

  /// The last name of the path.
  public var name: [UInt8] { path.name }

  /// A weak ETag (`W/"…"`) cannot be used with `If-Match`, which compares strongly (RFC 9110
  /// §13.1.1): Apache gives one while a file is less than a second old (remote-providers.md §4.2).
  public var isETagWeak: Bool { etag?.hasPrefix("W/") ?? false }
}
