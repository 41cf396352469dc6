/// How an enumeration is sorted. Sorting by name needs only names; by date or size it needs the
/// metadata of every entry, which a provider streams with progress.
public struct ItemSort: Hashable, Sendable, Codable, CustomStringConvertible {
  public enum Key: String, Sendable, Codable, CaseIterable { case name, date, size, kind }

  public var key: Key
  public var ascending: Bool
  public var foldersFirst: Bool

  public init(key: Key = .name, ascending: Bool = true, foldersFirst: Bool = true) {
    self.key = key
    self.ascending = ascending
    self.foldersFirst = foldersFirst
  }

  public static let `default` = ItemSort()

  public var description: String {
    "\(key.rawValue) \(ascending ? "ascending" : "descending")\(foldersFirst ? ", folders first" : "")"
  }
}

/// What to enumerate and how.
public struct EnumerationRequest: Hashable, Sendable {
  public var container: ItemIdentifier
  public var sort: ItemSort
  public var includeHidden: Bool
  /// A hint; providers may return fewer, and at most 100× this.
  public var suggestedPageSize: Int
  /// Whether the first page may come from a listing the provider read a moment ago.
  public var freshness: Freshness

  /// How current a first page must be. A provider that reads a whole folder to answer it (SFTP:
  /// READDIR has no order) may answer a second visit from its last reading, checked with one
  /// cheap request (the folder's mtime), so the folder paints at once; the change poller, which
  /// decides what was deleted, always asks for `.current`. Providers with their own paging
  /// ignore it.
  public enum Freshness: Hashable, Sendable {
    /// A recent reading (seconds old, the folder's mtime unchanged) will do.
    case recent
    /// Read now.
    case current
  }

  public init(
    container: ItemIdentifier, sort: ItemSort = .default, includeHidden: Bool = false, suggestedPageSize: Int = 200,
    freshness: Freshness = .recent
  ) {
    self.container = container
    self.sort = sort
    self.includeHidden = includeHidden
    self.suggestedPageSize = suggestedPageSize
    self.freshness = freshness
  }
}

/// One page of an enumeration.
public struct ItemPage: Sendable {
  public var items: [Item]
  /// Where the next page starts; nil when this was the last page.
  public var nextPage: Page?
  /// The number of items the whole enumeration holds, when the provider knows it.
  public var totalCount: Int?
  /// The container itself as the provider read it when the listing began (its version and
  /// modification date), for a provider whose folders' dates move when entries come and go
  /// (SFTP): the change poller looks at the folder later and, finding the same, knows the rows
  /// shown are still its entries without listing it again. Nil when the provider does not say.
  public var container: Item?

  public init(items: [Item], nextPage: Page?, totalCount: Int? = nil, container: Item? = nil) {
    self.items = items
    self.nextPage = nextPage
    self.totalCount = totalCount
    self.container = container
  }
}

/// Progress of work a provider does before it can answer the first page (reading a huge folder,
/// reading the metadata of every entry to sort by date or size).
public struct EnumerationProgress: Sendable, Equatable {
  public enum Phase: String, Sendable { case reading, readingMetadata, sorting }
  public var phase: Phase
  public var completed: Int
  public var total: Int?

  public init(phase: Phase, completed: Int, total: Int?) {
    self.phase = phase
    self.completed = completed
    self.total = total
  }
}

/// A batch of changes since an anchor.
public struct ChangeBatch: Sendable {
  public var updatedItems: [Item]
  public var deletedIdentifiers: [ItemIdentifier]
  public var anchor: SyncAnchor
  public var moreComing: Bool

  public init(updatedItems: [Item], deletedIdentifiers: [ItemIdentifier], anchor: SyncAnchor, moreComing: Bool) {
    self.updatedItems = updatedItems
    self.deletedIdentifiers = deletedIdentifiers
    self.anchor = anchor
    self.moreComing = moreComing
  }
}

/// Progress of a content transfer.
public struct TransferProgress: Sendable, Equatable {
  public var completedBytes: Int64
  public var totalBytes: Int64?

  public init(completedBytes: Int64, totalBytes: Int64?) {
    self.completedBytes = completedBytes
    self.totalBytes = totalBytes
  }

  /// 0…100, or nil when the total is unknown.
  public var percent: Int? {
    guard let t = totalBytes, t > 0 else { return nil }
    return Int(min(100, completedBytes * 100 / t))
  }
}
