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
  func run(_ schedule: inout PollSchedule, at now: Duration, _ how: ListingCompleteness = .complete) -> [ItemIdentifier] {
    let taken = schedule.take(at: now)
    for f in taken { schedule.finished(f, how, awaitsConfirmation: false, at: now, jitter: 0) }
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

  @Test func anUnchangedHintSkipsAWorkingSetFolderAndAChangedOneMakesItDue() {
    var schedule = PollSchedule(cadence: Self.cadence)
    schedule.setWorkingSetFolders([Self.ws1], at: s(0))
    schedule.noteHint(Self.ws1, Data("mtime-1".utf8), at: s(0))
    #expect(run(&schedule, at: s(0)) == [Self.ws1])
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
}
