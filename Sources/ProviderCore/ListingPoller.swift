import Foundation
import ProviderAPI
import WorkingSetIndex

/// The time a ``ListingPoller`` runs on: now (a `Duration` since an origin) and a sleep. Injected
/// so tests drive the poller with a virtual time and never sleep.
public struct PollClock: Sendable {
  public var now: @Sendable () -> Duration
  public var sleep: @Sendable (Duration) async throws -> Void

  public init(now: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) async throws -> Void) {
    self.now = now
    self.sleep = sleep
  }

  /// The monotonic clock, from the moment this is made.
  public static func continuous() -> PollClock {
    let clock = ContinuousClock()
    let origin = clock.now
    return PollClock(now: { origin.duration(to: clock.now) }, sleep: { try await clock.sleep(for: $0) })
  }
}

/// Change detection for storage without a change feed (`ProviderTraits.changeFeed == .none`:
/// SFTP, S3, plain WebDAV; remote-providers.md §1.3): lists folders on a ``PollSchedule``,
/// compares each listing with the index (``ListingDiff``, pure) and hands the result to `apply`
/// (`WorkingSetSync.applyListing`), which changes the index as a change batch would.
///
/// An actor of its own: listings run in tasks off any caller, and the browser's calls
/// (``show(_:)``, ``shownListing(_:entries:)``, ``hide(_:)``, ``refresh(_:)``, ``noteHint(_:_:)``)
/// are non-isolated and return at once — a key never waits for a listing.
///
/// A listing that finds nothing costs little and says nothing: a folder whose hint (its mtime,
/// one STAT) has not moved is not listed again until the schedule says its last listing is too
/// old to stand in (longer for bigger folders), and a listing whose entries are those the rows on
/// screen came from sends no event, so the browser reloads nothing.
public actor ListingPoller {
  public typealias Apply = @Sendable (ListingChanges) async throws(ProviderError) -> Void

  /// What the browser tells the poller.
  public enum Command: Sendable, Equatable {
    case show(ItemIdentifier)
    case hide(ItemIdentifier)
    case refresh(ItemIdentifier)
    case hint(ItemIdentifier, Data)
    /// The browser listed the folder it shows: the folder's hint when that listing began, and
    /// its size.
    case shownListing(ItemIdentifier, Data, entries: Int?)
  }

  public nonisolated let domain: DomainIdentifier
  nonisolated let provider: any Provider
  nonisolated let index: WorkingSetIndex
  nonisolated let apply: Apply
  nonisolated let massGuard: MassDeletionGuard
  nonisolated let clock: PollClock
  nonisolated let jitter: @Sendable () -> Double
  nonisolated let pageSize: Int
  nonisolated let detectMoves: Bool
  nonisolated let hashKind: ProviderTraits.ContentHash
  /// The storage keeps favorites (Nextcloud): a listing that changes only an item's favorite state
  /// changes the item (its ETag does not move with it: owncloud/core#16589).
  nonisolated let favoritesListed: Bool
  /// The storage keeps tags and lists them (Nextcloud's system tags): a listing that changes only
  /// an item's tags changes the item (they move no ETag either).
  nonisolated let tagsListed: Bool
  /// The storage's folder versions cover everything below them and it reads a folder's own
  /// entry (Nextcloud): the working set is brought up to date by one sweep from the top
  /// (``sweep(_:allowMassDeletion:)``, ``FolderSweep``) instead of one job per folder.
  nonisolated let sweeper: (any FolderVersionReading)?

  private var schedule: PollSchedule
  private var states: [ItemIdentifier: FolderListingState] = [:]
  /// The latest listing of each folder; a new one waits for the one before (one at a time per
  /// folder, so its state between listings is never raced).
  private var running: [ItemIdentifier: (serial: UInt64, task: Task<ListingChanges, Never>)] = [:]
  private var serial: UInt64 = 0
  private var workingSetReadAt: Duration?
  /// Each folder's hint at the last completed sweep (this process's: a new one walks every chain
  /// once), when the last full sweep began, the sweep running, and the child-folder hints of
  /// the latest listing of each folder a sweep is walking.
  private var swept: [ItemPath: Data] = [:]
  private var fullSweepAt: Duration?
  private var sweepTask: Task<[ListingChanges], Never>?
  private var childHints: [ItemIdentifier: [ItemPath: Data]] = [:]
  private var sweepListing: Set<ItemIdentifier> = []
  private var loop: Task<Void, Never>?
  private var listener: Task<Void, Never>?
  private var sleeper: Task<Void, Never>?
  private var woken = false
  private nonisolated let commands: AsyncStream<Command>
  private nonisolated let commandSink: AsyncStream<Command>.Continuation

  /// - Parameters:
  ///   - apply: Where the changes of one listing go: `{ try await sync.applyListing($0) }`.
  ///   - massGuard: WorkingSetSync's threshold (`MassDeletionGuard(share: sync.massDeleteShare,
  ///     minimum: sync.massDeleteMinimum)`).
  public init(
    domain: DomainIdentifier, provider: any Provider, index: WorkingSetIndex, cadence: PollSchedule.Cadence = .standard,
    massGuard: MassDeletionGuard = .standard, clock: PollClock = .continuous(), pageSize: Int = 1000,
    jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }, apply: @escaping Apply
  ) {
    self.domain = domain
    self.provider = provider
    self.index = index
    self.apply = apply
    self.massGuard = massGuard
    self.clock = clock
    self.jitter = jitter
    self.pageSize = pageSize
    self.detectMoves = provider.traits.identity == .pathKeyed
    self.hashKind = provider.traits.contentHash
    self.favoritesListed = provider.traits.storesFavorites
    self.tagsListed = provider.traits.storesTags
    self.sweeper = provider.traits.folderVersionsCoverDescendants ? provider as? any FolderVersionReading : nil
    self.schedule = PollSchedule(cadence: cadence)
    (commands, commandSink) = AsyncStream.makeStream(of: Command.self)
  }

  // MARK: - What the browser says (never waits)

  /// The folder is on screen: looked at every 15–30 s while it is (listed when its hint moved or
  /// its last listing is too old to stand in, ``PollSchedule``).
  public nonisolated func show(_ folder: ItemIdentifier) { commandSink.yield(.show(folder)) }
  public nonisolated func hide(_ folder: ItemIdentifier) { commandSink.yield(.hide(folder)) }
  /// Ctrl-R: listed at once.
  public nonisolated func refresh(_ folder: ItemIdentifier) { commandSink.yield(.refresh(folder)) }
  /// A folder's mtime or ETag as its parent's listing states it.
  public nonisolated func noteHint(_ folder: ItemIdentifier, _ hint: Data) { commandSink.yield(.hint(folder, hint)) }
  /// The browser listed the folder it shows (`container`: the folder as its provider read it
  /// when that listing began; `entries`: how many it had). The poller's next look only checks
  /// the folder's hint against it, and its first listing reloads nothing when the hint is the
  /// same. A hint too fresh to trust (``trustedHint(of:now:)``) is not passed on.
  public nonisolated func shownListing(_ container: Item, entries: Int?) {
    guard let hint = Self.trustedHint(of: container, now: Date()) else { return }
    commandSink.yield(.shownListing(container.identifier, hint, entries: entries))
  }

  /// Applies a command now (what the running poller does with each one it is sent).
  public func receive(_ command: Command) {
    let now = clock.now()
    switch command {
    case .show(let f): schedule.show(f, at: now)
    case .hide(let f): schedule.hide(f)
    case .refresh(let f): schedule.refresh(f, at: now)
    case .hint(let f, let h): schedule.noteHint(f, h, at: now)
    case .shownListing(let f, let h, let n): schedule.shownListing(f, hint: h, entries: n, at: now)
    }
    wake()
  }

  // MARK: - Running

  /// Polls until ``stop()``: reads the working set's folders every `workingSet` period, starts
  /// the listings that are due, sleeps until the next one is due or a command or a finished
  /// listing wakes it.
  public func start() {
    guard loop == nil else { return }
    let stream = commands
    listener = Task { [weak self] in
      for await command in stream {
        guard let self else { return }
        await self.receive(command)
      }
    }
    loop = Task { [weak self] in
      while !Task.isCancelled {
        guard let self else { return }
        await self.cycle()
      }
    }
  }

  public func stop() {
    loop?.cancel()
    listener?.cancel()
    sleeper?.cancel()
    sweepTask?.cancel()
    for (_, r) in running { r.task.cancel() }
    loop = nil
    listener = nil
  }

  private func cycle() async {
    readWorkingSetFoldersIfDue()
    launchDue()
    guard !woken else {
      woken = false
      return
    }
    let now = clock.now()
    var wait = schedule.nextWake().map { max(.zero, $0 - now) } ?? schedule.cadence.workingSet
    if sweeper != nil, let last = workingSetReadAt { wait = min(wait, max(.zero, last + schedule.cadence.workingSet - now)) }
    let sleep = clock.sleep
    let s = Task { _ = try? await sleep(wait) }
    sleeper = s
    await s.value
    sleeper = nil
    woken = false
  }

  private func wake() {
    woken = true
    sleeper?.cancel()
  }

  /// Re-reads which folders hold the working set, once per `workingSet` period.
  public func readWorkingSetFoldersIfDue() {
    let now = clock.now()
    if let last = workingSetReadAt, now - last < schedule.cadence.workingSet { return }
    guard let folders = try? index.workingSetFolders(domain: domain) else { return }
    workingSetReadAt = now
    guard sweeper != nil else {
      schedule.setWorkingSetFolders(folders, at: now)
      return
    }
    guard sweepTask == nil else { return }
    sweepTask = Task {
      let changes = await self.sweep(folders)
      self.sweepTask = nil
      return changes
    }
  }

  /// Whether the working set is brought up to date by sweeps from the top
  /// (``ProviderTraits/folderVersionsCoverDescendants``).
  public nonisolated var sweepsFromTheTop: Bool { sweeper != nil }

  /// The running sweep's changes, once it ends (nil when none runs): for tests.
  public func sweepInFlight() async -> [ListingChanges]? { await sweepTask?.value }

  /// Brings `folders` (and the top) up to date: on storage whose folder versions cover their
  /// descendants, one walk from the top that lists only folders whose version moved since the
  /// last completed sweep (``FolderSweep``: nothing changed costs one request); elsewhere each
  /// folder is listed. Every `hintTrustCap` the walk lists every folder on the way whatever its
  /// version, since a favorite set elsewhere moves none (owncloud/core#16589).
  ///
  /// - Returns: The changes of each listing made, in the order made.
  public func sweep(_ folders: Set<ItemIdentifier>, allowMassDeletion: Bool = false) async -> [ListingChanges] {
    guard let sweeper else {
      var out: [ListingChanges] = []
      for folder in [ItemIdentifier.root] + folders.filter({ $0 != .root }).sorted() {
        out.append(await pollNow(folder, allowMassDeletion: allowMassDeletion))
      }
      return out
    }
    let began = clock.now()
    let full = fullSweepAt.map { began - $0 >= schedule.cadence.hintTrustCap } ?? false
    var walk = FolderSweep(targets: Set(folders.compactMap { sweeper.path(for: $0) }), previous: swept, full: full)
    let top: Data?
    do {
      top = Self.hint(of: try await sweeper.currentFolder(at: .root))
    } catch {
      top = nil
    }
    var queue = walk.start(topHint: top)
    var out: [ListingChanges] = []
    while !queue.isEmpty && !Task.isCancelled {
      let folder = queue.removeFirst()
      let id = sweeper.identifier(for: folder)
      sweepListing.insert(id)
      let changes = await pollNow(id, allowMassDeletion: allowMassDeletion)
      sweepListing.remove(id)
      out.append(changes)
      let hints = childHints.removeValue(forKey: id) ?? [:]
      queue += walk.listed(folder, complete: changes.verdict == .complete, childHints: hints)
    }
    swept = walk.result()
    if walk.succeeded && queue.isEmpty && (full || fullSweepAt == nil) { fullSweepAt = began }
    return out
  }

  /// Starts the jobs that are due (at most the free slots) and returns their tasks; each checks
  /// the folder's hint or lists it, applies its changes, tells the schedule how it ended and
  /// wakes the loop.
  @discardableResult
  public func launchDue() -> [Task<ListingChanges, Never>] {
    schedule.takeJobs(at: clock.now()).map { begin($0.folder, scheduled: true, expecting: $0.expectedHint, allowMassDeletion: false) }
  }

  /// Lists a folder now and applies what changed, after any listing of it that is running:
  /// `folio sync`, tests, and a person who confirmed held deletions (`allowMassDeletion`).
  @discardableResult
  public func pollNow(_ folder: ItemIdentifier, allowMassDeletion: Bool = false) async -> ListingChanges {
    await begin(folder, scheduled: false, expecting: nil, allowMassDeletion: allowMassDeletion).value
  }

  private func begin(
    _ folder: ItemIdentifier, scheduled: Bool, expecting: Data?, allowMassDeletion: Bool
  ) -> Task<ListingChanges, Never> {
    serial += 1
    let me = serial
    let previous = running[folder]?.task
    let task = Task {
      _ = await previous?.value
      let outcome = await self.run(folder, scheduled: scheduled, expecting: expecting, allowMassDeletion: allowMassDeletion)
      self.ended(folder, serial: me, outcome, scheduled: scheduled)
      return outcome.changes
    }
    running[folder] = (me, task)
    return task
  }

  /// What one job came to: the listing's changes and size, or a check that listed nothing.
  private struct Outcome {
    var changes: ListingChanges
    var entries: Int?
    var unchangedHint: Data?
  }

  /// A scheduled job reads the folder's hint first (one request): a check that finds it as
  /// expected ends there; otherwise the hint is what the listing's successors compare with.
  private func run(
    _ folder: ItemIdentifier, scheduled: Bool, expecting: Data?, allowMassDeletion: Bool
  ) async -> Outcome {
    var startHint: Data?
    if scheduled || (states[folder]?.lastListing == nil && schedule.shownHint(folder) != nil) {
      let read = await currentHint(folder)
      if let expecting, let read, read.hint == expecting {
        var nothing = ListingChanges(folder: folder, verdict: .complete)
        nothing.listed = false
        return Outcome(changes: nothing, unchangedHint: read.hint)
      }
      startHint = read?.trusted == true ? read?.hint : nil
      if scheduled { schedule.listingStarts(folder, hint: startHint) }
    }
    let (changes, entries) = await poll(folder, startHint: startHint, allowMassDeletion: allowMassDeletion)
    return Outcome(changes: changes, entries: entries)
  }

  /// The folder's hint now (one STAT), and whether it is old enough to trust; nil when the
  /// provider states none or the request failed (the listing then finds out).
  private func currentHint(_ folder: ItemIdentifier) async -> (hint: Data, trusted: Bool)? {
    guard let item = try? await provider.item(for: folder, pathHint: nil), let hint = Self.hint(of: item) else { return nil }
    return (hint, Self.trustedHint(of: item, now: Date()) != nil)
  }

  private func ended(_ folder: ItemIdentifier, serial: UInt64, _ outcome: Outcome, scheduled: Bool) {
    if running[folder]?.serial == serial { running[folder] = nil }
    guard scheduled else { return }
    if let hint = outcome.unchangedHint {
      schedule.unchanged(folder, hint: hint, at: clock.now())
      wake()
      return
    }
    let changes = outcome.changes
    let completeness: ListingCompleteness =
      switch changes.verdict {
      case .complete: .complete
      case .failed: .failed
      case .cutShort, .suspectEmpty: .cutShort
      }
    schedule.finished(
      folder, completeness, awaitsConfirmation: states[folder]?.awaitsConfirmation ?? false, entries: outcome.entries,
      at: clock.now(), jitter: jitter())
    wake()
  }

  /// Whether a listing is running.
  public var isBusy: Bool { !running.isEmpty }

  /// The hint of the browser's listing of the folder it shows, once the poller has it (what a
  /// first listing compares with).
  public func shownHint(of folder: ItemIdentifier) -> Data? { schedule.shownHint(folder) }

  /// The folder's state between listings (the items it lacked once).
  public func state(of folder: ItemIdentifier) -> FolderListingState { states[folder] ?? FolderListingState() }

  // MARK: - One listing

  /// - Parameter startHint: The folder's hint read just before the listing (nil: not read, or
  ///   too fresh to trust).
  /// - Returns: The changes, and how many entries a complete listing had.
  private func poll(
    _ folder: ItemIdentifier, startHint: Data?, allowMassDeletion: Bool
  ) async -> (ListingChanges, Int?) {
    let (items, completeness, refusal) = await list(folder)
    let known: [KnownChild]
    let absences: Set<ItemIdentifier>
    do {
      known = try index.children(domain: domain, of: folder, limit: Int.max).map {
        KnownChild($0.item(), hash: hashKind, favorite: favoritesListed, tags: tagsListed)
      }
      absences = Set(try index.listingAbsences(domain: domain, folder: folder).keys)
    } catch {
      return (ListingChanges(folder: folder, verdict: .failed), nil)
    }
    var state = states[folder] ?? FolderListingState()
    // What the last complete listing lacked comes from the index, not this process's memory: the
    // listing before this one may have been another process's (two `folio sync` runs, or the
    // browser and `folio sync`).
    state.missingOnce = absences
    var changes = ListingDiff.diff(
      folder: folder, known: known, listed: items, completeness: completeness, state: &state, guard: massGuard,
      allowMassDeletion: allowMassDeletion, detectMoves: detectMoves, hash: hashKind)
    if changes.verdict == .suspectEmpty || (refusal?.code == .noSuchItem && !known.isEmpty) {
      // An empty listing proves nothing; nor does "no such folder" about what was in it (renamed
      // or deleted elsewhere, on path-keyed storage its children are gone from their paths too):
      // each child is asked for. Before, the children of a folder renamed on the server stayed
      // in the index for ever, shown where nothing was (found by folio-sim).
      changes = await confirmAbsences(folder, known, allowMassDeletion: allowMassDeletion)
    }
    if changes.verdict == .complete {
      var hasher = Hasher()
      for item in items.sorted(by: { $0.identifier.rawValue < $1.identifier.rawValue }) {
        hasher.combine(item.identifier)
        hasher.combine(item.version.content)
        hasher.combine(item.version.metadata)
      }
      let fingerprint = hasher.finalize()
      // The first listing of a folder on screen has nothing of its own to compare with, and the
      // browser listed it up to one period earlier: whatever came in between would never show,
      // unless the folder's hint is the one the browser's listing began with (same entries;
      // what a rewrite in place changed in a file the index knows is an update above, which
      // reloads the list anyway).
      changes.folderChanged =
        state.lastListing.map { $0 != fingerprint }
        ?? (schedule.isVisible(folder) && (startHint == nil || startHint != schedule.shownHint(folder)))
      state.lastListing = fingerprint
    }
    do {
      if !changes.isEmpty || !changes.heldDeletions.isEmpty || changes.folderChanged { try await apply(changes) }
    } catch {
      // Not applied: what it lacked must be seen missing twice again before anything goes.
      state.missingOnce = []
    }
    states[folder] = state
    if state.missingOnce != absences {
      // Not saved: the next listing finds fewer absences than there were, and confirms fewer
      // deletions (never more).
      try? index.replaceListingAbsences(state.missingOnce, domain: domain, folder: folder)
    }
    if changes.verdict == .complete || changes.verdict == .cutShort {
      let now = clock.now()
      var hints: [ItemPath: Data] = [:]
      for item in items where item.isFolder && item.parentIdentifier == folder {
        guard let hint = Self.hint(of: item) else { continue }
        schedule.noteHint(item.identifier, hint, at: now)
        if let path = sweeper?.path(for: item.identifier) { hints[path] = hint }
      }
      if sweepListing.contains(folder) { childHints[folder] = hints }
    }
    return (changes, changes.verdict == .complete ? items.count : nil)
  }

  /// After an empty listing of a folder the index knows children of: each child is asked for by
  /// its identifier, and only when every one answers `noSuchItem` (an explicit answer, which a
  /// maintenance page or an outage never gives) are they deleted — within the mass-deletion guard.
  private func confirmAbsences(
    _ folder: ItemIdentifier, _ known: [KnownChild], allowMassDeletion: Bool
  ) async -> ListingChanges {
    var gone: [ItemIdentifier] = []
    for child in known {
      do {
        _ = try await provider.item(for: child.identifier, pathHint: child.path)
        return ListingChanges(folder: folder, verdict: .suspectEmpty)  // it is there: the listing was wrong
      } catch where error.code == .noSuchItem {
        gone.append(child.identifier)
      } catch {
        return ListingChanges(folder: folder, verdict: .suspectEmpty)
      }
    }
    gone.sort()
    if !allowMassDeletion && massGuard.holds(deletions: gone.count, of: known.count) {
      return ListingChanges(folder: folder, verdict: .suspectEmpty, heldDeletions: gone)
    }
    return ListingChanges(folder: folder, verdict: .suspectEmpty, deletedIdentifiers: gone)
  }

  /// Every page of the folder. Any error or a cancellation ends the listing: cut short when some
  /// pages arrived, failed when none did. Hidden items are listed too (the index may know them).
  ///
  /// - Returns: The entries, how complete they are, and the error that stopped the first page.
  private func list(_ folder: ItemIdentifier) async -> ([Item], ListingCompleteness, ProviderError?) {
    var items: [Item] = []
    var page: Page?
    var pages = 0
    let request = EnumerationRequest(container: folder, includeHidden: true, suggestedPageSize: pageSize, freshness: .current)
    repeat {
      do throws(ProviderError) {
        let answer = try await provider.enumerate(request, page: page, progress: { _ in })
        items += answer.items
        page = answer.nextPage
        pages += 1
      } catch {
        return (items, pages == 0 ? .failed : .cutShort, pages == 0 ? error : nil)
      }
      if Task.isCancelled { return (items, pages == 0 ? .failed : .cutShort, nil) }
    } while page != nil
    return (items, .complete, nil)
  }

  /// A folder's cheap change hint: its content version and modification date as its parent
  /// lists them (SFTP's directory mtime, a WebDAV collection's ETag).
  public static func hint(of folder: Item) -> Data? {
    var data = folder.version.content
    if let m = folder.contentModificationDate { withUnsafeBytes(of: m.timeIntervalSince1970.bitPattern) { data.append(contentsOf: $0) } }
    return data.isEmpty ? nil : data
  }

  /// How recent a folder's modification date may be for its hint to be trusted as the state of
  /// a listing that begins now.
  public static let racyWindow: TimeInterval = 2

  /// The folder's hint, when it may stand for what a listing beginning `now` sees: not when its
  /// modification date is within ``racyWindow`` of now or later. SFTP states whole seconds, so a
  /// file made later in the same second as the change a listing saw leaves the mtime as it was;
  /// trusting that mtime would hide the file until the next full listing (git's "racy clean"
  /// problem). A hint with no date is trusted (an ETag moves with every change).
  public static func trustedHint(of folder: Item, now: Date) -> Data? {
    if let m = folder.contentModificationDate, m.timeIntervalSince(now) > -racyWindow { return nil }
    return hint(of: folder)
  }
}
