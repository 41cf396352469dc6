import Foundation

/// A key a rule may read from an item (`filename`, `$x.isDownloaded`, `userInfo.pinned`).
///
/// Keys are resolved at parse time, so a misspelt key is a parse error with a suggestion instead of
/// a rule that silently never matches (NSPredicate would only fail at evaluation).
enum RuleItemKey: Sendable, Equatable {
  case filename, pathExtension, path, kind, contentType
  case size, childItemCount
  case isFolder, isSymlink, isTrashed, isFavorite, favoriteRank
  case isDownloaded, isDownloading, isMostRecentVersionDownloaded, isUploaded, isUploading
  case isShared, isSharedByCurrentUser, ownerName
  case tags, capabilities
  case itemIdentifier, parentItemIdentifier
  case modified, created, lastUsed
  case userInfo(String)

  /// Spellings accepted in rules, aliases included. `userInfo.KEY` and `contentType.identifier`
  /// are recognised by the parser, which needs to read past the dot.
  static let named: [String: RuleItemKey] = [
    "filename": .filename, "name": .filename, "extension": .pathExtension, "path": .path,
    "kind": .kind, "contentType": .contentType,
    "size": .size, "documentSize": .size, "childItemCount": .childItemCount,
    "isFolder": .isFolder, "isSymlink": .isSymlink, "isTrashed": .isTrashed,
    "isFavorite": .isFavorite, "favoriteRank": .favoriteRank,
    "isDownloaded": .isDownloaded, "isDownloading": .isDownloading,
    "isMostRecentVersionDownloaded": .isMostRecentVersionDownloaded,
    "isUploaded": .isUploaded, "isUploading": .isUploading,
    "isShared": .isShared, "isSharedByCurrentUser": .isSharedByCurrentUser, "ownerName": .ownerName,
    "tags": .tags, "capabilities": .capabilities,
    "itemIdentifier": .itemIdentifier, "parentItemIdentifier": .parentItemIdentifier,
    "modified": .modified, "contentModificationDate": .modified,
    "created": .created, "creationDate": .created,
    "lastUsed": .lastUsed, "lastUsedDate": .lastUsed,
  ]

  /// Every name the parser knows at the start of a key path, for "did you mean" suggestions.
  static let suggestable: [String] =
    named.keys.sorted() + [
      "userInfo", "resolvedUserInfo", "domainUserInfo", "fileproviderItems", "selection", "count",
    ]

  /// Keys whose value is a list, so `.@count` and ANY/ALL/NONE apply to them.
  var isCollection: Bool {
    switch self {
    case .tags, .capabilities: return true
    default: return false
    }
  }

  /// The key's value for `item`. Names and paths use their lossy UTF-8 reading: rules match on
  /// text, never name a file.
  func value(of item: Item) -> RuleValue {
    switch self {
    case .filename: return .string(item.filename.lossyString)
    case .pathExtension: return .string(item.filename.pathExtension)
    case .path: return .string(item.path.lossyString)
    case .kind: return .string(item.kind.rawValue)
    case .contentType: return .string(item.contentType.identifier)
    case .size: return item.documentSize.map { .number(Double($0)) } ?? .null
    case .childItemCount: return item.childItemCount.map { .number(Double($0)) } ?? .null
    case .isFolder: return .bool(item.isFolder)
    case .isSymlink: return .bool(item.isSymlink)
    case .isTrashed: return .bool(item.isTrashed)
    case .isFavorite: return .bool(item.isFavorite)
    case .favoriteRank: return item.favoriteRank.map { .number(Double($0)) } ?? .null
    case .isDownloaded: return .bool(item.isDownloaded)
    case .isDownloading: return .bool(item.isDownloading)
    case .isMostRecentVersionDownloaded: return .bool(item.isMostRecentVersionDownloaded)
    case .isUploaded: return .bool(item.isUploaded)
    case .isUploading: return .bool(item.isUploading)
    case .isShared: return .bool(item.isShared)
    case .isSharedByCurrentUser: return .bool(item.isSharedByCurrentUser)
    case .ownerName: return item.ownerName.map { .string($0) } ?? .null
    case .tags: return .list(item.tags.map { .string($0) })
    case .capabilities: return .list(item.capabilities.names.map { .string($0) })
    case .itemIdentifier: return .string(item.identifier.rawValue)
    case .parentItemIdentifier: return .string(item.parentIdentifier.rawValue)
    case .modified: return RuleValue(item.contentModificationDate)
    case .created: return RuleValue(item.creationDate)
    case .lastUsed: return RuleValue(item.lastUsedDate)
    case .userInfo(let key): return RuleValue(item.userInfo[key])
    }
  }

  /// The closest known spelling of `word`, if one is near enough to be a likely typo.
  ///
  /// Case is ignored when measuring, so `FileName` suggests `filename`; the distance allowed grows
  /// with the word (one edit for short words, two from six letters) to avoid absurd suggestions.
  static func suggestion(for word: String, among candidates: [String]) -> String? {
    let w = Array(word.lowercased())
    let allowed = min(2, max(1, w.count / 3))
    var best: (name: String, distance: Int)?
    for c in candidates {
      let d = editDistance(w, Array(c.lowercased()))
      if d <= allowed && d < (best?.distance ?? .max) { best = (c, d) }
    }
    return best?.name
  }

  /// Levenshtein distance, two rows at a time.
  static func editDistance(_ a: [Character], _ b: [Character]) -> Int { EditDistance.between(String(a), String(b)) }
}
