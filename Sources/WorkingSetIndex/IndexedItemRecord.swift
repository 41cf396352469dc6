import Foundation
import GRDB
import ProviderAPI

/// One row of `item`, column for column. Kept apart from ProviderAPI's `Item`: the public face of
/// a row is ``IndexedItem``.
///
/// The generated `inWorkingSet` column is read by queries but never written, so it is not a
/// property here.
struct IndexedItemRecord: Codable, Equatable, FetchableRecord, MutablePersistableRecord {
  static let databaseTableName = "item"

  var id: Int64?
  var domain: String
  var identifier: String
  var parentIdentifier: String
  var name: Data
  var nameText: String
  var path: Data
  var contentType: String
  var kind: String
  var size: Int64?
  var childItemCount: Int64?
  var created: Double?
  var modified: Double?
  var lastUsed: Double?
  var favoriteRank: Int64?
  var isTrashed = false
  var insideTrash = false
  var originalPath: Data?
  var trashedDate: Double?
  var isShared = false
  var isSharedByCurrentUser = false
  var ownerName: String?
  var mostRecentEditorName: String?
  var isDownloaded = true
  var isMaterialized = false
  var isPinned = false
  var versionContent = Data()
  var versionMetadata = Data()
  var capabilities: Int64 = 0
  var contentPolicy: Int64 = 0
  var symlinkTarget: Data?
  var posixPermissions: Int64?
  var userInfo: String?
  var decorations: String?
  var tagsText = ""

  /// A new row for an item the index has not seen; the provider's fields are applied next.
  init(domain: DomainIdentifier, item: Item) {
    self.domain = domain.rawValue
    identifier = item.identifier.rawValue
    parentIdentifier = item.parentIdentifier.rawValue
    name = Data(item.filename.bytes)
    nameText = item.filename.lossyString
    path = Data(item.path.bytes)
    contentType = item.contentType.identifier
    kind = item.kind.rawValue
  }

  mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }

  /// Copies what the provider knows about `item`, keeping what the index owns.
  ///
  /// Per-user fields follow the File Provider rule that the system keeps them when the provider
  /// does not: a nil last-used date or favorite rank leaves the stored one alone, and a later
  /// stored use is never moved back by an older one. Tags are handled by the caller (they are rows
  /// of `tag`). Materialization, pinning and `insideTrash` are the index's own.
  mutating func applyProviderFields(of item: Item) {
    identifier = item.identifier.rawValue
    parentIdentifier = item.parentIdentifier.rawValue
    name = Data(item.filename.bytes)
    nameText = item.filename.lossyString
    path = Data(item.path.bytes)
    contentType = item.contentType.identifier
    kind = item.kind.rawValue
    size = item.documentSize
    childItemCount = item.childItemCount.map(Int64.init)
    created = item.creationDate?.timeIntervalSince1970
    modified = item.contentModificationDate?.timeIntervalSince1970
    if let used = item.lastUsedDate?.timeIntervalSince1970 { lastUsed = max(lastUsed ?? used, used) }
    if let rank = item.favoriteRank, rank != Self.unranked { favoriteRank = Int64(clamping: rank) }
    isTrashed = item.isTrashed
    if item.isTrashed {
      insideTrash = false
      if let original = item.originalPath { originalPath = Data(original.bytes) }
      if let date = item.trashedDate { trashedDate = date.timeIntervalSince1970 }
    } else {
      originalPath = nil
      trashedDate = nil
    }
    isShared = item.isShared
    isSharedByCurrentUser = item.isSharedByCurrentUser
    ownerName = item.ownerName
    mostRecentEditorName = item.mostRecentEditorName
    isDownloaded = item.isDownloaded
    versionContent = item.version.content
    versionMetadata = item.version.metadata
    capabilities = Int64(item.capabilities.rawValue)
    contentPolicy = Int64(item.contentPolicy.rawValue)
    symlinkTarget = item.symlinkTargetPath.map { Data($0.bytes) }
    posixPermissions = item.posixPermissions.map(Int64.init)
    userInfo = JSONColumn.encode(item.userInfo)
    decorations = JSONColumn.encode(item.decorations)
  }

  /// `NSFileProviderFavoriteRankUnranked`: "a favorite; you choose the rank".
  static let unranked = UInt64.max

  /// The public view, with the tags read from `tag`.
  func indexedItem(tags: [String]) -> IndexedItem {
    IndexedItem(
      domain: DomainIdentifier(unchecked: domain), identifier: ItemIdentifier(identifier),
      parentIdentifier: ItemIdentifier(parentIdentifier), name: ItemName(bytes: Array(name)),
      path: ItemPath(bytes: Array(path)), contentType: ContentType(contentType),
      kind: ItemKind(rawValue: kind) ?? .file,
      capabilities: ItemCapabilities(rawValue: UInt32(truncatingIfNeeded: capabilities)),
      version: (try? ItemVersion(content: versionContent, metadata: versionMetadata)) ?? .empty, size: size,
      childItemCount: childItemCount.map { Int(truncatingIfNeeded: $0) }, created: created.map(Self.date),
      modified: modified.map(Self.date), lastUsed: lastUsed.map(Self.date), tags: tags,
      favoriteRank: favoriteRank.map { UInt64(clamping: $0) }, isTrashed: isTrashed, isInsideTrash: insideTrash,
      originalPath: originalPath.map { ItemPath(bytes: Array($0)) }, trashedDate: trashedDate.map(Self.date),
      isShared: isShared, isSharedByCurrentUser: isSharedByCurrentUser, ownerName: ownerName,
      mostRecentEditorName: mostRecentEditorName, isDownloaded: isDownloaded, isMaterialized: isMaterialized,
      isPinned: isPinned, contentPolicy: ContentPolicy(rawValue: Int(contentPolicy)) ?? .inherited,
      symlinkTargetPath: symlinkTarget.map { ItemPath(bytes: Array($0)) },
      posixPermissions: posixPermissions.map { UInt32(truncatingIfNeeded: $0) },
      userInfo: JSONColumn.decodeUserInfo(userInfo), decorations: JSONColumn.decodeDecorations(decorations))
  }

  private static func date(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }
}

extension IndexedItemRecord {
  static func fetch(_ db: Database, domain: DomainIdentifier, identifier: ItemIdentifier) throws -> Self? {
    try SQLRequest<Self>(
      sql: "SELECT * FROM item WHERE domain = ? AND identifier = ?",
      arguments: [domain.rawValue, identifier.rawValue], cached: true
    ).fetchOne(db)
  }

  static func fetch(_ db: Database, domain: DomainIdentifier, path: ItemPath) throws -> Self? {
    try SQLRequest<Self>(
      sql: "SELECT * FROM item WHERE domain = ? AND path = ? ORDER BY id DESC LIMIT 1",
      arguments: [domain.rawValue, Data(path.bytes)], cached: true
    ).fetchOne(db)
  }
}
