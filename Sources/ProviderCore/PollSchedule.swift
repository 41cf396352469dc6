import Foundation
import ProviderAPI

/// When the ``ListingPoller`` lists which folder of a storage without a change feed
/// (remote-providers.md §1.3). Pure: time is an argument (a `Duration` since an origin the poller
/// picks), so tests run hours of schedule in microseconds with no clock and no sleep.
///
/// - The folder on screen is listed every `visible` (15–30 s) while it is shown, and at once on
///   demand (Ctrl-R), whatever its backoff.
/// - The folders the working set's items are in are listed every `workingSet` (minutes). A
///   cheap hint of such a folder (its mtime or ETag as its parent's listing states it) skips a
///   listing when it has not changed since the last complete one, and makes the folder due at
///   once when it has. An absence waiting for its confirming listing is never skipped.
/// - At most `maxConcurrent` listings run at once; demanded folders go first, then shown ones.
/// - A listing that failed or was cut short backs off (capped exponential, with jitter).
public struct PollSchedule: Sendable {
  public struct Cadence: Sendable, Equatable {
    public var visible: Duration
    public var workingSet: Duration
    /// Backoff after failed or cut-short listings (base, cap; `attemptsPerDrain` is unused).
    public var retry: RetryPolicy
    public var maxConcurrent: Int

    public init(
      visible: Duration = .seconds(20), workingSet: Duration = .seconds(180),
      retry: RetryPolicy = RetryPolicy(base: 5, cap: 300), maxConcurrent: Int = 2
    ) {
      self.visible = visible
      self.workingSet = workingSet
      self.retry = retry
      self.maxConcurrent = max(1, maxConcurrent)
    }

    public static let standard = Cadence()
  }

  /// Time since the poller's origin.
  public typealias Time = Duration

  struct Entry: Equatable {
    var visible = false
    var inWorkingSet = false
    var demanded = false
    var due: Time
    var failures = 0
    var running = false
    /// The latest hint from the parent's listing, and the one in effect when the last complete
    /// listing started.
    var hint: Data?
    var hintAtStart: Data?
    var listedHint: Data?
    var awaitsConfirmation = false

    var wanted: Bool { visible || inWorkingSet || demanded }
  }

  public let cadence: Cadence
  private(set) var entries: [ItemIdentifier: Entry] = [:]

  public init(cadence: Cadence = .standard) { self.cadence = cadence }

  /// The folders being listed now.
  public var running: Set<ItemIdentifier> { Set(entries.filter(\.value.running).keys) }

  private func interval(_ e: Entry) -> Duration { e.visible ? cadence.visible : cadence.workingSet }

  private mutating func drop(_ folder: ItemIdentifier) {
    if let e = entries[folder], !e.wanted, !e.running { entries[folder] = nil }
  }

  // MARK: - What is wanted

  /// The folder is on screen: listed every `visible` from now (the browser's own enumeration has
  /// just shown it). A working-set folder already due keeps its earlier time.
  public mutating func show(_ folder: ItemIdentifier, at now: Time) {
    var e = entries[folder] ?? Entry(due: now + cadence.visible)
    if !e.visible { e.due = min(e.due, now + cadence.visible) }
    e.visible = true
    entries[folder] = e
  }

  /// Whether the folder is on screen.
  public func isVisible(_ folder: ItemIdentifier) -> Bool { entries[folder]?.visible ?? false }

  public mutating func hide(_ folder: ItemIdentifier) {
    entries[folder]?.visible = false
    drop(folder)
  }

  /// Ctrl-R: listed at once, before anything else, whatever its backoff or hint.
  public mutating func refresh(_ folder: ItemIdentifier, at now: Time) {
    var e = entries[folder] ?? Entry(due: now)
    e.demanded = true
    e.due = now
    entries[folder] = e
  }

  /// The folders that hold working-set items. New ones are due at once (what changed while
  /// Folio was not looking); folders that left the set are forgotten unless shown.
  public mutating func setWorkingSetFolders(_ folders: Set<ItemIdentifier>, at now: Time) {
    for (id, e) in entries where e.inWorkingSet && !folders.contains(id) {
      entries[id]?.inWorkingSet = false
      drop(id)
    }
    for id in folders where entries[id]?.inWorkingSet != true {
      var e = entries[id] ?? Entry(due: now)
      e.inWorkingSet = true
      entries[id] = e
    }
  }

  /// A folder's cheap hint, from its parent's listing. A working-set folder whose hint moved on
  /// since its last complete listing is due at once.
  public mutating func noteHint(_ folder: ItemIdentifier, _ hint: Data, at now: Time) {
    guard var e = entries[folder] else { return }
    e.hint = hint
    if e.inWorkingSet, let listed = e.listedHint, listed != hint { e.due = min(e.due, now) }
    entries[folder] = e
  }

  // MARK: - Running

  /// The folders to list now (marked running), at most the free slots; due working-set folders
  /// whose hint says nothing changed are skipped to their next turn.
  public mutating func take(at now: Time) -> [ItemIdentifier] {
    var free = cadence.maxConcurrent - entries.values.filter(\.running).count
    guard free > 0 else { return [] }
    let due = entries.filter { !$0.value.running && $0.value.wanted && $0.value.due <= now }
      .sorted { a, b in
        let (x, y) = (a.value, b.value)
        if x.demanded != y.demanded { return x.demanded }
        if x.visible != y.visible { return x.visible }
        if x.due != y.due { return x.due < y.due }
        return a.key < b.key
      }
    var taken: [ItemIdentifier] = []
    for (id, e) in due {
      if !e.demanded && !e.visible && !e.awaitsConfirmation, let hint = e.hint, hint == e.listedHint {
        let next = now + interval(e)
        entries[id]?.due = next
        continue
      }
      guard free > 0 else { break }
      free -= 1
      entries[id]?.running = true
      entries[id]?.demanded = false
      entries[id]?.hintAtStart = e.hint
      taken.append(id)
    }
    return taken
  }

  /// A listing ended. A failed or cut-short one backs off (`jitter` in 0..<1); a complete one
  /// resets the backoff and remembers the hint it saw.
  ///
  /// - Parameters:
  ///   - awaitsConfirmation: The folder has items missing once: its next listing is not skipped.
  public mutating func finished(
    _ folder: ItemIdentifier, _ completeness: ListingCompleteness, awaitsConfirmation: Bool, at now: Time,
    jitter: Double
  ) {
    guard var e = entries[folder] else { return }
    e.running = false
    e.awaitsConfirmation = awaitsConfirmation
    if completeness == .complete {
      e.failures = 0
      e.listedHint = e.hintAtStart
      e.due = e.demanded ? now : now + interval(e)
    } else {
      e.failures += 1
      let delay = cadence.retry.delay(afterFailures: e.failures, jitter: jitter)
      e.due = e.demanded ? now : now + max(interval(e), .milliseconds(Int64(delay * 1000)))
    }
    entries[folder] = e
    drop(folder)
  }

  /// A listing that was abandoned (the poller stopped): due again at once, no backoff.
  public mutating func abandoned(_ folder: ItemIdentifier, at now: Time) {
    entries[folder]?.running = false
    entries[folder]?.due = now
    drop(folder)
  }

  /// When something is next due, nil when nothing is wanted or every slot is busy (a listing
  /// that ends wakes the poller).
  public func nextWake() -> Time? {
    guard entries.values.filter(\.running).count < cadence.maxConcurrent else { return nil }
    return entries.values.filter { !$0.running && $0.wanted }.map(\.due).min()
  }
}
