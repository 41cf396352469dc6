import Foundation
import ProviderAPI

/// How much a listing of a folder can be trusted to say about what is *not* there.
public enum ListingCompleteness: String, Sendable, Equatable {
  /// Every page arrived and the provider said it was the last (SFTP's EOF, S3's
  /// `IsTruncated=false`, a WebDAV 207 with the collection itself): absence means something.
  case complete
  /// Some pages arrived, then an error, a timeout or a cancellation: what arrived is true, what
  /// did not proves nothing.
  case cutShort
  /// Nothing usable arrived.
  case failed
}

/// What identifies a file's content well enough to say that a file that appeared is one that
/// vanished under another name (a rename done elsewhere on path-keyed storage).
public struct ContentFingerprint: Sendable, Hashable {
  public var size: Int64
  /// A hash the storage states (SHA-256, or an opaque entity tag), tagged with its kind so a
  /// SHA-256 never equals an ETag that happens to look alike.
  public var hash: String?
  public var modified: Date?

  public init(size: Int64, hash: String?, modified: Date?) {
    self.size = size
    self.hash = hash
    self.modified = modified
  }

  /// The same content: equal sizes and, where both sides state a hash, equal hashes; otherwise
  /// equal modification dates. Nothing known beyond the size is never a match.
  public func matches(_ other: ContentFingerprint) -> Bool {
    guard size == other.size else { return false }
    if let a = hash, let b = other.hash { return a == b }
    guard let a = modified, let b = other.modified else { return false }
    return a == b
  }

  /// The fingerprint of a file as its provider describes it, by the hash its traits say it
  /// states; nil for a folder, a symlink or a file of unknown size.
  public static func of(_ item: Item, hash kind: ProviderTraits.ContentHash) -> ContentFingerprint? {
    guard !item.isFolder, !item.isSymlink, let size = item.documentSize, size >= 0 else { return nil }
    let hash: String?
    switch kind {
    case .sha256: hash = ContentHash.expected(in: item).map { "sha256:" + $0 }
    case .opaqueTag: hash = item.version.content.isEmpty ? nil : "tag:" + item.version.content.base64EncodedString()
    case .none: hash = nil
    }
    return ContentFingerprint(size: size, hash: hash, modified: item.contentModificationDate)
  }
}

/// What the index knows of one child of a folder: enough to tell whether a listing changed it
/// and whether a new entry is the same file under another name.
public struct KnownChild: Sendable, Equatable {
  public var identifier: ItemIdentifier
  public var name: ItemName
  public var path: ItemPath
  public var version: ItemVersion
  public var size: Int64?
  public var modified: Date?
  public var isFolder: Bool
  public var fingerprint: ContentFingerprint?
  /// Whether the index has it as a favorite, where listings say it (storage that keeps favorites);
  /// nil: not compared.
  public var isFavorite: Bool?
  /// The index's tags of it, where listings state them (storage that keeps tags); nil: not compared.
  public var tags: [String]?

  public init(
    identifier: ItemIdentifier, name: ItemName, path: ItemPath, version: ItemVersion, size: Int64?, modified: Date?,
    isFolder: Bool, fingerprint: ContentFingerprint?
  ) {
    self.identifier = identifier
    self.name = name
    self.path = path
    self.version = version
    self.size = size
    self.modified = modified
    self.isFolder = isFolder
    self.fingerprint = fingerprint
  }

  /// - Parameter favorite: Listings state favorites (``ProviderTraits/storesFavorites``): the
  ///   child's favorite state is compared too.
  ///   - tags: Listings state tags (``ProviderTraits/storesTags``): the child's tags are compared
  ///     too, whatever their case (`TagName`).
  public init(_ item: Item, hash kind: ProviderTraits.ContentHash, favorite: Bool = false, tags: Bool = false) {
    self.init(
      identifier: item.identifier, name: item.filename, path: item.path, version: item.version, size: item.documentSize,
      modified: item.contentModificationDate, isFolder: item.isFolder, fingerprint: .of(item, hash: kind))
    if favorite { isFavorite = item.isFavorite }
    if tags { self.tags = item.tags }
  }

  /// Whether two sets of tags are the same whatever their case and order.
  static func sameTags(_ a: [String], _ b: [String]) -> Bool {
    a.allSatisfy { t in b.contains { TagName.same($0, t) } } && b.allSatisfy { t in a.contains { TagName.same($0, t) } }
  }

  /// True when a listed item says nothing new about this child.
  func isUnchanged(by item: Item) -> Bool {
    version == item.version && name == item.filename && path == item.path && size == item.documentSize
      && modified == item.contentModificationDate && isFolder == item.isFolder
      && (isFavorite.map { $0 == item.isFavorite } ?? true) && (tags.map { Self.sameTags($0, item.tags) } ?? true)
  }
}

/// A file that vanished and a file that appeared in the same folder with the same content: a
/// rename done elsewhere, on storage whose identifiers are paths. The index re-keys the old
/// item's rows (tags, favorite, last use, cached content, queued transfers) to the new one.
public struct ListingMove: Sendable, Equatable {
  public var old: KnownChild
  public var new: Item
  public init(old: KnownChild, new: Item) {
    self.old = old
    self.new = new
  }
}

/// What the poller keeps per folder between listings: the items a complete listing lacked once
/// (a second complete listing without them deletes them).
public struct FolderListingState: Sendable, Equatable {
  /// The items the last complete listing lacked for the first time. The ``ListingPoller`` reads
  /// them from the index before each diff and saves what the diff leaves (`listingAbsence`), so
  /// the count survives the process: two `folio sync` runs confirm a deletion, one never does.
  public var missingOnce: Set<ItemIdentifier> = []
  /// What the last complete listing held (identifiers and versions, hashed): a listing that
  /// differs means the folder changed for whoever shows it, working set or not.
  public var lastListing: Int?
  /// The entries of the last complete listing.
  public var previousEntries: Set<ItemIdentifier>?
  /// For each item missing once, the entries of the listing before it went missing: only an
  /// entry not among them can be where it went (a file that was there all along is no rename's
  /// target, however alike).
  public var entriesBeforeMissing: [ItemIdentifier: Set<ItemIdentifier>] = [:]
  public init() {}

  /// A complete listing is needed to confirm or clear an absence seen once.
  public var awaitsConfirmation: Bool { !missingOnce.isEmpty }
}

/// The outcome of comparing one listing of a folder with the index: the change batch the rest of
/// Folio consumes (`WorkingSetSync.applyListing`), plus what was held back and why.
public struct ListingChanges: Sendable, Equatable {
  public enum Verdict: String, Sendable, Equatable {
    /// A complete listing, compared in full.
    case complete
    /// Updates only: the listing was cut short (or malformed), so absence proves nothing.
    case cutShort
    /// Nothing: the listing failed.
    case failed
    /// Nothing: an empty listing of a folder the index knows children of (a maintenance page, a
    /// server that lost its disk). It is never believed; the poller asks for each known child
    /// by its identifier instead, as a reconciliation does.
    case suspectEmpty
  }

  /// The folder's entries differ from its previous complete listing (a file added, changed or
  /// gone, in the working set or not): a browser showing it lists it again.
  public var folderChanged = false
  /// False when the poller only checked the folder's hint and found it unchanged: nothing was
  /// listed (and nothing is in here).
  public var listed = true
  public var folder: ItemIdentifier
  public var verdict: Verdict
  /// New and changed items, in listing order (unchanged known items are left out).
  public var updatedItems: [Item]
  /// Items two consecutive complete listings lacked, and not re-found as a move.
  public var deletedIdentifiers: [ItemIdentifier]
  public var moves: [ListingMove]
  /// Deletions the mass-deletion guard held back (still marked: a confirmation applies them).
  public var heldDeletions: [ItemIdentifier]
  /// Of `heldDeletions`, the items that look renamed but cannot be told apart from files alike
  /// (same size and time, no hash): a confirmation would forget them with their tags, so what
  /// is said about them differs.
  public var ambiguousMoves: [ItemIdentifier] = []
  /// Items this listing lacked for the first time: deleted only if the next complete one lacks
  /// them too.
  public var missingOnce: [ItemIdentifier]

  public init(
    folder: ItemIdentifier, verdict: Verdict, updatedItems: [Item] = [], deletedIdentifiers: [ItemIdentifier] = [],
    moves: [ListingMove] = [], heldDeletions: [ItemIdentifier] = [], missingOnce: [ItemIdentifier] = [],
    ambiguousMoves: [ItemIdentifier] = []
  ) {
    self.ambiguousMoves = ambiguousMoves
    self.folder = folder
    self.verdict = verdict
    self.updatedItems = updatedItems
    self.deletedIdentifiers = deletedIdentifiers
    self.moves = moves
    self.heldDeletions = heldDeletions
    self.missingOnce = missingOnce
  }

  /// Nothing to apply.
  public var isEmpty: Bool { updatedItems.isEmpty && deletedIdentifiers.isEmpty && moves.isEmpty }
}

/// Compares a listing of a folder with what the index knows of its children (remote-providers.md
/// §1.3). Pure: no I/O, no clock, the same inputs give the same output — so the rules that keep
/// data (below) are tested exhaustively and by property tests without a server.
///
/// - Only a *complete* listing may delete; a cut-short, failed or malformed one only updates.
/// - A deletion needs two consecutive complete listings without the item; a listing that is not
///   complete in between starts the count again.
/// - An empty listing of a folder the index knows children of deletes nothing, however often
///   it comes (D1: maintenance mode, F09; D2: a server that lost its data).
/// - More than the guard's share of the known children at once is held back (I9).
/// - With `detectMoves` (path-keyed storage), a confirmed-missing file whose content matches
///   exactly one new file (and that new file no other missing file) is a move, never a delete +
///   create; files whose content differs are never paired.
public enum ListingDiff {
  public static func diff(
    folder: ItemIdentifier, known: [KnownChild], listed: [Item], completeness: ListingCompleteness,
    state: inout FolderListingState, guard massGuard: MassDeletionGuard = .standard, allowMassDeletion: Bool = false,
    detectMoves: Bool, hash: ProviderTraits.ContentHash
  ) -> ListingChanges {
    guard completeness != .failed else {
      state.missingOnce = []
      return ListingChanges(folder: folder, verdict: .failed)
    }
    // Entries that do not belong in this folder, or that are listed twice (a page boundary moved
    // under a concurrent change), make the listing untrustworthy about absence (rclone fs/list).
    var trusted = completeness == .complete
    var seen = Set<ItemIdentifier>()
    var entries: [Item] = []
    for item in listed {
      guard item.parentIdentifier == folder, !item.identifier.isReserved, item.identifier != folder else {
        trusted = false
        continue
      }
      guard seen.insert(item.identifier).inserted else {
        trusted = false
        continue
      }
      entries.append(item)
    }
    let knownByID = Dictionary(known.map { ($0.identifier, $0) }, uniquingKeysWith: { a, _ in a })
    // An entry whose metadata could not be read is there, but says nothing reliable about it.
    var updated = entries.filter { item in
      item.metadataError == nil && (knownByID[item.identifier].map { !$0.isUnchanged(by: item) } ?? true)
    }

    guard trusted else {
      state.missingOnce = []
      return ListingChanges(folder: folder, verdict: .cutShort, updatedItems: updated)
    }
    if entries.isEmpty && !known.isEmpty {
      state.missingOnce = []
      return ListingChanges(folder: folder, verdict: .suspectEmpty)
    }

    let missing = known.map(\.identifier).filter { !seen.contains($0) && !$0.isReserved }
    let confirmed = missing.filter { state.missingOnce.contains($0) }
    let firstTime = missing.filter { !state.missingOnce.contains($0) }
    state.missingOnce = Set(missing)

    var moves: [ListingMove] = []
    var gone = confirmed
    var ambiguous: [ItemIdentifier] = []
    if let previous = state.previousEntries {
      for id in firstTime { state.entriesBeforeMissing[id] = previous }
    }
    state.previousEntries = seen
    let before = state.entriesBeforeMissing
    state.entriesBeforeMissing = state.entriesBeforeMissing.filter { state.missingOnce.contains($0.key) }
    if detectMoves {
      let unknown = entries.filter { knownByID[$0.identifier] == nil && $0.metadataError == nil }
        .compactMap { item in ContentFingerprint.of(item, hash: hash).map { (item, $0) } }
      // Every missing file competes for a new one (one missing only once too): an ambiguous
      // pairing is no move.
      let missingFiles = missing.compactMap { id -> KnownChild? in
        guard let k = knownByID[id], !k.isFolder, k.fingerprint != nil else { return nil }
        return k
      }
      let confirmedSet = Set(confirmed)
      for old in missingFiles where confirmedSet.contains(old.identifier) {
        // What appeared since it was last seen.
        let created = unknown.filter { before[old.identifier]?.contains($0.0.identifier) != true }
        let matches = created.filter { old.fingerprint!.matches($0.1) }
        guard matches.count == 1, let new = matches.first else {
          // Several new files are alike: one of them may be this one renamed. Deleting would lose
          // its tags and favorite for good, so it is held (and said) rather than guessed.
          if matches.count > 1 { ambiguous.append(old.identifier) }
          continue
        }
        let rivals = missingFiles.filter { $0.fingerprint!.matches(new.1) }
        guard rivals.count == 1 else {
          ambiguous.append(old.identifier)
          continue
        }
        moves.append(ListingMove(old: old, new: new.0))
      }
      let movedOld = Set(moves.map(\.old.identifier))
      gone.removeAll { movedOld.contains($0) }
      if !allowMassDeletion { gone.removeAll { ambiguous.contains($0) } } else { ambiguous = [] }
      state.missingOnce.subtract(movedOld)
      // The new item is in the batch (moved rows are refreshed by it), even if unchanged.
      for m in moves where !updated.contains(where: { $0.identifier == m.new.identifier }) { updated.append(m.new) }
    }

    if !allowMassDeletion && massGuard.holds(deletions: gone.count, of: known.count) {
      return ListingChanges(
        folder: folder, verdict: .complete, updatedItems: updated, moves: moves,
        heldDeletions: (gone + ambiguous).sorted(), missingOnce: firstTime.sorted(), ambiguousMoves: ambiguous.sorted())
    }
    state.missingOnce.subtract(gone)
    return ListingChanges(
      folder: folder, verdict: .complete, updatedItems: updated, deletedIdentifiers: gone.sorted(), moves: moves,
      heldDeletions: ambiguous.sorted(), missingOnce: firstTime.sorted(), ambiguousMoves: ambiguous.sorted())
  }
}
