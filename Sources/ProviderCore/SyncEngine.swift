import Foundation
import ProviderAPI
import Synchronization
import WorkingSetIndex

/// The sync engine of the remote domains, in one place for the browser and the commands:
/// materializing a file to open it and noticing its edits afterwards, uploads of new files,
/// pinning, eviction, the transfer queue and the working-set sync of each remote domain.
///
/// Everything goes through the `Provider` protocol: the engine never knows which storage a
/// domain is. Local domains are not synced (their items are their own files); the methods that
/// take a domain say so clearly when given a local one.
public final class SyncEngine: Sendable {
  public let registry: DomainRegistry
  public let index: WorkingSetIndex
  public let store: ContentStore
  public let queue: TransferQueue
  public let events: SyncEventHub
  /// How many bytes of downloads the content store keeps before the LRU evicts.
  public let cacheBudget: Int64
  private let syncs: [DomainIdentifier: WorkingSetSync]
  /// Makes blocking file work (copies, hashes, fsyncs) run on the calling task instead of a
  /// dispatch queue, for the whole process: `folio-sim` runs every task on one thread in a seeded
  /// order, and work finishing on another thread would make that order depend on timing.
  public static func runFileWorkInline() { BlockingWork.runsInline.store(true, ordering: .relaxed) }

  /// The listing pollers of storages without a change feed (`ProviderTraits.changeFeed == .none`):
  /// their changes come from listing folders, not from an anchor.
  private let pollers: [DomainIdentifier: ListingPoller]

  /// - Parameters:
  ///   - contentRoot: `$XDG_CACHE_HOME/folio/content` (``FolioPaths/contentCache``).
  ///   - cacheBudget: ``FolioConfiguration/cacheBudgetBytes``.
  ///   - clock: The transfer queue's time (backoffs, journal dates): `folio-sim` passes its virtual
  ///     clock, so a five-minute backoff costs nothing and a seed replays the same.
  public init(
    registry: DomainRegistry, index: WorkingSetIndex, contentRoot: URL, cacheBudget: Int64,
    policy: RetryPolicy = .standard, limits: TransferQueue.Limits = TransferQueue.Limits(),
    pollInterval: TimeInterval = 60, pid: Int32 = ProcessLiveness.current,
    jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
    clock: @escaping @Sendable () -> Date = Date.init
  ) {
    self.registry = registry
    self.index = index
    self.cacheBudget = cacheBudget
    let events = SyncEventHub()
    self.events = events
    let store = ContentStore(root: contentRoot, index: index)
    self.store = store
    var providers: [DomainIdentifier: any Provider] = [:]
    for d in registry.domains where d.isSynced { providers[d.identifier] = d.provider }
    let queue = TransferQueue(
      providers: providers, index: index, store: store, events: events, policy: policy, limits: limits, pid: pid,
      jitter: jitter, clock: clock)
    self.queue = queue
    var syncs: [DomainIdentifier: WorkingSetSync] = [:]
    var pollers: [DomainIdentifier: ListingPoller] = [:]
    for (id, provider) in providers {
      let sync = WorkingSetSync(
        domain: id, provider: provider, index: index, store: store, queue: queue, events: events,
        pollInterval: pollInterval)
      syncs[id] = sync
      guard provider.traits.changeFeed == .none else { continue }
      pollers[id] = ListingPoller(
        domain: id, provider: provider, index: index,
        massGuard: MassDeletionGuard(share: sync.massDeleteShare, minimum: sync.massDeleteMinimum),
        apply: { changes throws(ProviderError) in
          try await sync.applyListing(changes)
          // A listing that answered is the storage answering: uploads held for it go again.
          await queue.serverAnswered(id)
        })
    }
    self.syncs = syncs
    self.pollers = pollers
  }

  /// The listing poller of a domain without a change feed (the browser tells it which folder is
  /// on screen and when Ctrl-R asks), or nil for a domain with a feed.
  public func listingPoller(for domain: DomainIdentifier) -> ListingPoller? { pollers[domain] }

  /// The remote domains, in registry order.
  public var remoteDomains: [Domain] { registry.domains.filter { $0.isSynced } }

  /// The working-set sync of a remote domain.
  public func workingSetSync(for domain: DomainIdentifier) -> WorkingSetSync? { syncs[domain] }

  /// Runs the queue and every domain's push/poll sync until ``stop()`` (the browser).
  public func start() async {
    await recover()
    await queue.start()
    // A domain without a feed has no anchor to poll: its poller lists folders instead.
    for (id, s) in syncs where pollers[id] == nil { await s.start() }
    for p in pollers.values { await p.start() }
  }

  public func stop() async {
    for p in pollers.values { await p.stop() }
    for (id, s) in syncs where pollers[id] == nil { await s.stop() }
    await queue.stop()
  }

  /// Tidies after processes that ended badly: edits in files whose opener outlived a crashed
  /// Folio are queued, and leftover temporary and staged files go.
  public func recover() async {
    for (domain, identifier) in (try? index.takeAbandonedOpens()) ?? [] {
      guard let local = try? store.localFile(domain: domain, identifier: identifier) else { continue }
      _ = try? await EditNotice.notice(local.url, local.content, store: store, queue: queue)
    }
    let staged = Set(((try? index.pendingTransfers()) ?? []).compactMap { $0.stagedPath?.lossyString })
    _ = try? store.removeLeftovers(keeping: staged)
  }

  func requireRemote(_ domain: Domain, _ what: String) throws(ProviderError) {
    guard domain.isSynced else {
      throw ProviderError(.featureUnsupported, "\(what) is on this computer: there is nothing to download or upload")
    }
  }

  // MARK: - Opening

  /// The local file holding the item's content, downloading it first when it is dataless or its
  /// server version moved on (progress goes to ``events``). For a local item: the item itself.
  ///
  /// Content with edits here is never replaced: it is returned as it is (it is the newest version
  /// this computer has, and its upload is queued). With `forOpen`, the content is marked open by
  /// this process before the cache budget is enforced, so it is not evicted while the opener runs;
  /// call ``noticeEdits(_:in:)`` when the opener returns.
  public func materialize(_ item: Item, in domain: Domain, forOpen: Bool = false) async throws(ProviderError) -> URL {
    if domain.hasDirectContent { return URL(fileURLWithPath: item.path.lossyString) }
    guard !item.isFolder else {
      throw ProviderError(.invalidArgument, "\(item.path.displayString) is a folder")
    }
    let id = item.identifier
    if let local = try store.localFile(domain: domain.identifier, identifier: id) {
      var fresh = local.content.state == .clean && local.content.version.content == item.version.content
      if local.content.state == .dirty { fresh = true }
      if store.hasUnnoticedChanges(local.content) {
        _ = try await EditNotice.notice(local.url, local.content, store: store, queue: queue)
        fresh = true
      }
      if fresh {
        try index.updateContent(domain: domain.identifier, identifier: id) { $0.lastAccess = Date() }
        if forOpen {
          // Never a name of a staged upload's snapshot: an editor writes it in place.
          try await store.unshare(domain: domain.identifier, identifier: id)
          try index.beginOpen(domain: domain.identifier, identifier: id, pid: queue.pid)
        }
        return local.url
      }
    }
    // A person waits for an open: a download behind a server known to be unreachable would sit in
    // the queue, and the editor would take the screen by itself when the server came back.
    if forOpen, let held = await queue.latchedError(for: domain.identifier), held.code == .serverUnreachable {
      throw ProviderError(
        .serverUnreachable,
        "\(item.filename.lossyString) is not downloaded and \(domain.displayName) cannot be reached (\(held.message)): open it again once the server is back"
      )
    }
    _ = try await queue.download(id, domain: domain.identifier, size: item.documentSize)
    if forOpen { try index.beginOpen(domain: domain.identifier, identifier: id, pid: queue.pid) }
    try store.enforceBudget(cacheBudget)
    guard let local = try store.localFile(domain: domain.identifier, identifier: id) else {
      throw ProviderError(.ioError, "the download of \(item.filename.displayString) was evicted at once: raise cache_budget")
    }
    return local.url
  }

  /// After the opener returned: the content is no longer open here, and if its bytes changed an
  /// upload based on the version they started from is queued (the `↑` badge).
  ///
  /// - Returns: The upload's transfer id, or nil when nothing changed (or the item is local).
  @discardableResult
  public func noticeEdits(_ item: Item, in domain: Domain) async throws(ProviderError) -> Int64? {
    guard domain.isSynced else { return nil }
    defer { try? index.endOpen(domain: domain.identifier, identifier: item.identifier, pid: queue.pid) }
    guard let local = try store.localFile(domain: domain.identifier, identifier: item.identifier) else { return nil }
    return try await EditNotice.notice(local.url, local.content, store: store, queue: queue)
  }

  // MARK: - Uploading new files

  /// Stages each file into the content store and journals its upload into `folder`: when this
  /// returns, every upload survives a crash (and only then may anyone say "queued"). Nothing is
  /// sent here; the queue sends them.
  ///
  /// - Returns: For each source, its transfer id.
  public func put(_ sources: [URL], into folder: Item, in domain: Domain) async throws(ProviderError) -> [Int64] {
    var ids: [Int64] = []
    for source in sources {
      ids.append(try await put(ItemPath(source.path), into: folder, in: domain))
    }
    return ids
  }

  /// Stages one file (its path as bytes; the item is named after its last component) and
  /// journals its upload into `folder`.
  ///
  /// - Returns: The transfer id, once the row is committed.
  public func put(_ source: ItemPath, as name: ItemName? = nil, into folder: Item, in domain: Domain) async throws(ProviderError) -> Int64 {
    try requireRemote(domain, folder.path.displayString)
    guard folder.isFolder else { throw ProviderError(.invalidArgument, "\(folder.path.displayString) is not a folder") }
    guard let last = name ?? source.lastComponent else {
      throw ProviderError(.invalidArgument, "\(source.displayString) has no file name")
    }
    let validated = try Self.acceptedName(last, in: domain)
    let staged = try await store.stage(source, domain: domain.identifier)
    do throws(ProviderError) {
      return try await queue.enqueueCreate(staged, name: validated, in: folder.identifier, domain: domain.identifier)
    } catch {
      store.discardStaged(staged.url)
      throw error
    }
  }

  /// A name the domain's storage will take, checked before anything is queued: an upload its
  /// server refuses for the name stayed failed for ever (nothing could rename a file that exists
  /// only in the journal).
  static func acceptedName(_ name: ItemName, in domain: Domain) throws(ProviderError) -> ItemName {
    let valid = try ItemName.validated(name.bytes)
    guard domain.traits.namesAreBytes || valid.isValidUTF8 else {
      throw ProviderError(
        .invalidArgument,
        "“\(valid.displayString)” is not valid UTF-8, and \(domain.displayName) keeps names as text: rename the file first")
    }
    return valid
  }

  /// What ``putUnlessPresent(_:into:in:)`` did.
  public enum PutOutcome: Sendable {
    /// Staged and journaled: the transfer id.
    case queued(Int64)
    /// The folder already holds a file of that name with exactly these bytes: nothing was queued.
    case alreadyThere(Item)
  }

  /// As ``put(_:as:into:in:)``, unless the folder already has a file of the source's name holding
  /// exactly its bytes (its stated SHA-256, else — sizes equal — the hash of its content, as the
  /// queue checks a name collision): then nothing is queued or sent. `folio put` said "uploaded"
  /// for a file the server already had, the queue having taken those bytes for its own upload.
  /// A server that cannot be asked gets the upload queued as before.
  public func putUnlessPresent(_ source: ItemPath, into folder: Item, in domain: Domain) async throws(ProviderError) -> PutOutcome {
    try requireRemote(domain, folder.path.displayString)
    guard folder.isFolder else { throw ProviderError(.invalidArgument, "\(folder.path.displayString) is not a folder") }
    guard let last = source.lastComponent else {
      throw ProviderError(.invalidArgument, "\(source.displayString) has no file name")
    }
    let validated = try Self.acceptedName(last, in: domain)
    let staged = try await store.stage(source, domain: domain.identifier)
    if let existing = try? await domain.provider.item(at: folder.path.appending(validated)), !existing.isFolder,
      existing.documentSize == staged.size,
      await queue.holdsExactly(existing, staged, provider: domain.provider, domain: domain.identifier)
    {
      store.discardStaged(staged.url)
      return .alreadyThere(existing)
    }
    do throws(ProviderError) {
      return .queued(try await queue.enqueueCreate(staged, name: validated, in: folder.identifier, domain: domain.identifier))
    } catch {
      store.discardStaged(staged.url)
      throw error
    }
  }

  // MARK: - Keep Downloaded, Remove Download

  /// Pins ("Keep Downloaded") or unpins an item. Pinning queues the download of the item — of
  /// every file inside, for a folder — that is not here yet; pinned content is never evicted, and
  /// is downloaded again as soon as the server's version moves on.
  ///
  /// - Returns: The downloads queued.
  @discardableResult
  public func pin(_ item: Item, in domain: Domain, _ on: Bool = true) async throws(ProviderError) -> [Int64] {
    if domain.hasDirectContent {
      throw ProviderError(
        .featureUnsupported, "\(item.path.displayString) is on this computer: it is always available, there is nothing to keep downloaded")
    }
    try index.setPinned(on, item: item, domain: domain.identifier)
    guard on else { return [] }
    var queued: [Int64] = []
    for file in try await files(under: item, in: domain) {
      if let local = try store.localFile(domain: domain.identifier, identifier: file.identifier),
        local.content.state != .stale, local.content.version.content == file.version.content || local.content.state == .dirty
      {
        continue
      }
      queued.append(try await queue.enqueueDownload(file.identifier, domain: domain.identifier, size: file.documentSize))
    }
    return queued
  }

  /// The item itself when a file; every file below it when a folder (all pages).
  func files(under item: Item, in domain: Domain) async throws(ProviderError) -> [Item] {
    guard item.isFolder else { return [item] }
    var out: [Item] = []
    var folders = [item.identifier]
    while let folder = folders.popLast() {
      var page: Page?
      repeat {
        let answer = try await domain.provider.enumerate(
          EnumerationRequest(container: folder, includeHidden: true, suggestedPageSize: 500), page: page,
          progress: { _ in })
        for child in answer.items {
          if child.isFolder { folders.append(child.identifier) } else if !child.isSymlink { out.append(child) }
        }
        page = answer.nextPage
      } while page != nil
    }
    return out
  }

  /// Removes the downloaded content of an item (of every file inside a folder the index knows as
  /// materialized), leaving it dataless. Stops at the first that cannot go.
  ///
  /// - Returns: How many files were evicted.
  @discardableResult
  public func evict(_ item: Item, in domain: Domain) async throws(ProviderError) -> Int {
    if domain.hasDirectContent {
      throw ProviderError(
        .featureUnsupported, "\(item.path.displayString) is on this computer: it has no download to remove")
    }
    var targets: [Item] = []
    if item.isFolder {
      for content in try index.allContent(domain: domain.identifier) {
        guard let indexed = try index.item(domain: domain.identifier, identifier: content.identifier) else { continue }
        if item.path == .root || indexed.path.bytes.starts(with: item.path.bytes + [0x2F]) { targets.append(indexed.item()) }
      }
    } else {
      targets = [item]
    }
    var n = 0
    for t in targets {
      guard try store.localFile(domain: domain.identifier, identifier: t.identifier) != nil else { continue }
      do throws(ProviderError) {
        try store.evict(domain: domain.identifier, identifier: t.identifier, name: t.path.displayString)
      } catch where item.isFolder && (error.code == .nonEvictable || error.code == .unsyncedEdits) {
        throw ProviderError(.nonEvictableChildren, "\(error.message) (\(n) other file(s) were evicted)")
      }
      n += 1
    }
    return n
  }

  // MARK: - Syncing

  /// Reads a domain's remote changes into the index.
  public func syncChanges(of domain: DomainIdentifier, allowMassDeletion: Bool = false) async throws(ProviderError)
    -> WorkingSetSync.Summary
  {
    guard let s = syncs[domain] else {
      throw ProviderError(.featureUnsupported, "the location '\(domain)' is on this computer: there is nothing to sync")
    }
    guard let poller = pollers[domain] else { return try await s.syncNow(allowMassDeletion: allowMassDeletion) }
    // No feed: the root and every folder holding working-set items are listed now.
    var summary = WorkingSetSync.Summary()
    let folders = [ItemIdentifier.root] + ((try? index.workingSetFolders(domain: domain)) ?? []).filter { $0 != .root }.sorted {
      $0.rawValue < $1.rawValue
    }
    // Where folder versions cover their descendants (Nextcloud), one walk from the top lists
    // only where a version moved since this process's last sweep.
    let listings =
      poller.sweepsFromTheTop
      ? await poller.sweep(Set(folders), allowMassDeletion: allowMassDeletion)
      : await pollEach(folders, poller, allowMassDeletion: allowMassDeletion)
    for changes in listings {
      summary.updated += changes.updatedItems.count
      summary.deleted += changes.deletedIdentifiers.count
      summary.heldDeletions += changes.heldDeletions
      summary.ambiguousMoves += changes.ambiguousMoves
    }
    return summary
  }

  private func pollEach(_ folders: [ItemIdentifier], _ poller: ListingPoller, allowMassDeletion: Bool) async -> [ListingChanges] {
    var out: [ListingChanges] = []
    for folder in folders { out.append(await poller.pollNow(folder, allowMassDeletion: allowMassDeletion)) }
    return out
  }

  /// "syncing N" for a domain: its transfers not done yet (queued, running or throttled).
  public static func syncingCount(_ domain: DomainIdentifier, index: WorkingSetIndex) -> Int {
    (try? index.transferCounts(domain: domain).syncing) ?? 0
  }
}
