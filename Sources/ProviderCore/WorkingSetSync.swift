import Foundation
import ProviderAPI
import WorkingSetIndex

/// Keeps one remote domain's part of the index current: one anchor per domain (the working set's
/// place in the server's change log), changes asked for on push (`changeSignals(for: .workingSet)`),
/// on a poll timer as fallback, and on demand.
///
/// Only the working set is indexed: items recently used, tagged, favorite, shared or trashed,
/// conflict copies — and updates of items the index already knows (materialized ones included).
/// The rules that protect data (test plan §3, F09, D1, D9):
/// - an expired anchor means a full reconciliation, in which a failing, empty or partial listing is
///   never read as deletions: an item is deleted only on an explicit answer for it (`noSuchItem`
///   for its identifier), and more than half of the known items at once is held back (I9);
/// - a remote change of a materialized file makes the copy here stale (downloaded again when
///   opened, or at once when pinned) — unless it has edits here, whose upload then ends in a
///   conflict that keeps both versions;
/// - a remote delete of an item with edits here is not applied to them: the pending upload
///   recreates the edits as a new item (a conflict, not a loss).
public actor WorkingSetSync {
  public struct Summary: Sendable, Equatable {
    public var updated = 0
    public var deleted = 0
    /// The anchor was unknown or expired and the index was reconciled with the provider.
    public var reconciled = false
    /// Deletions a reconciliation found but did not apply (the mass-delete guard).
    public var heldDeletions: [ItemIdentifier] = []
    /// Of `heldDeletions`, renames that could not be told apart (``ListingChanges/ambiguousMoves``).
    public var ambiguousMoves: [ItemIdentifier] = []
    /// Materialized files whose server version moved on.
    public var staleContent = 0
    public var conflicts = 0
    public init() {}
  }

  public nonisolated let domain: DomainIdentifier
  nonisolated let provider: any Provider
  nonisolated let index: WorkingSetIndex
  nonisolated let store: ContentStore
  nonisolated let queue: TransferQueue
  nonisolated let events: SyncEventHub
  nonisolated let pollInterval: TimeInterval
  /// A reconciliation may delete at most this share of the known items at once…
  nonisolated let massDeleteShare: Double
  /// …once it would delete at least this many.
  nonisolated let massDeleteMinimum: Int

  private var inflight: Task<Result<Summary, ProviderError>, Never>?
  /// The last sync failed: the next that succeeds says the domain answers again.
  private var failing = false
  private var again = false
  private var watchers: [Task<Void, Never>] = []
  /// Folders `keepFolders` could not look up (gone, or refused): not asked again by this process.
  var foldersNotFound: Set<ItemIdentifier> = []

  public init(
    domain: DomainIdentifier, provider: any Provider, index: WorkingSetIndex, store: ContentStore,
    queue: TransferQueue, events: SyncEventHub, pollInterval: TimeInterval = 60, massDeleteShare: Double = 0.5,
    massDeleteMinimum: Int = 10
  ) {
    self.domain = domain
    self.provider = provider
    self.index = index
    self.store = store
    self.queue = queue
    self.events = events
    self.pollInterval = pollInterval
    self.massDeleteShare = massDeleteShare
    self.massDeleteMinimum = massDeleteMinimum
  }

  // MARK: - Running

  /// Syncs at once (what changed while Folio was not running: Recents must not wait for the
  /// first push or poll), then on every push signal and every `pollInterval`, until ``stop()``.
  public func start() {
    guard watchers.isEmpty else { return }
    let signals = provider.changeSignals(for: .workingSet)
    watchers.append(
      Task { [weak self] in
        _ = try? await self?.syncNow()
        for await _ in signals {
          guard let self else { return }
          _ = try? await self.syncNow()
        }
      })
    let interval = pollInterval
    watchers.append(
      Task { [weak self] in
        while !Task.isCancelled {
          try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
          guard let self, !Task.isCancelled else { return }
          _ = try? await self.syncNow()
        }
      })
  }

  public func stop() {
    for w in watchers { w.cancel() }
    watchers = []
  }

  /// Reads the changes since the domain's anchor and applies them. Calls while one runs join it,
  /// and it runs once more afterwards, so a push during a sync is never lost.
  ///
  /// - Parameters:
  ///   - allowMassDeletion: Apply a reconciliation's deletions even past the mass-delete guard (a
  ///     person confirmed that the server really lost those items).
  @discardableResult
  public func syncNow(allowMassDeletion: Bool = false) async throws(ProviderError) -> Summary {
    if let running = inflight {
      again = true
      return try await running.value.get()
    }
    let task = Task { () -> Result<Summary, ProviderError> in
      var total = Summary()
      repeat {
        self.again = false
        do throws(ProviderError) {
          let s = try await self.runOnce(allowMassDeletion: allowMassDeletion)
          total.merge(s)
        } catch {
          self.failing = true
          self.events.send(.syncFailed(self.domain, error: error))
          return .failure(error)
        }
      } while self.again
      // The server answered: uploads held because it could not be reached go now (not at the
      // queue's next probe), and listeners learn that the domain is back.
      await self.queue.serverAnswered(self.domain)
      if self.failing {
        self.failing = false
        self.events.send(.syncResumed(self.domain))
      }
      return .success(total)
    }
    inflight = task
    let result = await task.value
    inflight = nil
    return try result.get()
  }

  private func runOnce(allowMassDeletion: Bool) async throws(ProviderError) -> Summary {
    let summary = try await readChanges(allowMassDeletion: allowMassDeletion)
    await keepFolders()
    return summary
  }

  private func readChanges(allowMassDeletion: Bool) async throws(ProviderError) -> Summary {
    guard var anchor = try index.anchor(domain: domain) else {
      return try await reconcile(allowMassDeletion: allowMassDeletion)
    }
    var summary = Summary()
    while true {
      let batch: ChangeBatch
      do {
        batch = try await provider.changes(in: .workingSet, since: anchor)
      } catch where error.code == .syncAnchorExpired {
        try index.setAnchor(nil, domain: domain)
        var s = try await reconcile(allowMassDeletion: allowMassDeletion)
        s.merge(summary)
        return s
      }
      try await apply(updated: batch.updatedItems, deleted: batch.deletedIdentifiers, into: &summary)
      try index.setAnchor(batch.anchor, domain: domain)
      anchor = batch.anchor
      if !batch.moreComing { break }
    }
    return summary
  }

  // MARK: - Applying changes

  /// True for an item that belongs in the working set by its own fields.
  nonisolated static func qualifies(_ item: Item) -> Bool {
    item.lastUsedDate != nil || !item.tags.isEmpty || item.favoriteRank != nil || item.isShared || item.isTrashed
      || conflictOriginal(of: item) != nil
  }

  /// The original a conflict copy names (`userInfo.conflictOf`), if the item is one.
  nonisolated static func conflictOriginal(of item: Item) -> ItemIdentifier? {
    guard case .string(let s)? = item.userInfo[conflictOfKey], !s.isEmpty else { return nil }
    return ItemIdentifier(s)
  }

  /// The `userInfo` key a provider puts on a conflict copy, naming its original.
  public static let conflictOfKey = "conflictOf"

  /// - Parameter favoritesListed: The items come from a listing of storage that keeps favorites
  ///   itself (Nextcloud's `oc:favorite`): an item without a rank is not a favorite there, so a
  ///   favorite the index holds for it was removed elsewhere and goes. (A change batch's item
  ///   without a rank says nothing of it: `applyProviderFields` keeps the index's.)
  /// - Parameter tagsListed: Likewise for tags (Nextcloud's system tags): an item listed with
  ///   other tags than the index holds has those tags, none included.
  func apply(
    updated: [Item], deleted: [ItemIdentifier], into summary: inout Summary, favoritesListed: Bool = false,
    tagsListed: Bool = false
  ) async throws(ProviderError) {
    var changed: [Item] = []
    // What a person could see change: new to the index, another version, another place. A
    // reconciliation re-reads every known item; those it finds as they were are refreshed in
    // the index without an event (each event reloads the visible folder).
    var visible: [ItemIdentifier] = []
    // Which entries the index has a row for, asked in one query: a listing of a big folder on
    // screen brings every entry, and one lookup each (a prepared statement per entry) cost a
    // third of a core for a 20,000-entry folder listed every 20 s. Entries the index neither
    // knows nor would take are passed over without a read.
    let candidates = updated.filter { !$0.identifier.isReserved }
    let indexed = try index.knownIdentifiers(among: candidates.map(\.identifier), domain: domain)
    var unfavorited: [Item] = []
    var retagged: [Item] = []
    for item in candidates where indexed.contains(item.identifier) || Self.qualifies(item) {
      let known = indexed.contains(item.identifier) ? try index.item(domain: domain, identifier: item.identifier) : nil
      changed.append(item)
      let favoriteMoved = favoritesListed && known.map { $0.isFavorite != item.isFavorite } == true
      if favoriteMoved && !item.isFavorite { unfavorited.append(item) }
      let tagsMoved = tagsListed && known.map { !KnownChild.sameTags($0.tags, item.tags) } == true
      if tagsMoved { retagged.append(item) }
      if let known, known.version == item.version, known.path == item.path, known.isTrashed == item.isTrashed,
        !favoriteMoved, !tagsMoved
      {
        continue
      }
      visible.append(item.identifier)
    }
    if !changed.isEmpty { try index.upsert(changed, domain: domain, insertNew: true) }
    // A folder the index does not keep whose children it does: its move or trashing moves them.
    // Passed over, they kept the old path and read as live when the folder had gone into a
    // folder trashed here (folio-sim, seed 161827).
    let unindexedFolders = candidates.filter { $0.isFolder && !indexed.contains($0.identifier) && !Self.qualifies($0) }
    let parents = try index.unindexedFoldersWithChildren(among: unindexedFolders.map(\.identifier), domain: domain)
    if !parents.isEmpty {
      try index.upsert(unindexedFolders.filter { parents.contains($0.identifier) }, domain: domain, insertNew: false)
    }
    for item in unfavorited { try index.setFavoriteRank(nil, item: item, domain: domain) }
    // The storage's tags, as its listing states them (upsert adds tags but never removes one).
    // Tags that only the index held (set before Folio put tags on this storage) are kept: they
    // were never on the server, so its silence about them says nothing.
    let indexOnly = try index.indexOnlyTags(of: retagged.map(\.identifier), domain: domain)
    for item in retagged where indexOnly[item.identifier] == nil {
      try index.setTags(try index.spellings(of: item.tags), of: item, domain: domain)
    }
    summary.updated += changed.count

    for item in changed {
      if let original = Self.conflictOriginal(of: item) {
        if try index.conflict(domain: domain, involving: item.identifier) == nil {
          let conflict = SyncConflict(
            domain: domain, original: original, copy: item.identifier, reason: .staleBase, detected: Date())
          try index.recordConflict(conflict)
          summary.conflicts += 1
          events.send(.conflict(conflict))
        }
      } else if let c = try index.conflict(domain: domain, involving: item.identifier), c.copy == item.identifier,
        c.reason == .staleBase
      {
        // The copy no longer names an original: resolved elsewhere (another client, the server).
        try index.removeConflict(domain: domain, copy: item.identifier)
      }
      guard !item.isFolder else { continue }
      if try index.markContentStale(domain: domain, identifier: item.identifier, remoteVersion: item.version) {
        summary.staleContent += 1
        events.send(.contentStale(domain, item.identifier))
        if try index.isPinned(domain: domain, identifier: item.identifier) {
          _ = try await queue.enqueueDownload(item.identifier, domain: domain, size: item.documentSize)
        }
      } else if let local = try store.localFile(domain: domain, identifier: item.identifier),
        local.content.version.content != item.version.content, store.hasUnnoticedChanges(local.content)
      {
        // Edited here without anyone noticing yet, and changed there: upload the edits now, from
        // the version they started from, so the server keeps both.
        try await noticeUnnoticedEdits(local.url, local.content)
      }
    }

    var removed: [ItemIdentifier] = []
    for identifier in deleted where !identifier.isReserved {
      let uploads = try index.pendingUploads(domain: domain, identifier: identifier)
      let local = try store.localFile(domain: domain, identifier: identifier)
      if !uploads.isEmpty || local.map({ $0.content.state == .dirty || store.hasUnnoticedChanges($0.content) }) == true {
        // Edits here beat the delete there: the item's row stays (its name and folder tell the
        // upload where to recreate it) and the pending upload becomes a new item.
        if uploads.isEmpty, let local { try await noticeUnnoticedEdits(local.url, local.content) }
        continue
      }
      if let local {
        try index.removeContent(domain: domain, identifier: identifier)
        DurableFile.remove(local.url)
      }
      for t in try index.pendingTransfers(domain: domain)
      where t.identifier == identifier && t.direction == .download {
        try index.removeTransfer(t.id)
      }
      if let c = try index.conflict(domain: domain, involving: identifier), c.copy == identifier {
        try index.removeConflict(domain: domain, copy: identifier)
      }
      removed.append(identifier)
    }
    if !removed.isEmpty { summary.deleted += try index.recordDeleted(identifiers: removed, domain: domain) }
    if !visible.isEmpty || !removed.isEmpty {
      events.send(.itemsChanged(domain, updated: visible, deleted: removed))
    }
  }

  /// Stages and queues edits found in a materialized file (based on the version it was).
  func noticeUnnoticedEdits(_ url: URL, _ content: MaterializedContent) async throws(ProviderError) {
    _ = try await EditNotice.notice(url, content, store: store, queue: queue)
  }
}

extension WorkingSetSync.Summary {
  mutating func merge(_ o: Self) {
    updated += o.updated
    deleted += o.deleted
    reconciled = reconciled || o.reconciled
    heldDeletions += o.heldDeletions
    staleContent += o.staleContent
    conflicts += o.conflicts
  }
}
