import Foundation
import ProviderAPI

/// When the ``ListingPoller`` lists which folder of a storage without a change feed
/// (remote-providers.md §1.3). Pure: time is an argument (a `Duration` since an origin the poller
/// picks), so tests run hours of schedule in microseconds with no clock and no sleep.
///
/// - The folder on screen is looked at every `visible` (15–30 s) while it is shown, and listed at
///   once on demand (Ctrl-R), whatever its backoff or hint.
/// - The folders the working set's items are in are looked at every `workingSet` (minutes).
/// - A folder's cheap hint (its mtime or ETag: from its parent's listing, from a STAT of its own,
///   or from the browser's listing of it) stands in for a listing while it has not moved since
///   the last complete listing, for at most ``Cadence/fullListing(after:entries:)``: a time that
///   grows with the folder's size (a big folder costs a lot to list), so that what a hint cannot
///   see (a file rewritten in place leaves its folder's mtime alone) is still seen. A due folder
///   whose hint may stand in is a *check* (``Job/expectedHint``: one STAT, the listing only if the
///   hint moved); a working-set folder whose parent's listing stated an unchanged hint is skipped
///   with no request at all. A hint that moved makes the folder due at once. An absence waiting
///   for its confirming listing is never skipped.
/// - At most `maxConcurrent` jobs run at once; demanded folders go first, then shown ones.
/// - A listing that failed or was cut short backs off (capped exponential, with jitter).
public struct PollSchedule: Sendable {
  public struct Cadence: Sendable, Equatable {
    public var visible: Duration
    public var workingSet: Duration
    /// Backoff after failed or cut-short listings (base, cap; `attemptsPerDrain` is unused).
    public var retry: RetryPolicy
    public var maxConcurrent: Int
    /// How long an unchanged hint may stand in for a listing, per 1,000 entries of the folder.
    public var hintTrustPerThousand: Duration
    /// The longest an unchanged hint stands in for a listing, however big the folder.
    public var hintTrustCap: Duration

    public init(
      visible: Duration = .seconds(20), workingSet: Duration = .seconds(180),
      retry: RetryPolicy = RetryPolicy(base: 5, cap: 300), maxConcurrent: Int = 2,
      hintTrustPerThousand: Duration = .seconds(15), hintTrustCap: Duration = .seconds(600)
    ) {
      self.visible = visible
      self.workingSet = workingSet
      self.retry = retry
      self.maxConcurrent = max(1, maxConcurrent)
      self.hintTrustPerThousand = hintTrustPerThousand
      self.hintTrustCap = hintTrustCap
    }

    public static let standard = Cadence()

    /// How long after a complete listing of a folder of `entries` entries, looked at every
    /// `interval`, an unchanged hint may stand in for listing it again: `hintTrustPerThousand`
    /// per 1,000 entries, at least `interval` (a folder of up to ~1,300 entries on screen is
    /// listed at every turn, as before) and at most `hintTrustCap`. With the standard cadence a
    /// shown folder of 20,000 entries is listed every 5 min and STATed every 20 s between; one
    /// of 100,000 every 10 min.
    public func fullListing(after interval: Duration, entries: Int) -> Duration {
      let scaled = hintTrustPerThousand * (Double(max(0, entries)) / 1000)
      return max(interval, min(scaled, hintTrustCap))
    }
  }

  /// One thing to do about a folder now.
  public struct Job: Sendable, Equatable {
    public var folder: ItemIdentifier
    /// Look first: when the folder's hint (one STAT) is still this, nothing is listed
    /// (``PollSchedule/unchanged(_:hint:at:)``); otherwise it is listed. Nil: list it.
    public var expectedHint: Data?

    public init(folder: ItemIdentifier, expectedHint: Data? = nil) {
      self.folder = folder
      self.expectedHint = expectedHint
    }
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
    /// When the last complete listing (the poller's, or the browser's of the folder it shows)
    /// ended, and how many entries it had: how long its hint may stand in for another.
    var listedAt: Time?
    var entries = 0
    /// The hint of the browser's own listing of the shown folder, when its provider stated one:
    /// what the poller's first listing compares with to tell whether the rows on screen are old.
    var shownHint: Data?

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

  /// The folder is on screen: looked at every `visible` from now (the browser's own enumeration
  /// has just shown it). A working-set folder already due keeps its earlier time.
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
    entries[folder]?.shownHint = nil
    drop(folder)
  }

  /// The browser listed the folder it shows (a complete listing of it): its hint when that
  /// listing began, as its provider stated it, and how many entries it had. Until a listing of
  /// the poller's own ends, this is the last complete listing: the next turn only checks the
  /// hint, and a first listing that finds the same hint leaves the rows on screen alone.
  public mutating func shownListing(_ folder: ItemIdentifier, hint: Data, entries count: Int?, at now: Time) {
    guard var e = entries[folder], e.visible else { return }
    e.shownHint = hint
    if !e.running {
      e.listedHint = hint
      e.hint = hint
      e.listedAt = now
      if let count { e.entries = count }
    }
    entries[folder] = e
  }

  /// The hint of the browser's listing of the folder it shows (``shownListing(_:hint:entries:at:)``).
  public func shownHint(_ folder: ItemIdentifier) -> Data? { entries[folder]?.shownHint }

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

  /// The folders to look at now (marked running), at most the free slots
  /// (``takeJobs(at:)`` without what each job is).
  public mutating func take(at now: Time) -> [ItemIdentifier] { takeJobs(at: now).map(\.folder) }

  /// Whether the folder's last complete listing may still stand in for one now: its hint is
  /// known and has not moved, nothing waits for a confirming listing, and the listing is younger
  /// than ``Cadence/fullListing(after:entries:)``.
  func hintStandsIn(_ e: Entry, at now: Time) -> Bool {
    guard !e.demanded, !e.awaitsConfirmation, let listed = e.listedHint, let at = e.listedAt else { return false }
    if let hint = e.hint, hint != listed { return false }
    return now < at + cadence.fullListing(after: interval(e), entries: e.entries)
  }

  /// The jobs to run now (their folders marked running), at most the free slots. A due folder
  /// whose hint may stand in for a listing is a check; a working-set folder not on screen whose
  /// parent's listing stated that hint unchanged is skipped to its next turn with no job.
  public mutating func takeJobs(at now: Time) -> [Job] {
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
    var taken: [Job] = []
    for (id, e) in due {
      let standsIn = hintStandsIn(e, at: now)
      if standsIn && !e.visible && e.hint != nil {
        let next = now + interval(e)
        entries[id]?.due = next
        continue
      }
      guard free > 0 else { break }
      free -= 1
      entries[id]?.running = true
      entries[id]?.demanded = false
      entries[id]?.hintAtStart = e.hint
      taken.append(Job(folder: id, expectedHint: standsIn ? e.listedHint : nil))
    }
    return taken
  }

  /// A check found the folder's hint as its last complete listing left it: nothing is listed,
  /// and the folder is looked at again at its next turn.
  public mutating func unchanged(_ folder: ItemIdentifier, hint: Data, at now: Time) {
    guard var e = entries[folder] else { return }
    e.running = false
    e.hint = hint
    e.failures = 0
    e.due = e.demanded ? now : now + interval(e)
    entries[folder] = e
    drop(folder)
  }

  /// A listing begins, and this is the folder's hint as read just before it (nil: none, or one
  /// too fresh to trust): what later checks compare with once the listing is complete.
  public mutating func listingStarts(_ folder: ItemIdentifier, hint: Data?) {
    guard entries[folder]?.running == true else { return }
    entries[folder]?.hintAtStart = hint
    if let hint { entries[folder]?.hint = hint }
  }

  /// A listing ended. A failed or cut-short one backs off (`jitter` in 0..<1); a complete one
  /// resets the backoff and remembers the hint it saw and the folder's size.
  ///
  /// - Parameters:
  ///   - awaitsConfirmation: The folder has items missing once: its next listing is not skipped.
  ///   - entries: How many entries a complete listing had.
  public mutating func finished(
    _ folder: ItemIdentifier, _ completeness: ListingCompleteness, awaitsConfirmation: Bool, entries count: Int? = nil,
    at now: Time, jitter: Double
  ) {
    guard var e = entries[folder] else { return }
    e.running = false
    e.awaitsConfirmation = awaitsConfirmation
    if completeness == .complete {
      e.failures = 0
      e.listedHint = e.hintAtStart
      e.listedAt = now
      if let count { e.entries = count }
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
