/// What a kind of storage can do, declared once by its provider, so that the core, the browser and
/// the command line ask the declaration instead of asking "is this the local disk?" or casting to
/// one provider's class.
///
/// The values mirror what the File Provider system lets an extension state (its domain's
/// capabilities, `NSFileProviderItemCapabilities`, the presence of a working-set enumerator) and
/// what the remote storages Folio reaches differ in (remote-providers.md §1): a change feed or
/// none, identifiers that survive a rename or are the path itself, a trash or none, conditional
/// writes that a server honours, ignores or has not been probed for, and the hash it states.
public struct ProviderTraits: Sendable, Equatable, CustomStringConvertible {
  /// Where an item's bytes live for a program that opens it.
  public enum Content: String, Sendable, Equatable {
    /// The item is a file on this computer: programs get its own path; nothing is cached.
    case direct
    /// The bytes are on the storage: the sync engine downloads them into its cache on demand and
    /// uploads edits (badges, Keep Downloaded, offline work).
    case synced
  }

  /// How Folio learns what changed on the storage.
  public enum ChangeFeed: String, Sendable, Equatable {
    /// A change log with anchors and a push signal (a long-poll, inotify).
    case push
    /// A change log with anchors, without a signal: the anchor is asked on a timer.
    case pull
    /// None: the core lists folders and compares them with the index.
    case none
  }

  /// What an item's identifier is tied to.
  public enum Identity: String, Sendable, Equatable {
    /// Given by the storage, independent of name and path (a server's id): found directly.
    case stable
    /// Independent of name and path, but found through a path (an inode): callers pass where
    /// they last saw the item as a hint.
    case stableWithPathHint
    /// The path itself (SFTP, S3, WebDAV without file ids): a rename is a new identifier, which
    /// the core re-keys.
    case pathKeyed
  }

  /// Whether a write conditioned on a version (If-Match, a base version) is refused when stale.
  public enum ConditionalWrites: String, Sendable, Equatable {
    case honoured
    /// Accepted whatever the version: a conflicting edit cannot be detected by the write itself.
    case ignored
    /// Not probed yet.
    case unknown
  }

  /// The hash the storage states for an item's content, if any.
  public enum ContentHash: String, Sendable, Equatable {
    case sha256
    /// An opaque entity tag: equal tags mean equal content, nothing more.
    case opaqueTag
    /// None: content is checked by size and version.
    case none
  }

  public var content: Content
  public var changeFeed: ChangeFeed
  public var identity: Identity
  /// Whether deleting can move to a trash the storage keeps (Recently Deleted, Put Back).
  public var hasTrash: Bool
  /// Whether part of the content can be read without the rest (previews, resumed downloads).
  public var rangedReads: Bool
  public var conditionalWrites: ConditionalWrites
  public var contentHash: ContentHash
  /// Whether the storage keeps favorites itself (they sync to other computers); otherwise the
  /// index keeps them for this computer. (Tags go to the storage wherever it takes them: a
  /// provider that cannot answers `featureUnsupported` and the index keeps them.)
  public var storesFavorites: Bool
  /// Whether a name may be any bytes (a POSIX filesystem, SFTP); false where the storage keeps
  /// names as text and refuses one that is not valid UTF-8 (Folio's server, S3, WebDAV).
  public var namesAreBytes: Bool
  /// Whether a folder's version moves whenever anything below it changes, at any depth
  /// (Nextcloud and ownCloud propagate a change's ETag to every ancestor; Apache's covers direct
  /// children only): the listing poller then walks from the top and descends only where a
  /// folder's version moved (``ListingPoller``'s sweep; docs/DECISIONS.md).
  public var folderVersionsCoverDescendants: Bool
  /// Whether the storage keeps tags its other clients see and states them in listings
  /// (Nextcloud's system tags): a listing is then the truth about an item's tags, as it is about
  /// favorites where ``storesFavorites``.
  public var storesTags: Bool

  public init(
    content: Content, changeFeed: ChangeFeed, identity: Identity, hasTrash: Bool, rangedReads: Bool,
    conditionalWrites: ConditionalWrites, contentHash: ContentHash, storesFavorites: Bool, namesAreBytes: Bool = true,
    folderVersionsCoverDescendants: Bool = false, storesTags: Bool = false
  ) {
    self.namesAreBytes = namesAreBytes
    self.folderVersionsCoverDescendants = folderVersionsCoverDescendants
    self.storesTags = storesTags
    self.content = content
    self.changeFeed = changeFeed
    self.identity = identity
    self.hasTrash = hasTrash
    self.rangedReads = rangedReads
    self.conditionalWrites = conditionalWrites
    self.contentHash = contentHash
    self.storesFavorites = storesFavorites
  }

  /// Files on this computer: direct content, inotify, inodes, the freedesktop Trash, xattr tags.
  public static let localFilesystem = ProviderTraits(
    content: .direct, changeFeed: .push, identity: .stableWithPathHint, hasTrash: true, rangedReads: true,
    conditionalWrites: .honoured, contentHash: .none, storesFavorites: false)

  /// Whether the sync engine caches and uploads this storage's content.
  public var isSynced: Bool { content == .synced }

  /// Whether an identifier is found through the path where the caller last saw it (an inode).
  public var needsPathHint: Bool { identity == .stableWithPathHint }

  public var description: String {
    [
      "content \(content.rawValue)", "changes \(changeFeed.rawValue)", "identity \(identity.rawValue)",
      hasTrash ? "trash" : "no trash", rangedReads ? "ranged reads" : "whole reads",
      "conditional writes \(conditionalWrites.rawValue)", "hash \(contentHash.rawValue)",
      storesFavorites ? "favorites on the storage" : "favorites in the index",
    ].joined(separator: ", ")
  }
}
