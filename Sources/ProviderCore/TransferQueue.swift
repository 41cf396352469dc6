import Foundation
import ProviderAPI
import Synchronization
import WorkingSetIndex

/// Runs the uploads and downloads of the durable journal (the index's `transfer` table).
///
/// The journal is the queue: a transfer exists from the moment its row commits (after its bytes
/// were staged), and goes only when the provider returned the item holding them. So a crash,
/// `kill -9` or quit loses nothing; a new queue over the same index resumes `queued` rows and the
/// `running` rows of processes that are gone (another live process's are left to it).
///
/// Failures follow File Provider semantics §3 (``FailureDisposition``):
/// - transient errors back off exponentially with jitter, capped (``RetryPolicy``);
/// - resolvable errors (notAuthenticated, serverUnreachable, insufficientQuota, cannotSynchronize)
///   *latch* the domain: its transfers wait in `throttled` until ``resolve(domain:)`` (a sign-in,
///   the network back — probed every `probeInterval` while running —, freed quota, a person);
/// - the rest fail and wait for ``retry(_:)``.
///
/// At most `uploads` and `downloads` transfers run at once, and one upload per item, oldest first,
/// so a person's successive edits reach the server in order. Events for badges and progress go to
/// ``events``.
public actor TransferQueue {
  public struct Limits: Sendable, Equatable {
    public var uploads: Int
    public var downloads: Int
    /// How often a domain latched on `serverUnreachable` is probed while the queue runs.
    public var probeInterval: TimeInterval
    public init(uploads: Int = 2, downloads: Int = 3, probeInterval: TimeInterval = 15) {
      self.uploads = uploads
      self.downloads = downloads
      self.probeInterval = probeInterval
    }
  }

  /// Which transfers a running queue picks.
  public enum Scope: Sendable, Equatable {
    /// Every transfer of the journal (the browser, `folio sync`).
    case all
    /// Only transfers someone is waiting for (`folio get`, `folio open`): a one-shot command does
    /// not start the journal's other work only to cancel it when it exits.
    case requested
  }

  public nonisolated let index: WorkingSetIndex
  public nonisolated let store: ContentStore
  public nonisolated let events: SyncEventHub
  nonisolated let providers: [DomainIdentifier: any Provider]
  nonisolated let policy: RetryPolicy
  nonisolated let limits: Limits
  nonisolated let pid: Int32
  nonisolated let jitter: @Sendable () -> Double
  nonisolated let clock: @Sendable () -> Date
  nonisolated let progressGate = ProgressGate()

  struct Active {
    var task: Task<Void, Never>
    var transfer: Transfer
  }

  var active: [Int64: Active] = [:]
  var latched: [DomainIdentifier: ProviderError] = [:]
  var lastProbe: [DomainIdentifier: Date] = [:]
  /// Domains with rows another process throttled that no latch of this queue holds (seen by the
  /// last ``pump(now:)``).
  var foreignThrottled: Set<DomainIdentifier> = []
  var waiters: [Int64: [CheckedContinuation<Result<Item, ProviderError>, Never>]] = [:]
  var loop: Task<Void, Never>?
  var scope: Scope = .all
  var sleeper: Task<Void, Never>?
  var wakeRequested = false
  /// Bumped by every start and stop of the loop: a loop that is no longer current ends.
  var generation = 0
  /// While draining: the attempt count after which a transfer is left for another run.
  var drainCap: Int?
  /// While draining: each transfer's attempt count when the drain began (the cap counts from it).
  var drainStartAttempts: [Int64: Int] = [:]
  var completedInDrain: [TransferActivity] = []
  /// Running downloads a person cancelled: their task was cancelled and their row is gone; how
  /// they end is not reported as a failure (``cancelDownload(_:)``).
  var cancelledDownloads: Set<Int64> = []

  /// - Parameters:
  ///   - providers: The remote domains' providers (local domains never transfer).
  ///   - pid: The process id written into claimed rows (tests use another to play a second process).
  ///   - jitter: Random numbers in 0..<1 for the backoff (tests pin them).
  public init(
    providers: [DomainIdentifier: any Provider], index: WorkingSetIndex, store: ContentStore,
    events: SyncEventHub = SyncEventHub(), policy: RetryPolicy = .standard, limits: Limits = Limits(),
    pid: Int32 = ProcessLiveness.current, jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
    clock: @escaping @Sendable () -> Date = Date.init
  ) {
    self.providers = providers
    self.index = index
    self.store = store
    self.events = events
    self.policy = policy
    self.limits = limits
    self.pid = pid
    self.jitter = jitter
    self.clock = clock
  }

  // MARK: - Journaling

  /// The identifier a new file's upload carries until the provider has created the item.
  public static let placeholderPrefix = Transfer.placeholderPrefix

  /// Journals the upload of a new file from staged bytes. When this returns the upload survives
  /// a crash: only now may anyone say "queued".
  public func enqueueCreate(
    _ staged: ContentStore.Staged, name: ItemName, in parent: ItemIdentifier, domain: DomainIdentifier
  ) throws(ProviderError) -> Int64 {
    let id = try index.enqueueTransfer(
      .upload, domain: domain, identifier: Transfer.newPlaceholder(),
      stagedPath: ItemPath(staged.url.path), bytesTotal: staged.size, at: clock(), parent: parent, name: name,
      sha256: staged.sha256)
    announce(id)
    return id
  }

  /// Journals new content for an existing item, based on the version it was edited from; the
  /// item's materialized content becomes dirty in the same transaction.
  ///
  /// An earlier upload of the item that failed is superseded: its bytes are an older snapshot of
  /// the same file, which the new one holds whole. Left in the journal it kept the item's one
  /// upload slot (oldest first), so the new edit waited behind it for ever — `◷` on the item and
  /// "syncing 1" in the sidebar that never ended.
  public func enqueueModify(
    _ staged: ContentStore.Staged, of identifier: ItemIdentifier, base: ItemVersion, domain: DomainIdentifier,
    name: ItemName? = nil
  ) throws(ProviderError) -> Int64 {
    let id = try index.enqueueTransfer(
      .upload, domain: domain, identifier: identifier, stagedPath: ItemPath(staged.url.path), baseVersion: base,
      bytesTotal: staged.size, at: clock(), sha256: staged.sha256, markContentDirty: true)
    for old in try index.pendingUploads(domain: domain, identifier: identifier) where old.id != id && old.state == .failed {
      _ = try index.removeTransfer(old.id)
      if let path = old.stagedPath { store.discardStaged(URL(fileURLWithPath: path.lossyString)) }
    }
    announce(id)
    return id
  }

  /// Journals a download of an item (or returns the pending one for it).
  public func enqueueDownload(
    _ identifier: ItemIdentifier, domain: DomainIdentifier, size: Int64? = nil
  ) throws(ProviderError) -> Int64 {
    if let existing = try index.pendingTransfers(domain: domain).first(where: {
      $0.direction == .download && $0.identifier == identifier && $0.state != .failed
    }) {
      return existing.id
    }
    let id = try index.enqueueTransfer(.download, domain: domain, identifier: identifier, bytesTotal: size, at: clock())
    announce(id)
    return id
  }

  private func announce(_ id: Int64) {
    if let t = try? index.transfer(id: id) { events.send(.queued(TransferActivity(t))) }
    kick()
  }

  // MARK: - Waiting for a transfer

  /// Downloads an item through the queue and waits for it (open, `folio get`).
  public func download(_ identifier: ItemIdentifier, domain: DomainIdentifier, size: Int64? = nil) async throws(ProviderError) -> Item {
    let id = try enqueueDownload(identifier, domain: domain, size: size)
    return try await wait(for: id)
  }

  /// Waits until the transfer completes (its item) or gives up for now (its error). Starts the
  /// queue for it if nothing runs it.
  ///
  /// A row another process left throttled (an earlier `folio get` whose link was cut) is tried
  /// once more: a person asks for it now, and no latch of this queue holds its domain, so nothing
  /// here would ever release it (a second `folio get` waited for ever). If the cause persists, the
  /// attempt latches the domain again and the waiter hears why.
  public func wait(for id: Int64) async throws(ProviderError) -> Item {
    if let t = try? index.transfer(id: id), t.state == .throttled, latched[t.domain] == nil {
      resolve(domain: t.domain)
    }
    let result: Result<Item, ProviderError> = await withCheckedContinuation { c in
      waiters[id, default: []].append(c)
      if loop == nil && drainCap == nil { startLoop(scope: .requested) } else { kick() }
    }
    return try result.get()
  }

  func resumeWaiters(_ id: Int64, _ result: Result<Item, ProviderError>) {
    for w in waiters.removeValue(forKey: id) ?? [] { w.resume(returning: result) }
    if scope == .requested && waiters.isEmpty && active.isEmpty { stopLoop() }
  }

  // MARK: - Resolving and retrying

  /// The condition behind a domain's throttled transfers was resolved (a sign-in succeeded, the
  /// network came back, quota was freed): they run again.
  public func resolve(domain: DomainIdentifier) {
    let wasLatched = latched.removeValue(forKey: domain) != nil
    let released = (try? index.releaseThrottledTransfers(domain: domain, at: clock())) ?? 0
    if wasLatched || released > 0 { events.send(.domainResumed(domain)) }
    kick()
  }

  /// A person asked to try a transfer again now ("Retry" in the menu): its backoff and failure
  /// are forgotten, and a latch on its domain is lifted.
  public func retry(_ id: Int64) throws(ProviderError) {
    let t = try index.updateTransfer(id, at: clock()) { t in
      guard t.state != .running else { return }
      t.state = .queued
      t.attempt = 0
      t.nextAttemptAt = nil
      t.throttledByCode = nil
    }
    resolve(domain: t.domain)
  }

  /// The error holding a domain's transfers, if any.
  public func latchedError(for domain: DomainIdentifier) -> ProviderError? { latched[domain] }

  /// The domain's server answered a request (a sync, a listing): a latch on `serverUnreachable`
  /// is lifted now rather than at the next probe, so uploads resume within moments of the server's
  /// return. Other latches (a sign-in, the quota) are not the network's to lift.
  public func serverAnswered(_ domain: DomainIdentifier) {
    guard latched[domain]?.code == .serverUnreachable else { return }
    resolve(domain: domain)
  }

  /// Another process changed the journal (a `folio put` in another terminal): look at it now.
  public func journalChanged() { kick() }

  // MARK: - Running

  /// Runs the whole journal until ``stop()``: the browser's mode.
  public func start() {
    guard loop == nil || scope != .all else { return }
    stopLoop()
    startLoop(scope: .all)
  }

  /// Stops picking transfers and cancels the running ones; they go back to `queued` and resume
  /// at the next start.
  public func stop() async {
    stopLoop()
    let tasks = active.values.map(\.task)
    for t in tasks { t.cancel() }
    for t in tasks { await t.value }
  }

  func startLoop(scope: Scope) {
    self.scope = scope
    generation += 1
    let gen = generation
    loop = Task { [weak self] in
      while !Task.isCancelled {
        guard let self, await self.generation == gen else { return }
        let next = await self.tick()
        await self.sleep(until: next, generation: gen)
      }
    }
  }

  func stopLoop() {
    generation += 1
    loop?.cancel()
    loop = nil
    sleeper?.cancel()
    sleeper = nil
  }

  /// One round: probe latched domains when due, start what may start, and say when to look again.
  func tick() async -> Date? {
    let now = clock()
    var next = pump(now: now)
    if scope == .all && drainCap == nil {
      // Rows another process left throttled (`folio put` while the server was down, an earlier
      // run) are held by no latch of this queue, so nothing here would ever probe or release
      // them: they waited, shown as stuck, until Retry on each. They are tried once now; if the
      // condition holds, this queue's own latch and probe take over.
      for domain in foreignThrottled.sorted(by: { $0.rawValue < $1.rawValue }) where latched[domain] == nil {
        resolve(domain: domain)
        next = now
      }
      foreignThrottled = []
      for (domain, error) in latched where error.code == .serverUnreachable {
        let due = (lastProbe[domain] ?? .distantPast).addingTimeInterval(limits.probeInterval)
        if due <= now {
          lastProbe[domain] = now
          if let provider = providers[domain], (try? await provider.currentSyncAnchor(for: .workingSet)) != nil {
            resolve(domain: domain)
            next = now
          } else {
            // Still unreachable: look again after the interval (without this the loop slept
            // until something else woke it, and a server coming back went unnoticed).
            let again = now.addingTimeInterval(limits.probeInterval)
            next = min(next ?? again, again)
          }
        } else {
          next = min(next ?? due, due)
        }
      }
    }
    return next
  }

  /// Wakes the loop now (a transfer was journaled, finished, or released).
  func kick() {
    wakeRequested = true
    sleeper?.cancel()
  }

  /// Sleeps until `date`, or until ``kick()``. A loop that was stopped (another generation runs
  /// now) leaves the shared wake state alone when it wakes: it belongs to the new loop.
  func sleep(until date: Date?, generation gen: Int) async {
    guard gen == generation else { return }
    if wakeRequested {
      wakeRequested = false
      return
    }
    let seconds = date.map { max(0.001, $0.timeIntervalSince(clock())) } ?? 3600
    let s = Task<Void, Never> { _ = try? await Task.sleep(nanoseconds: UInt64(min(seconds, 3600) * 1e9)) }
    sleeper = s
    await s.value
    guard gen == generation else { return }
    sleeper = nil
    wakeRequested = false
  }

  /// Starts every transfer that may start now.
  ///
  /// - Returns: When the earliest transfer waiting on its backoff becomes due.
  func pump(now: Date) -> Date? {
    guard let pending = try? index.pendingTransfers() else { return now.addingTimeInterval(5) }
    var next: Date?
    var uploads = active.values.filter { $0.transfer.direction == .upload }.count
    var downloads = active.count - uploads
    var uploadItems = Set(
      active.values.filter { $0.transfer.direction == .upload }.map { $0.transfer.domain.rawValue + "\u{0}" + $0.transfer.identifier.rawValue })
    foreignThrottled = []
    for t in pending where active[t.id] == nil {
      if t.state == .throttled, latched[t.domain] == nil, providers[t.domain] != nil { foreignThrottled.insert(t.domain) }
      if t.direction == .upload {
        // One upload per item, oldest first: a later edit waits for the earlier one.
        guard uploadItems.insert(t.domain.rawValue + "\u{0}" + t.identifier.rawValue).inserted else { continue }
      }
      guard let provider = providers[t.domain], !Self.holds(latched[t.domain], t) else { continue }
      guard t.state == .queued || t.state == .running else { continue }
      if scope == .requested && waiters[t.id] == nil { continue }
      if let cap = drainCap, t.attempt >= (drainStartAttempts[t.id] ?? 0) + cap { continue }
      if let at = t.nextAttemptAt, at > now {
        next = min(next ?? at, at)
        continue
      }
      if t.direction == .upload ? uploads >= limits.uploads : downloads >= limits.downloads { continue }
      guard let claimed = try? index.claimTransfer(t.id, pid: pid, at: now) else { continue }
      if t.direction == .upload { uploads += 1 } else { downloads += 1 }
      let task = Task { [weak self] in
        guard let self else { return }
        let result = await self.perform(claimed, provider: provider)
        await self.finish(claimed, result)
      }
      active[t.id] = Active(task: task, transfer: claimed)
    }
    return next
  }

  /// Whether a domain's latch holds a transfer back. A full account, or a write the server
  /// refuses until the item changes, stops what is written, not what is read: with
  /// `insufficientQuota` or `cannotSynchronize` latched, downloads go on (folio-sim found an open
  /// waiting for ever behind an upload refused for quota).
  nonisolated static func holds(_ latch: ProviderError?, _ t: Transfer) -> Bool {
    guard let latch else { return false }
    guard t.direction == .download else { return true }
    return latch.code != .insufficientQuota && latch.code != .cannotSynchronize
  }

  nonisolated func perform(_ t: Transfer, provider: any Provider) async -> Result<Item, ProviderError> {
    progressGate.report(TransferActivity(t), to: events, force: true)
    do throws(ProviderError) {
      switch t.direction {
      case .download:
        let (item, _) = try await store.download(
          t.identifier, domain: t.domain, provider: provider,
          progress: { [events, progressGate] p in
            var a = TransferActivity(t)
            a.completedBytes = p.completedBytes
            a.totalBytes = p.totalBytes ?? t.bytesTotal
            progressGate.report(a, to: events)
          }, at: clock)
        return .success(item)
      case .upload:
        return .success(try await performUpload(t, provider: provider))
      }
    } catch {
      return .failure(error)
    }
  }

  /// Cancels a download, running or waiting (Cancel Download in the browser's menu): its row
  /// leaves the journal, a running one's task is cancelled (``ContentStore/download`` removes
  /// the partial file), and whoever waits for it (an opener) gets `cancelled`. The item stays
  /// not downloaded: a download that finished anyway before it saw the cancellation is evicted.
  ///
  /// - Returns: false when the transfer is not a download of the journal (done, or an upload).
  public func cancelDownload(_ id: Int64) throws(ProviderError) -> Bool {
    guard let t = try index.transfer(id: id), t.direction == .download else { return false }
    try index.removeTransfer(id)
    if let running = active[id] {
      cancelledDownloads.insert(id)
      running.task.cancel()
    } else {
      resumeWaiters(id, .failure(Self.cancelled(t)))
    }
    return true
  }

  static func cancelled(_ t: Transfer) -> ProviderError {
    ProviderError(.cancelled, "the download of \(t.name?.displayString ?? "the file") was cancelled")
  }

  /// Records how a transfer ended and tells the listeners and the waiters.
  func finish(_ t: Transfer, _ result: Result<Item, ProviderError>) {
    active[t.id] = nil
    progressGate.forget(t.id)
    if cancelledDownloads.remove(t.id) != nil {
      // Cancelled by a person: nothing failed, and nothing of it stays.
      if case .success(let item) = result {
        try? store.evict(domain: t.domain, identifier: t.identifier, name: item.filename.displayString)
      }
      resumeWaiters(t.id, .failure(Self.cancelled(t)))
      if scope == .requested && waiters.isEmpty && active.isEmpty { stopLoop() }
      kick()
      return
    }
    var activity = TransferActivity(t)
    let now = clock()
    switch result {
    case .success(let item):
      if t.direction == .download { _ = try? index.removeTransfer(t.id) }
      activity.completedBytes = t.bytesTotal ?? item.documentSize ?? 0
      activity.totalBytes = t.bytesTotal ?? item.documentSize
      if drainCap != nil {
        // The report names the item the provider holds now: a create's new item, and the new item
        // that keeps edits of an item deleted on the server (not the original, which is gone).
        var done = activity
        done.identifier = item.identifier
        completedInDrain.append(done)
      }
      events.send(.completed(activity, item: item))
      resumeWaiters(t.id, .success(item))
    case .failure(let error):
      let message = error.message
      var disposition = FailureDisposition.of(error)
      if disposition == .throttle, let latch = latched[t.domain], latch.code != error.code, !Self.holds(latch, t) {
        // Another condition latches the domain and does not hold this transfer (a download under
        // a full quota): parked as throttled it waited for that latch, which a lost answer's
        // network error never lifts — an open waited for ever (folio-sim, seed 100612). It is
        // retried on its backoff instead.
        disposition = .retry
      }
      switch disposition {
      case .requeue:
        _ = try? index.updateTransfer(t.id, at: now) { $0.state = .queued; $0.ownerPID = nil }
        resumeWaiters(t.id, .failure(error))
      case .throttle:
        _ = try? index.updateTransfer(t.id, at: now) {
          $0.state = .throttled
          $0.throttledByCode = error.code.rawValue
          $0.lastError = message
          $0.ownerPID = nil
        }
        if latched[t.domain] == nil {
          latched[t.domain] = error
          lastProbe[t.domain] = now
          events.send(.domainThrottled(t.domain, error: error))
        }
        events.send(.throttled(activity, error: error))
        resumeWaiters(t.id, .failure(error))
      case .retry:
        let attempt = t.attempt + 1
        let at = now.addingTimeInterval(policy.delay(afterFailures: attempt, jitter: jitter(), retryAfter: error.retryAfter))
        _ = try? index.updateTransfer(t.id, at: now) {
          $0.state = .queued
          $0.attempt = attempt
          $0.nextAttemptAt = at
          $0.lastError = message
          $0.ownerPID = nil
        }
        events.send(.retrying(activity, error: error, next: at))
        if waiters[t.id] != nil && attempt >= policy.attemptsPerDrain {
          // The person waiting is told now; an unpinned download nobody waits for is dropped.
          if t.direction == .download && !((try? index.isPinned(domain: t.domain, identifier: t.identifier)) ?? false) {
            _ = try? index.removeTransfer(t.id)
          }
          resumeWaiters(t.id, .failure(error))
        }
      case .fail:
        if t.direction == .download && error.code == .noSuchItem {
          _ = try? index.removeTransfer(t.id)
        } else {
          _ = try? index.updateTransfer(t.id, at: now) {
            $0.state = .failed
            $0.lastError = message
            $0.ownerPID = nil
          }
        }
        events.send(.failed(activity, error: error))
        resumeWaiters(t.id, .failure(error))
      }
    }
    if scope == .requested && waiters.isEmpty && active.isEmpty { stopLoop() }
    kick()
  }
}

/// Sends at most one progress event per transfer and percent: a provider may report every 16 KiB.
final class ProgressGate: Sendable {
  private let last = Mutex<[Int64: Int]>([:])

  func report(_ a: TransferActivity, to events: SyncEventHub, force: Bool = false) {
    let percent = a.percent ?? -1
    let send = last.withLock { last in
      if !force, last[a.transferID] == percent { return false }
      last[a.transferID] = percent
      return true
    }
    if send { events.send(.progress(a)) }
  }

  func forget(_ id: Int64) { last.withLock { _ = $0.removeValue(forKey: id) } }
}
