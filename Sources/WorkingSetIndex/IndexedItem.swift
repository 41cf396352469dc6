import Foundation
import ProviderAPI

/// The index's view of an item: what a provider last said about it, plus the per-user and local
/// facts the index owns (last use, tags, favorite rank, trash bookkeeping, materialization).
///
/// It is what Recents, Tags, Favorites, Recently Deleted and search show without asking a
/// provider. `item()` turns it back into a ProviderAPI `Item`.
public struct IndexedItem: Sendable, Equatable, Identifiable {
  public struct ID: Hashable, Sendable {
    public var domain: DomainIdentifier
    public var identifier: ItemIdentifier
    public init(domain: DomainIdentifier, identifier: ItemIdentifier) {
      self.domain = domain
      self.identifier = identifier
    }
  }

  public var id: ID { ID(domain: domain, identifier: identifier) }

  public var domain: DomainIdentifier
  public var identifier: ItemIdentifier
  public var parentIdentifier: ItemIdentifier
  /// The exact bytes of the name.
  public var name: ItemName
  public var path: ItemPath
  public var contentType: ContentType
  public var kind: ItemKind
  public var capabilities: ItemCapabilities
  public var version: ItemVersion
  public var size: Int64?
  public var childItemCount: Int?
  public var created: Date?
  public var modified: Date?
  public var lastUsed: Date?
  public var tags: [String]
  public var favoriteRank: UInt64?
  /// True for an item at the top of the trash (Recently Deleted lists these).
  public var isTrashed: Bool
  /// True for an item inside a trashed folder: kept (a restore brings it back) but out of the
  /// working set.
  public var isInsideTrash: Bool
  public var originalPath: ItemPath?
  public var trashedDate: Date?
  public var isShared: Bool
  public var isSharedByCurrentUser: Bool
  public var ownerName: String?
  public var mostRecentEditorName: String?
  /// What the provider said (`Item.isDownloaded`).
  public var isDownloaded: Bool
  /// A copy of the content is in the local content store.
  public var isMaterialized: Bool
  /// "Keep Downloaded": never evicted.
  public var isPinned: Bool
  public var contentPolicy: ContentPolicy
  public var symlinkTargetPath: ItemPath?
  public var posixPermissions: UInt32?
  public var userInfo: [String: UserInfoValue]
  public var decorations: [DecorationIdentifier]

  public var isFavorite: Bool { favoriteRank != nil }

  /// The working-set rule (File Provider semantics §1): recently used, tagged, favorite, shared,
  /// materialized or trashed, and not inside a trashed folder.
  public var isInWorkingSet: Bool {
    !isInsideTrash
      && (lastUsed != nil || !tags.isEmpty || favoriteRank != nil || isShared || isMaterialized || isPinned
        || isTrashed)
  }

  /// The item as a provider would describe it, with the index's per-user fields merged in.
  ///
  /// Transient states (uploading, downloading and their errors) are not kept by the index; they
  /// come from the transfer journal.
  public func item() -> Item {
    Item(
      identifier: identifier, parentIdentifier: isTrashed ? .trash : parentIdentifier, filename: name,
      path: path, contentType: contentType, capabilities: capabilities, version: version,
      documentSize: size, childItemCount: childItemCount, creationDate: created,
      contentModificationDate: modified, lastUsedDate: lastUsed, tags: tags, favoriteRank: favoriteRank,
      originalPath: originalPath, trashedDate: trashedDate, isDownloaded: isDownloaded || isMaterialized,
      isShared: isShared, isSharedByCurrentUser: isSharedByCurrentUser, ownerName: ownerName,
      mostRecentEditorName: mostRecentEditorName,
      contentPolicy: isPinned ? .downloadEagerlyAndKeepDownloaded : contentPolicy, userInfo: userInfo,
      decorations: decorations, symlinkTargetPath: symlinkTargetPath, posixPermissions: posixPermissions)
  }
}
