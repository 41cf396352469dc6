import ProviderAPI

/// The sync badge of an item, from its state: the whole File Provider vocabulary, even though
/// local items only use part of it.
public enum Badge: Sendable, Equatable {
  case none, notDownloaded, downloading, uploading, queued, error, conflict, pinned, excluded

  /// The badge of an item with its live transfer: a transfer under way, waiting or stopped says
  /// more than the item's flags from the page it came in.
  public static func of(_ item: Item, transfer: TransferState?) -> Badge {
    guard let t = transfer else { return of(item) }
    switch t.phase {
    case .running: return t.direction == .download ? .downloading : .uploading
    case .queued, .retrying: return .queued
    case .throttled, .failed: return .error
    }
  }

  public static func of(_ item: Item) -> Badge {
    // File Provider reports an item kept out of sync as an upload error with this code.
    if item.uploadingError?.code == .excludedFromSync { return .excluded }
    // An upload the server kept as a conflict copy: both versions exist, nothing failed.
    if item.uploadingError?.code == .localVersionConflictingWithServer { return .conflict }
    // Listed by name only (a folder without search permission): its details could not be read.
    if item.uploadingError != nil || item.downloadingError != nil || item.metadataError != nil { return .error }
    if item.decorations.contains(DecorationIdentifier("conflict")) { return .conflict }
    if item.isUploading { return .uploading }
    if item.isDownloading { return .downloading }
    if !item.isUploaded { return .queued }
    if !item.isDownloaded && !item.isFolder { return .notDownloaded }
    if item.contentPolicy == .downloadEagerlyAndKeepDownloaded { return .pinned }
    return .none
  }

  public func glyph(_ g: Glyphs) -> String {
    switch self {
    case .none: return " "
    case .notDownloaded: return g.notDownloaded
    case .downloading: return g.downloading
    case .uploading: return g.uploading
    case .queued: return g.queued
    case .error: return g.error
    case .conflict: return g.conflict
    case .pinned: return g.pinned
    case .excluded: return g.excluded
    }
  }

  public var role: StyleRole {
    switch self {
    case .none: return .listRow
    case .notDownloaded: return .badgeCloud
    case .downloading: return .badgeDownloading
    case .uploading: return .badgeUploading
    case .queued: return .badgeQueued
    case .error: return .badgeError
    case .conflict: return .badgeConflict
    case .pinned: return .badgePinned
    case .excluded: return .badgeExcluded
    }
  }

  /// The role of a tag's dot: Finder colors by name, any other tag in the custom color.
  public static func tagRole(_ name: String) -> StyleRole {
    switch name.lowercased() {
    case "red": return .tagRed
    case "orange": return .tagOrange
    case "yellow": return .tagYellow
    case "green": return .tagGreen
    case "blue": return .tagBlue
    case "purple": return .tagPurple
    case "gray", "grey": return .tagGray
    default: return .tagCustom
    }
  }
}
