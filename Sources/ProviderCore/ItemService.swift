import Foundation
import ProviderAPI
import WorkingSetIndex

/// What a person does to items, with the working-set bookkeeping each action implies.
///
/// The provider is asked first (it owns the storage); the index is told afterwards (it owns
/// Recents, tags where the filesystem has no xattrs, favorites and Recently Deleted). Nothing is
/// recorded when the provider refuses, so the index never claims what did not happen.
public struct ItemService: Sendable {
  public let registry: DomainRegistry
  public let index: WorkingSetIndex
  /// The sync engine's content cache (`$XDG_CACHE_HOME/folio/content`), whose files follow a
  /// rename on path-keyed storage; nil where nothing is cached (tests of local items).
  public let contentStore: ContentStore?

  public init(registry: DomainRegistry, index: WorkingSetIndex, contentRoot: URL? = nil) {
    self.registry = registry
    self.index = index
    self.contentStore = contentRoot.map { ContentStore(root: $0, index: index) }
  }

  // MARK: - Reading

  /// The item at a path in a domain, with the per-user fields the index keeps merged in.
  public func item(at path: ItemPath, in domain: Domain) async throws(ProviderError) -> Item {
    let item = try await domain.provider.item(at: path)
    return annotate([item], domain: domain.identifier).first ?? item
  }

  /// The item at a path, or — when the provider cannot be reached — the item as this computer
  /// last saw it: the index's row (the root folder needs none). For work that is journaled and
  /// sent later: a put into a folder, opening the downloaded copy of a file and editing it. An
  /// item the index does not know (or knows as deleted) is the provider's error.
  public func itemAllowingOffline(at path: ItemPath, in domain: Domain) async throws(ProviderError) -> Item {
    do throws(ProviderError) {
      return try await item(at: path, in: domain)
    } catch where error.code == .serverUnreachable && domain.isSynced {
      if path == .root {
        return Item(
          identifier: .root, parentIdentifier: .root, filename: ItemName(domain.displayName), path: .root,
          contentType: .folder)
      }
      guard let known = try? index.item(domain: domain.identifier, path: path), !known.isTrashed, !known.isInsideTrash
      else { throw error }
      return known.item()
    }
  }

  /// What this computer knows of a folder whose server cannot be reached, as the Files app shows
  /// it offline: the index's live children of the folder (the working set and the downloaded
  /// files), sorted as asked. The folder is named by identifier, else found in the index by path
  /// (the root needs no row). Empty when the index knows nothing of it.
  public func knownChildren(
    of folder: ItemIdentifier?, at path: ItemPath, in domain: Domain, sort: ItemSort = .default,
    includeHidden: Bool = false
  ) throws(ProviderError) -> [Item] {
    let id: ItemIdentifier
    if let folder {
      id = folder
    } else if path == .root {
      id = .root
    } else if let known = try index.item(domain: domain.identifier, path: path) {
      id = known.identifier
    } else {
      return []
    }
    var items = try index.children(domain: domain.identifier, of: id).map { $0.item() }
    if !includeHidden { items.removeAll { $0.filename.bytes.first == 0x2E } }
    items.sort { a, b in
      if sort.foldersFirst && a.isFolder != b.isFolder { return a.isFolder }
      let less: Bool
      switch sort.key {
      case .name: less = a.filename.lossyString.localizedStandardCompare(b.filename.lossyString) == .orderedAscending
      case .date: less = (a.contentModificationDate ?? .distantPast) < (b.contentModificationDate ?? .distantPast)
      case .size: less = (a.documentSize ?? 0) < (b.documentSize ?? 0)
      case .kind: less = a.contentType.identifier < b.contentType.identifier
      }
      return sort.ascending ? less : !less
    }
    return annotate(items, domain: domain.identifier)
  }

  /// Remembers the folders of a remote listing in the index, so that offline the folder still
  /// shows its subfolders and the way down to what was downloaded below them (the index keeps
  /// only the working set otherwise, and folders went missing offline). Folders only: their rows
  /// are few, and being in no working set (`inWorkingSet` is 0) they add nothing to poll.
  /// Best effort: a failure here costs only the offline view.
  public func rememberFolders(_ items: [Item], domain: DomainIdentifier) {
    let folders = items.filter { $0.isFolder && !$0.isTrashed && !$0.identifier.isReserved }
    guard !folders.isEmpty else { return }
    _ = try? index.upsert(folders, domain: domain, insertNew: true)
  }

  /// Merges what the index owns into items a provider returned: tags (when the provider has none,
  /// e.g. a filesystem without user xattrs), favorite rank and last-used date. One read of the
  /// index for the whole page (`WorkingSetIndex.annotations`), whatever its size.
  public func annotate(_ items: [Item], domain: DomainIdentifier) -> [Item] {
    guard !items.isEmpty else { return items }
    // Only tags the index alone holds: mirrored ones could be stale (another tool changed the xattr).
    let known = (try? index.annotations(of: items.map(\.identifier), domain: domain)) ?? [:]
    guard !known.isEmpty else { return items }
    return items.map { item in
      guard let a = known[item.identifier], !Self.isReused(item, seenCreated: a.created) else { return item }
      var it = item
      if it.tags.isEmpty, !a.indexOnlyTags.isEmpty { it.tags = a.indexOnlyTags }
      if it.favoriteRank == nil { it.favoriteRank = a.favoriteRank }
      if it.lastUsedDate == nil { it.lastUsedDate = a.lastUsed }
      return it
    }
  }

  /// Whether `item` is another item than the one the index saw under its identifier: both have
  /// creation dates, and they differ (a filesystem reuses a deleted file's inode, often at once).
  static func isReused(_ item: Item, seenCreated: Date?) -> Bool {
    guard let seen = seenCreated, let now = item.creationDate else { return false }
    return abs(seen.timeIntervalSince(now)) > 0.001
  }

  /// The item as the provider sees it now, found from where the caller last saw it. Gives
  /// providers whose identifiers need a path (inodes) the hint, and every mutation a current base
  /// version, with the fields the index owns merged in.
  ///
  /// Found the way an entry of the working set is (`resolve`): a file renamed elsewhere is
  /// followed, and a new file that was given a deleted one's identifier (a reused inode) is never
  /// taken for it — a delete or rename asked on a stale Recents row must not reach another file.
  func current(_ item: Item, in domain: Domain) async throws(ProviderError) -> Item {
    switch try await resolve(item, in: domain, offlineAnswersFromIndex: false) {
    case .current(let fresh), .moved(let fresh, _): return fresh
    case .gone(let error): throw error
    }
  }

  // MARK: - Working set

  /// Opening an item is clear intent to use it: it goes to the top of Recents.
  public func recordOpen(_ item: Item, in domain: Domain, at date: Date = Date()) throws(ProviderError) {
    try index.recordUse(of: item, domain: domain.identifier, at: date)
  }

  /// Replaces the item's tags. Stored by the provider where it can (the `user.xdg.tags` xattr),
  /// otherwise only in the index; the index always mirrors them for the Tags sidebar and search.
  public func setTags(_ tags: [String], of item: Item, in domain: Domain) async throws(ProviderError) -> Item {
    let item = try await current(item, in: domain)
    var cleaned: [String] = []
    for t in tags {
      let s = Self.trimmed(t)
      guard !s.isEmpty else { throw ProviderError(.invalidArgument, "a tag cannot be empty") }
      guard !s.contains(",") else { throw ProviderError(.invalidArgument, "a tag cannot contain a comma: \(TerminalText.escape(s))") }
      if !cleaned.contains(where: { TagName.same($0, s) }) { cleaned.append(s) }
    }
    // A tag already in use keeps the case it was first written in ("green" joins "Green").
    cleaned = try index.spellings(of: cleaned)
    var updated = item
    var template = ItemTemplate(item)
    template.tags = cleaned
    var indexOnly = false
    do {
      updated = try await domain.provider.modifyItem(
        template, baseVersion: item.version, changedFields: .tagData, contents: nil)
    } catch where error.code == .featureUnsupported {
      // No user xattrs here (tmpfs, vfat, some NFS): the index keeps the tags.
      indexOnly = true
    }
    updated.tags = cleaned
    updated.favoriteRank = item.favoriteRank
    updated.lastUsedDate = item.lastUsedDate
    try index.setTags(cleaned, of: updated, domain: domain.identifier, indexOnly: indexOnly)
    return updated
  }

  /// Makes the item a favorite (keeping its rank if it is one) or removes it. A remote provider
  /// stores the rank too (it syncs), and is asked first: if it refuses, the index is not touched.
  public func setFavorite(_ on: Bool, item: Item, in domain: Domain) async throws(ProviderError) -> Item {
    var updated = item
    if !domain.traits.storesFavorites {
      updated.favoriteRank = try index.setFavorite(on, item: item, domain: domain.identifier)
      return updated
    }
    var rank: UInt64? = nil
    if on {
      // As the index ranks a new favorite: now in epoch ms, after every other favorite.
      let current = try index.favoriteRanks(of: [item.identifier], domain: domain.identifier)[item.identifier]
      let highest = try index.favorites().compactMap(\.favoriteRank).max()
      let now = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
      rank = current ?? max(now, highest.map { $0 + 1 } ?? 0)
    }
    var template = ItemTemplate(item)
    template.favoriteRank = rank
    _ = try await domain.provider.modifyItem(
      template, baseVersion: item.version, changedFields: .favoriteRank, contents: nil)
    try index.setFavoriteRank(rank, item: item, domain: domain.identifier)
    updated.favoriteRank = rank
    return updated
  }

  // MARK: - Organizing

  /// - Parameter progress: How far a rename of many requests has got (an S3 folder: a copy and a
  ///   delete per key); most providers rename at once and never call it.
  public func rename(
    _ item: Item, to name: ItemName, in domain: Domain, progress: @escaping @Sendable (TransferProgress) -> Void = { _ in }
  ) async throws(ProviderError) -> Item {
    let item = try await current(item, in: domain)
    let valid = try ItemName.validated(name.bytes)
    guard valid != item.filename else { return item }
    var template = ItemTemplate(item)
    template.filename = valid
    let renamed = try await domain.provider.modifyItem(
      template, baseVersion: item.version, changedFields: .filename, contents: nil, progress: progress)
    try recordMoved(item, to: renamed, in: domain)
    return annotate([renamed], domain: domain.identifier)[0]
  }

  public func move(
    _ item: Item, to folder: Item, in domain: Domain, progress: @escaping @Sendable (TransferProgress) -> Void = { _ in }
  ) async throws(ProviderError) -> Item {
    let item = try await current(item, in: domain)
    let folder = try await current(folder, in: domain)
    guard folder.isFolder else { throw ProviderError(.invalidArgument, "\(folder.path.displayString) is not a folder") }
    guard item.parentIdentifier != folder.identifier else { return item }
    var template = ItemTemplate(item)
    template.parentIdentifier = folder.identifier
    let moved = try await domain.provider.modifyItem(
      template, baseVersion: item.version, changedFields: .parentItemIdentifier, contents: nil, progress: progress)
    try recordMoved(item, to: moved, in: domain)
    return annotate([moved], domain: domain.identifier)[0]
  }

  public func copy(_ item: Item, to folder: Item, in domain: Domain) async throws(ProviderError) -> Item {
    let item = try await current(item, in: domain)
    let folder = try await current(folder, in: domain)
    guard folder.isFolder else { throw ProviderError(.invalidArgument, "\(folder.path.displayString) is not a folder") }
    return try await domain.provider.copyItem(item.identifier, to: folder.identifier, name: nil)
  }

  public func makeFolder(named name: ItemName, in folder: Item, in domain: Domain) async throws(ProviderError) -> Item {
    let folder = try await current(folder, in: domain)
    let valid = try ItemName.validated(name.bytes)
    return try await domain.provider.createItem(
      ItemTemplate(parentIdentifier: folder.identifier, filename: valid, contentType: .folder), fields: [],
      contents: nil, options: [])
  }

  /// Records a rename or move the provider did. On path-keyed storage the item and everything
  /// below it have new identifiers: what the index and the content cache keep under the old ones
  /// is re-keyed first (no tag, favorite, Recents entry, cached edit or queued upload is lost),
  /// then the provider's fields are applied.
  func recordMoved(_ item: Item, to moved: Item, in domain: Domain) throws(ProviderError) {
    if domain.traits.identity == .pathKeyed, moved.path != item.path,
      let provider = domain.provider as? any PathKeyedProvider
    {
      try rekey(domain.identifier, from: item.path, to: moved.path, provider)
      try index.recordMoved(identifier: moved.identifier, to: moved, domain: domain.identifier)
      return
    }
    try index.recordMoved(identifier: item.identifier, to: moved, domain: domain.identifier, from: item.path)
  }

  /// Finishes the renames and moves a provider journaled and an earlier process left unfinished
  /// (killed, or the server gone mid-way), and re-keys what this computer keeps about each (tags,
  /// favorites, Recents, cached content), as for a rename that finished at once. `folio sync`
  /// and the browser call it before they list the location. Returns how many were finished.
  @discardableResult
  public func resumeRelocations(
    in domain: Domain, progress: @escaping @Sendable (TransferProgress) -> Void = { _ in }
  ) async throws(ProviderError) -> Int {
    guard let provider = domain.provider as? any ResumableRelocations else { return 0 }
    let finished = try await provider.resumeUnfinishedRelocations(progress: progress)
    for moved in finished { try rekey(domain.identifier, from: moved.from, to: moved.to, provider) }
    return finished.count
  }

  /// What the index and the content cache keep under `from` and below, moved to `to`.
  private func rekey(
    _ domain: DomainIdentifier, from: ItemPath, to: ItemPath, _ provider: any PathKeyedProvider
  ) throws(ProviderError) {
    if let contentStore {
      try contentStore.rekey(domain: domain, from: from, to: to, provider: provider)
    } else {
      try index.rekey(
        domain: domain, from: from, to: to, identifier: { provider.identifier(for: $0) }, path: { provider.path(for: $0) })
    }
  }

  // MARK: - Recently Deleted

  /// Moves an item to Recently Deleted (the freedesktop Trash for local files).
  public func trash(_ item: Item, in domain: Domain) async throws(ProviderError) -> Item {
    let item = try await current(item, in: domain)
    guard !item.isTrashed else { return item }
    var template = ItemTemplate(item)
    template.parentIdentifier = .trash
    let trashed = try await domain.provider.modifyItem(
      template, baseVersion: item.version, changedFields: .parentItemIdentifier, contents: nil)
    try index.recordTrashed(trashed, originalPath: item.path, at: trashed.trashedDate ?? Date(), domain: domain.identifier)
    return trashed
  }

  /// What restoring does when the item's name is taken where it goes (Finder's and Files'
  /// question when putting back).
  public enum NameTaken: Sendable, Equatable {
    /// Nothing moves: `filenameCollision` (the browser then asks).
    case refuse
    /// The restored item gets the first free "name N" (N ≥ 2) there.
    case keepBoth
    /// The item that took the name goes to Recently Deleted, then this one comes back.
    case replace
  }

  /// How many numbered names Keep Both tries ("name 2" … "name 100") before giving up.
  static let keepBothAttempts = 99

  /// Puts a trashed item back where it was.
  ///
  /// - Parameter taken: what to do when its name is taken there (``NameTaken``).
  public func restore(_ item: Item, in domain: Domain, ifTaken taken: NameTaken = .refuse) async throws(ProviderError) -> Item {
    let restored: Item
    do throws(ProviderError) {
      restored = try await domain.provider.restoreItem(item.identifier, to: nil)
    } catch where error.code == .filenameCollision && taken != .refuse {
      restored = try await restoreWhereTaken(item, in: domain, taken)
    }
    try index.recordRestored(identifier: item.identifier, newItem: restored, domain: domain.identifier)
    return annotate([restored], domain: domain.identifier)[0]
  }

  /// The second try of a restore whose name was taken: under a numbered name, or after the item
  /// holding the name went to Recently Deleted.
  private func restoreWhereTaken(_ item: Item, in domain: Domain, _ taken: NameTaken) async throws(ProviderError) -> Item {
    let name = item.originalPath?.lastComponent ?? item.filename
    if taken == .replace {
      guard let original = item.originalPath, let occupant = try? await domain.provider.item(at: original) else {
        return try await domain.provider.restoreItem(item.identifier, to: nil)
      }
      _ = try await trash(occupant, in: domain)
      return try await domain.provider.restoreItem(item.identifier, to: nil)
    }
    for n in 2...(Self.keepBothAttempts + 1) {
      do throws(ProviderError) {
        return try await domain.provider.restoreItem(item.identifier, to: nil, as: ConflictNames.numbered(name, n))
      } catch where error.code == .filenameCollision {
        continue
      }
    }
    throw ProviderError(.filenameCollision, "cannot restore \(name.displayString): \(name.displayString) 2 to \(Self.keepBothAttempts + 1) are all taken")
  }

  /// Deletes an item forever (from the trash, or directly).
  public func deleteForever(_ item: Item, in domain: Domain) async throws(ProviderError) {
    let item = try await current(item, in: domain)
    try await domain.provider.deleteItem(item.identifier, baseVersion: item.version, options: .recursive)
    _ = try index.recordDeleted(identifiers: [item.identifier], domain: domain.identifier)
  }

  /// Everything in a domain's Recently Deleted, as the provider lists it now.
  public func trashedItems(in domain: Domain) async throws(ProviderError) -> [Item] {
    var out: [Item] = []
    var page: Page? = nil
    repeat {
      let r = try await domain.provider.enumerate(
        EnumerationRequest(container: .trash, sort: ItemSort(key: .date, ascending: false, foldersFirst: false),
          includeHidden: true, suggestedPageSize: 1000),
        page: page, progress: { _ in })
      out += r.items
      page = r.nextPage
    } while page != nil
    return annotate(out, domain: domain.identifier)
  }

  /// Deletes every item in a domain's Recently Deleted; returns how many.
  public func emptyTrash(in domain: Domain) async throws(ProviderError) -> Int {
    let items = try await trashedItems(in: domain)
    var deleted: [ItemIdentifier] = []
    var firstError: ProviderError? = nil
    for item in items {
      do {
        try await domain.provider.deleteItem(item.identifier, baseVersion: nil, options: .recursive)
        deleted.append(item.identifier)
      } catch {
        if firstError == nil { firstError = error }
      }
    }
    _ = try index.recordDeleted(identifiers: deleted, domain: domain.identifier)
    if let firstError { throw firstError }
    return deleted.count
  }

  /// Trims white space around a tag exactly as the `user.xdg.tags` format does (every Unicode
  /// White_Space character, newlines included), so the index mirrors what the attribute holds.
  static func trimmed(_ tag: String) -> String {
    var scalars = Substring(tag).unicodeScalars[...]
    while let first = scalars.first, first.properties.isWhitespace { scalars.removeFirst() }
    while let last = scalars.last, last.properties.isWhitespace { scalars.removeLast() }
    return String(Substring(scalars))
  }
}
