import Foundation
import ProviderAPI
import Testing

@testable import ProviderCore

/// The poller's cadence on virtual time (the schedule is pure: time is an argument).
@Suite struct PollScheduleTests {
  static let shown = ItemIdentifier("shown")
  static let ws1 = ItemIdentifier("ws1")
  static let ws2 = ItemIdentifier("ws2")
  static let cadence = PollSchedule.Cadence(
    visible: .seconds(20), workingSet: .seconds(180), retry: RetryPolicy(base: 5, cap: 300), maxConcurrent: 2)

  func s(_ n: Int64) -> Duration { .seconds(n) }

  /// Runs one listing of each folder taken at `now`, ending as `how`.
  @discardableResult
  func run(
    _ schedule: inout PollSchedule, at now: Duration, _ how: ListingCompleteness = .complete, entries: Int? = nil
  ) -> [ItemIdentifier] {
    let taken = schedule.take(at: now)
    for f in taken { schedule.finished(f, how, awaitsConfirmation: false, entries: entries, at: now, jitter: 0) }
    return taken
  }

  @Test func theShownFolderIsListedEveryTwentySecondsWhileShown() {
    var schedule = PollSchedule(cadence: Self.cadence)
    schedule.show(Self.shown, at: s(0))
    #expect(run(&schedule, at: s(19)).isEmpty, "the browser has just listed it")
    #expect(run(&schedule, at: s(20)) == [Self.shown])
    #expect(run(&schedule, at: s(39)).isEmpty)
    #expect(run(&schedule, at: s(40)) == [Self.shown])
    #expect(schedule.nextWake() == s(60))
    schedule.hide(Self.shown)
    #expect(run(&schedule, at: s(100)).isEmpty)
    #expect(schedule.nextWake() == nil)
  }

  @Test func ctrlRListsAtOnceFirstAndWhateverTheBackoff() {
    var schedule = PollSchedule(cadence: PollSchedule.Cadence(maxConcurrent: 1))
    schedule.show(Self.shown, at: s(0))
    schedule.setWorkingSetFolders([Self.ws1], at: s(0))
    #expect(run(&schedule, at: s(0), .failed) == [Self.ws1])
    #expect(run(&schedule, at: s(20), .failed) == [Self.shown])
    // Both back off now; Ctrl-R on the shown folder takes it at once, before the due one.
    schedule.refresh(Self.shown, at: s(21))
    #expect(schedule.nextWake() == s(21))
    #expect(run(&schedule, at: s(21)) == [Self.shown])
    // A folder neither shown nor in the working set: listed once, then forgotten.
    schedule.refresh(Self.ws2, at: s(22))
    #expect(run(&schedule, at: s(22)) == [Self.ws2])
    #expect(run(&schedule, at: s(10_000)).contains(Self.ws2) == false)
  }

  @Test func atMostNListingsRunAtOnceAndAFinishedOneFreesASlot() {
    var schedule = PollSchedule(cadence: Self.cadence)
    let folders = (0..<5).map { ItemIdentifier("f\($0)") }
    schedule.setWorkingSetFolders(Set(folders), at: s(0))
    let first = schedule.take(at: s(0))
    #expect(first.count == 2)
    #expect(schedule.take(at: s(1)).isEmpty)
    #expect(schedule.nextWake() == nil, "every slot is busy: a finished listing wakes the poller")
    schedule.finished(first[0], .complete, awaitsConfirmation: false, at: s(2), jitter: 0)
    #expect(schedule.take(at: s(2)).count == 1)
    #expect(schedule.running.count == 2)
  }

  @Test func failuresBackOffExponentiallyAndASuccessResets() {
    var schedule = PollSchedule(
      cadence: PollSchedule.Cadence(visible: .seconds(20), workingSet: .seconds(1), retry: RetryPolicy(base: 5, cap: 300)))
    schedule.setWorkingSetFolders([Self.ws1], at: s(0))
    var now = s(0)
    var gaps: [Duration] = []
    for _ in 0..<8 {
      #expect(run(&schedule, at: now, .failed) == [Self.ws1])
      let next = schedule.nextWake()!
      gaps.append(next - now)
      now = next
    }
    // Doubling from 5 s, capped at 300 s; jitter 0 keeps half of each.
    #expect(gaps == [2.5, 5, 10, 20, 40, 80, 150, 150].map { Duration.milliseconds(Int64($0 * 1000)) })
    #expect(run(&schedule, at: now, .complete) == [Self.ws1])
    #expect(schedule.nextWake() == now + s(1))
    // A failing shown folder backs off too, never sooner than its cadence.
    var shown = PollSchedule(cadence: Self.cadence)
    shown.show(Self.shown, at: s(0))
    var t = s(20)
    for _ in 0..<6 {
      _ = run(&shown, at: t, .failed)
      t = shown.nextWake()!
    }
    #expect(t - s(20) > s(6 * 20))
  }

  @Test func anUnchangedHintSkipsABigWorkingSetFolderAndAChangedOneMakesItDue() {
    var schedule = PollSchedule(cadence: Self.cadence)
    schedule.setWorkingSetFolders([Self.ws1], at: s(0))
    schedule.noteHint(Self.ws1, Data("mtime-1".utf8), at: s(0))
    // 30,000 entries: an unchanged hint stands in for a listing for 7.5 min.
    #expect(run(&schedule, at: s(0), entries: 30_000) == [Self.ws1])
    schedule.noteHint(Self.ws1, Data("mtime-1".utf8), at: s(100))
    #expect(run(&schedule, at: s(180)).isEmpty, "unchanged since the last complete listing: skipped")
    #expect(schedule.nextWake() == s(360))
    schedule.noteHint(Self.ws1, Data("mtime-2".utf8), at: s(200))
    #expect(schedule.nextWake() == s(200))
    #expect(run(&schedule, at: s(200)) == [Self.ws1])
  }

  @Test func anAbsenceAwaitingConfirmationIsNeverSkippedByAHint() {
    var schedule = PollSchedule(cadence: Self.cadence)
    schedule.setWorkingSetFolders([Self.ws1], at: s(0))
    schedule.noteHint(Self.ws1, Data("h".utf8), at: s(0))
    #expect(schedule.take(at: s(0)) == [Self.ws1])
    schedule.finished(Self.ws1, .complete, awaitsConfirmation: true, at: s(0), jitter: 0)
    #expect(run(&schedule, at: s(180)) == [Self.ws1])
  }

  @Test func theShownFolderIsNeverSkippedByAHint() {
    var schedule = PollSchedule(cadence: Self.cadence)
    schedule.show(Self.shown, at: s(0))
    schedule.noteHint(Self.shown, Data("h".utf8), at: s(0))
    #expect(run(&schedule, at: s(20)) == [Self.shown])
    #expect(run(&schedule, at: s(40)) == [Self.shown], "in-place edits do not change a folder's mtime")
  }

  @Test func workingSetFoldersThatLeaveTheSetAreForgotten() {
    var schedule = PollSchedule(cadence: Self.cadence)
    schedule.setWorkingSetFolders([Self.ws1, Self.ws2], at: s(0))
    #expect(Set(run(&schedule, at: s(0))) == [Self.ws1, Self.ws2])
    schedule.setWorkingSetFolders([Self.ws2], at: s(10))
    #expect(run(&schedule, at: s(1000)) == [Self.ws2])
  }

  // MARK: - Hints standing in for listings (the size-scaled full listing)

  @Test func howLongAHintStandsInGrowsWithTheFolderWithinBounds() {
    let c = PollSchedule.Cadence.standard
    #expect(c.fullListing(after: .seconds(20), entries: 0) == .seconds(20))
    #expect(c.fullListing(after: .seconds(20), entries: 1_000) == .seconds(20), "small: listed at every turn")
    #expect(c.fullListing(after: .seconds(20), entries: 20_000) == .seconds(300))
    #expect(c.fullListing(after: .seconds(20), entries: 100_000) == .seconds(600), "capped")
    #expect(c.fullListing(after: .seconds(180), entries: 5_000) == .seconds(180), "never under the folder's turn")
  }

  @Test func aSmallWorkingSetFolderIsListedAtEveryTurnWhateverItsHint() {
    // Files rewritten in place leave their folder's mtime alone: a hint alone would hide them
    // for as long as the folder is in the working set.
    var schedule = PollSchedule(cadence: Self.cadence)
    schedule.setWorkingSetFolders([Self.ws1], at: s(0))
    schedule.noteHint(Self.ws1, Data("h".utf8), at: s(0))
    #expect(run(&schedule, at: s(0), entries: 50) == [Self.ws1])
    schedule.noteHint(Self.ws1, Data("h".utf8), at: s(100))
    #expect(schedule.takeJobs(at: s(180)) == [PollSchedule.Job(folder: Self.ws1)], "listed, not skipped nor checked")
  }

  @Test func aBigShownFolderIsCheckedAtItsTurnsAndListedOnceItsListingIsTooOld() {
    var schedule = PollSchedule(cadence: Self.cadence)
    let h = Data("mtime-1".utf8)
    schedule.show(Self.shown, at: s(0))
    // The browser's own listing of it (20,000 entries) is the last complete one.
    schedule.shownListing(Self.shown, hint: h, entries: 20_000, at: s(1))
    #expect(schedule.shownHint(Self.shown) == h)
    var t = s(20)
    var checks = 0
    while t < s(301) {
      #expect(schedule.takeJobs(at: t) == [PollSchedule.Job(folder: Self.shown, expectedHint: h)], "at \(t)")
      schedule.unchanged(Self.shown, hint: h, at: t)
      checks += 1
      #expect(schedule.nextWake() == t + s(20))
      t = t + s(20)
    }
    #expect(checks == 15)
    // Five minutes after the last complete listing: listed in full.
    #expect(schedule.takeJobs(at: s(320)) == [PollSchedule.Job(folder: Self.shown)])
    schedule.listingStarts(Self.shown, hint: h)
    schedule.finished(Self.shown, .complete, awaitsConfirmation: false, entries: 20_000, at: s(330), jitter: 0)
    #expect(schedule.takeJobs(at: s(350)) == [PollSchedule.Job(folder: Self.shown, expectedHint: h)])
    // Ctrl-R lists at once whatever the hint.
    schedule.unchanged(Self.shown, hint: h, at: s(350))
    schedule.refresh(Self.shown, at: s(351))
    #expect(schedule.takeJobs(at: s(351)) == [PollSchedule.Job(folder: Self.shown)])
  }

  @Test func aHintTooFreshToTrustOrAMovedOneMakesTheNextTurnAListing() {
    var schedule = PollSchedule(cadence: Self.cadence)
    schedule.show(Self.shown, at: s(0))
    schedule.shownListing(Self.shown, hint: Data("a".utf8), entries: 20_000, at: s(0))
    // A check that found another hint: the poller lists, from a hint it could not trust.
    #expect(schedule.takeJobs(at: s(20)) == [PollSchedule.Job(folder: Self.shown, expectedHint: Data("a".utf8))])
    schedule.listingStarts(Self.shown, hint: nil)
    schedule.finished(Self.shown, .complete, awaitsConfirmation: false, entries: 20_000, at: s(21), jitter: 0)
    #expect(schedule.takeJobs(at: s(41)) == [PollSchedule.Job(folder: Self.shown)], "no trusted hint: listed")
    schedule.listingStarts(Self.shown, hint: Data("b".utf8))
    schedule.finished(Self.shown, .complete, awaitsConfirmation: false, entries: 20_000, at: s(42), jitter: 0)
    #expect(schedule.takeJobs(at: s(62)) == [PollSchedule.Job(folder: Self.shown, expectedHint: Data("b".utf8))])
    schedule.unchanged(Self.shown, hint: Data("b".utf8), at: s(62))
    // Its parent's listing says the folder moved on: listed at once, not checked.
    schedule.noteHint(Self.shown, Data("c".utf8), at: s(70))
    #expect(schedule.takeJobs(at: s(82)) == [PollSchedule.Job(folder: Self.shown)])
  }

  @Test func theBrowsersListingIsTheBaselineOnlyWhileTheFolderIsShown() {
    var schedule = PollSchedule(cadence: Self.cadence)
    schedule.shownListing(Self.shown, hint: Data("a".utf8), entries: 10, at: s(0))
    #expect(schedule.shownHint(Self.shown) == nil, "not shown: ignored")
    schedule.show(Self.shown, at: s(0))
    schedule.shownListing(Self.shown, hint: Data("a".utf8), entries: 10, at: s(0))
    #expect(schedule.shownHint(Self.shown) == Data("a".utf8))
    schedule.setWorkingSetFolders([Self.shown], at: s(0))
    schedule.hide(Self.shown)
    #expect(schedule.shownHint(Self.shown) == nil)
  }
}
