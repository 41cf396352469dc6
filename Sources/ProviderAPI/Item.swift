import Foundation

/// A file or folder as a provider describes it (File Provider semantics §1).
///
/// An `Item` is a value: the provider's answer at one moment. Durable, per-user facts that the
/// provider does not know (a local file's favorite rank, tags on a filesystem without xattrs) are
/// merged in by the core from the index.
public struct Item: Sendable, Equatable, Identifiable {
  public var id: ItemIdentifier { identifier }

  public var identifier: ItemIdentifier
  /// The real parent. `.trash` for items in the trash; ignored for the root.
  public var parentIdentifier: ItemIdentifier
  public var filename: ItemName
  /// Where the item is: an absolute local path, or the path inside a remote domain.
  public var path: ItemPath
  public var contentType: ContentType
  public var capabilities: ItemCapabilities
  public var version: ItemVersion

  public var documentSize: Int64?
  public var childItemCount: Int?
  public var creationDate: Date?
  public var contentModificationDate: Date?
  /// Clear intent to use the item: the sort key of Recents. Per user.
  public var lastUsedDate: Date?
  /// Tag names (Finder colors are tags named Red, Orange, …). Per user.
  public var tags: [String]
  /// Favorite folders' order; nil when not a favorite. Per user.
  public var favoriteRank: UInt64?
  /// `NSFileProviderFavoriteRankUnranked`: "a favorite; you choose the rank" — what a provider
  /// whose storage knows favorites but not their order (Nextcloud's `oc:favorite`) states. The
  /// index gives it the next rank, once.
  public static let favoriteRankUnranked = UInt64.max

  /// For trashed items: where they were, and when they were trashed.
  public var originalPath: ItemPath?
  public var trashedDate: Date?

  public var isUploaded: Bool
  public var isUploading: Bool
  public var uploadingError: ProviderError?
  public var isDownloaded: Bool
  public var isDownloading: Bool
  public var downloadingError: ProviderError?
  public var isMostRecentVersionDownloaded: Bool

  public var isShared: Bool
  public var isSharedByCurrentUser: Bool
  /// nil when unshared or shared by the current user.
  public var ownerName: String?
  public var mostRecentEditorName: String?

  public var contentPolicy: ContentPolicy
  /// Values visible to activation rules. Keys ending in `.inherited` flow down to children.
  public var userInfo: [String: UserInfoValue]
  /// Decoration identifiers the provider declared (see ``DecorationDeclaration``).
  public var decorations: [DecorationIdentifier]
  public var symlinkTargetPath: ItemPath?
  /// POSIX mode bits, where the storage has them.
  public var posixPermissions: UInt32?
  /// Why the item is listed by name only: its folder let its names be read but not its details
  /// (a local folder without search permission, `chmod a-x`), so kind, size and dates are unknown.
  /// A listing keeps such an entry, with this reason, rather than leaving it out.
  public var metadataError: ProviderError?

  public init(
    identifier: ItemIdentifier, parentIdentifier: ItemIdentifier, filename: ItemName, path: ItemPath,
    contentType: ContentType, capabilities: ItemCapabilities = .all, version: ItemVersion = .empty,
    documentSize: Int64? = nil, childItemCount: Int? = nil, creationDate: Date? = nil,
    contentModificationDate: Date? = nil, lastUsedDate: Date? = nil, tags: [String] = [],
    favoriteRank: UInt64? = nil, originalPath: ItemPath? = nil, trashedDate: Date? = nil,
    isUploaded: Bool = true, isUploading: Bool = false, uploadingError: ProviderError? = nil,
    isDownloaded: Bool = true, isDownloading: Bool = false, downloadingError: ProviderError? = nil,
    isMostRecentVersionDownloaded: Bool = true, isShared: Bool = false, isSharedByCurrentUser: Bool = false,
    ownerName: String? = nil, mostRecentEditorName: String? = nil, contentPolicy: ContentPolicy = .inherited,
    userInfo: [String: UserInfoValue] = [:], decorations: [DecorationIdentifier] = [],
    symlinkTargetPath: ItemPath? = nil, posixPermissions: UInt32? = nil, metadataError: ProviderError? = nil
  ) {
    self.identifier = identifier
    self.parentIdentifier = parentIdentifier
    self.filename = filename
    self.path = path
    self.contentType = contentType
    self.capabilities = capabilities
    self.version = version
    self.documentSize = documentSize
    self.childItemCount = childItemCount
    self.creationDate = creationDate
    self.contentModificationDate = contentModificationDate
    self.lastUsedDate = lastUsedDate
    self.tags = tags
    self.favoriteRank = favoriteRank
    self.originalPath = originalPath
    self.trashedDate = trashedDate
    self.isUploaded = isUploaded
    self.isUploading = isUploading
    self.uploadingError = uploadingError
    self.isDownloaded = isDownloaded
    self.isDownloading = isDownloading
    self.downloadingError = downloadingError
    self.isMostRecentVersionDownloaded = isMostRecentVersionDownloaded
    self.isShared = isShared
    self.isSharedByCurrentUser = isSharedByCurrentUser
    self.ownerName = ownerName
    self.mostRecentEditorName = mostRecentEditorName
    self.contentPolicy = contentPolicy
    self.userInfo = userInfo
    self.decorations = decorations
    self.symlinkTargetPath = symlinkTargetPath
    self.posixPermissions = posixPermissions
    self.metadataError = metadataError
  }

  public var isFolder: Bool { contentType == .folder }
  public var isSymlink: Bool { contentType == .symlink }
  public var isTrashed: Bool { parentIdentifier == .trash }
  public var isFavorite: Bool { favoriteRank != nil }

  /// "folder", "file", "symlink" or "special": the coarse kind used by JSON and rules.
  public var kind: ItemKind {
    if contentType == .folder { return .folder }
    if contentType == .symlink { return .symlink }
    if contentType == .special { return .special }
    return .file
  }
}

public enum ItemKind: String, Sendable, Codable, CaseIterable {
  case file, folder, symlink, special
}

/// How eagerly content is kept locally (macOS 13 contentPolicy).
public enum ContentPolicy: Int, Sendable, Codable {
  case inherited = 0
  case downloadLazily = 1
  case downloadLazilyAndEvictOnRemoteUpdate = 2
  /// "Keep Downloaded": never evicted; inherited by the items of a pinned folder.
  case downloadEagerlyAndKeepDownloaded = 3
}

/// What a create or modify carries: the fields of an item the caller sets.
public struct ItemTemplate: Sendable, Equatable {
  public var identifier: ItemIdentifier?
  public var parentIdentifier: ItemIdentifier
  public var filename: ItemName
  public var contentType: ContentType
  public var creationDate: Date?
  public var contentModificationDate: Date?
  public var lastUsedDate: Date?
  public var tags: [String]
  public var favoriteRank: UInt64?
  /// Size and hash of the `contents` file given with this template, when the caller knows them
  /// (see ``ContentDigest``); nil otherwise, and never derived from an existing item.
  public var contentDigest: ContentDigest?
  /// Names one journaled upload across all its attempts, in every process that resumes it: the
  /// same for each retry, different for every other upload (on any computer); nil for a one-off
  /// write. A provider that parks bytes under a temporary name on the server derives that name
  /// from it, so a retry after a crash or a dropped link finds the leftover of an earlier attempt
  /// as its own and removes it, instead of leaving it there for ever beside a new one.
  public var uploadToken: String?

  public init(
    identifier: ItemIdentifier? = nil, parentIdentifier: ItemIdentifier, filename: ItemName,
    contentType: ContentType, creationDate: Date? = nil, contentModificationDate: Date? = nil,
    lastUsedDate: Date? = nil, tags: [String] = [], favoriteRank: UInt64? = nil
  ) {
    self.identifier = identifier
    self.parentIdentifier = parentIdentifier
    self.filename = filename
    self.contentType = contentType
    self.creationDate = creationDate
    self.contentModificationDate = contentModificationDate
    self.lastUsedDate = lastUsedDate
    self.tags = tags
    self.favoriteRank = favoriteRank
  }

  /// A template describing an existing item, to be edited before a modify.
  public init(_ item: Item) {
    self.init(
      identifier: item.identifier, parentIdentifier: item.parentIdentifier, filename: item.filename,
      contentType: item.contentType, creationDate: item.creationDate,
      contentModificationDate: item.contentModificationDate, lastUsedDate: item.lastUsedDate,
      tags: item.tags, favoriteRank: item.favoriteRank)
  }
}
