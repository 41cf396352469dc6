import ProviderAPI

/// What the simulated server behaves like in one run, chosen from the seed among the traits the
/// real providers declare (remote-providers.md §1): a change feed with stable identifiers (Folio's
/// server, Nextcloud with file ids, an extension) or none with path-keyed identifiers (SFTP, S3,
/// WebDAV); conditional writes honoured or ignored; a trash or none.
public struct StorageKind: Sendable, Equatable, CustomStringConvertible {
  public enum Changes: String, Sendable, CaseIterable {
    /// A change log with anchors; identifiers survive renames.
    case feed
    /// No feed: folders are listed and compared; an identifier is the path.
    case listing
  }

  public var changes: Changes
  public var conditionalWrites: ProviderTraits.ConditionalWrites
  public var hasTrash: Bool

  public init(changes: Changes, conditionalWrites: ProviderTraits.ConditionalWrites, hasTrash: Bool) {
    self.changes = changes
    self.conditionalWrites = conditionalWrites
    // Path-keyed storage here has no trash, as SFTP, S3 and plain WebDAV have none.
    self.hasTrash = changes == .feed && hasTrash
  }

  /// Every kind a run may draw.
  public static let all: [StorageKind] = [
    StorageKind(changes: .feed, conditionalWrites: .honoured, hasTrash: true),
    StorageKind(changes: .feed, conditionalWrites: .honoured, hasTrash: false),
    StorageKind(changes: .feed, conditionalWrites: .ignored, hasTrash: true),
    StorageKind(changes: .listing, conditionalWrites: .honoured, hasTrash: false),
    StorageKind(changes: .listing, conditionalWrites: .ignored, hasTrash: false),
  ]

  /// The kind named on the command line: `feed`, `feed-notrash`, `feed-ignored`, `listing`,
  /// `listing-ignored`.
  public init?(name: String) {
    guard let kind = Self.all.first(where: { $0.name == name }) else { return nil }
    self = kind
  }

  public var name: String {
    var n = changes.rawValue
    if changes == .feed && !hasTrash { n += "-notrash" }
    if conditionalWrites == .ignored { n += "-ignored" }
    return n
  }

  public var description: String {
    let feed = changes == .feed ? "change feed, stable identifiers" : "no feed, path-keyed identifiers"
    return "\(name) (\(feed), conditional writes \(conditionalWrites.rawValue), \(hasTrash ? "trash" : "no trash"))"
  }
}
