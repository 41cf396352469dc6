import Foundation
import TestExecution
import Testing

@testable import ExtensionConformance

/// The kit against small fixture extensions (Fixtures/, Python standard library): it passes a
/// good one and fails the right check of each broken one. Each test runs real processes.
@Suite(.offThePool) struct ConformanceKitTests {
  @Test func aGoodExtensionPassesEveryCheck() throws {
    let store = try KitHarness.storeFolder()
    defer { KitHarness.discard(store) }
    let run = try KitHarness.run(
      KitHarness.fixture("good.py"), config: ["root": store], unavailable: ["root": store + "/missing"])
    #expect(run.failed.isEmpty, "\(run.report)")
    #expect(run.skipped.isEmpty, "everything is declared, nothing may be skipped:\n\(run.report)")
    #expect(Set(run.results.map(\.group)) == Set(ConformanceOptions.groups), "\(run.report)")
    #expect(run.lines.last?.hasSuffix("0 failed, 0 skipped") == true, "\(run.report)")
    // The kit cleans up: its scratch folder is gone from the store's root.
    let after = try KitHarness.run(KitHarness.fixture("good.py"), config: ["root": store], only: ["items"], trace: true)
    #expect(!after.report.contains(#""name":"folio-kit-"#), "the scratch folder was left behind:\n\(after.report)")
  }

  @Test func anExtensionThatPrintsOnStdoutFailsPurity() throws {
    let store = try KitHarness.storeFolder()
    defer { KitHarness.discard(store) }
    let run = try KitHarness.run(KitHarness.fixture("noisy-stdout.py"), config: ["root": store], only: ["purity"])
    #expect(run.outcome("purity/every-stdout-line-is-json-rpc") != .ok, "\(run.report)")
    #expect(run.failed == ["purity/every-stdout-line-is-json-rpc"], "\(run.report)")
    #expect(run.report.contains("stdout noise: debug: item #root"), "\(run.report)")
  }

  /// Stdout before the first answer, and a host line that is not JSON, each fail their check.
  @Test(arguments: [
    ("banner.py", ["purity/nothing-before-the-first-answer", "purity/every-stdout-line-is-json-rpc"]),
    ("dies-on-garbage.py", ["purity/malformed-host-line-survived"]),
  ])
  func stdoutAndFramingRulesFailTheirChecks(_ fixture: String, _ expected: [String]) throws {
    let store = try KitHarness.storeFolder()
    defer { KitHarness.discard(store) }
    let run = try KitHarness.run(KitHarness.fixture(fixture), config: ["root": store], only: ["purity"])
    #expect(run.failed == expected, "\(run.report)")
  }

  @Test func anExtensionThatRepeatsAnItemAcrossPagesFailsPaging() throws {
    let store = try KitHarness.storeFolder()
    defer { KitHarness.discard(store) }
    let run = try KitHarness.run(KitHarness.fixture("duplicate-page.py"), config: ["root": store], only: ["paging"])
    #expect(run.failed == ["paging/each-child-exactly-once-in-pages-of-100"], "\(run.report)")
    // The failure shows what was sent and what came back.
    let failure = try #require(run.results.first { $0.isFailure })
    #expect(failure.transcript.contains { $0.hasPrefix("-> ") && $0.contains("enumerateItems") }, "\(run.report)")
    #expect(failure.transcript.contains { $0.hasPrefix("<- ") && $0.contains("nextPage") }, "\(run.report)")
  }

  @Test func anExtensionWhoseStaleModifyOverwritesFailsNeverLosesBytes() throws {
    let store = try KitHarness.storeFolder()
    defer { KitHarness.discard(store) }
    let run = try KitHarness.run(KitHarness.fixture("stale-overwrite.py"), config: ["root": store], only: ["writes"])
    #expect(run.failed == ["writes/stale-base-never-loses-bytes"], "\(run.report)")
  }

  @Test func anExtensionThatSaysNoSuchItemWhenOfflineFailsUnavailable() throws {
    let store = try KitHarness.storeFolder()
    defer { KitHarness.discard(store) }
    let run = try KitHarness.run(
      KitHarness.fixture("offline-noitem.py"), config: ["root": store], unavailable: ["root": store + "/missing"],
      only: ["unavailable"])
    #expect(run.outcome("unavailable/initialize") == .ok, "\(run.report)")
    for check in ["item-root", "item-unknown-id", "enumerate-root", "fetch", "create", "delete"] {
      #expect(run.failed.contains("unavailable/" + check), "\(check):\n\(run.report)")
    }
    #expect(run.report.contains("-1005 (noSuchItem) while unavailable"), "\(run.report)")
  }

  /// Declared capabilities only: a read-only extension without a change feed is skipped, not
  /// failed, for writes and changes, and never called for them (the fixture prints a line on
  /// stdout if it is, which would fail purity).
  @Test func aReadOnlyExtensionIsSkippedNotFailedForWrites() throws {
    let store = try KitHarness.storeFolder()
    defer { KitHarness.discard(store) }
    let run = try KitHarness.run(KitHarness.fixture("read-only.py"), config: ["root": store])
    #expect(run.failed.isEmpty, "\(run.report)")
    for check in [
      "writes/stale-base-never-loses-bytes", "changes/garbage-anchor-is-1002", "paging/prepare-250-children",
      "names/round-trip-space", "concurrency/kill-9-mid-upload-then-replay-creates-once",
    ] {
      guard case .skip = run.outcome(check) else {
        Issue.record("\(check) is not skipped:\n\(run.report)")
        continue
      }
    }
    #expect(run.outcome("capabilities/stdout-pure-in-every-session") == .ok, "\(run.report)")
  }

  /// The value of a setting `describe` marks secret never appears in what the kit prints, with
  /// --trace or in a failure's transcript.
  @Test func aSecretSettingIsRedacted() throws {
    let store = try KitHarness.storeFolder()
    defer { KitHarness.discard(store) }
    let run = try KitHarness.run(
      KitHarness.fixture("duplicate-page.py"), config: ["root": store, "token": "hunter2-kit-secret"],
      only: ["items", "paging"], trace: true)
    #expect(run.report.contains("«redacted»"), "\(run.report)")
    #expect(!run.report.contains("hunter2-kit-secret"), "\(run.report)")
  }

  /// An extension that dies in the middle of a check fails that check, is started again for the
  /// next ones, and the run says it crashed.
  @Test func anExtensionThatCrashesFailsTheCheckAndTheRun() throws {
    let store = try KitHarness.storeFolder()
    defer { KitHarness.discard(store) }
    let run = try KitHarness.run(
      KitHarness.fixture("crash-on-rename.py"), config: ["root": store], only: ["writes", "capabilities"])
    #expect(run.failed == ["writes/rename-keeps-id-and-bumps-metadata", "capabilities/no-crash-during-the-run"], "\(run.report)")
    #expect(run.outcome("writes/content-edit-bumps-content-version") == .ok, "\(run.report)")
    #expect(run.report.contains("exit 70"), "\(run.report)")
  }

  /// A call that is never answered fails its check at the deadline, and the run goes on (the
  /// deadlines of calls are scaled down to a tenth: 3 s for a call; the handshake keeps its 10 s,
  /// which a loaded machine may need to start the fixture).
  @Test func anUnansweredCallFailsItsCheckAtTheDeadline() throws {
    let store = try KitHarness.storeFolder()
    defer { KitHarness.discard(store) }
    let run = try KitHarness.run(
      KitHarness.fixture("silent-item.py"), config: ["root": store], only: ["items"], deadlineScale: 0.1)
    #expect(
      run.failed == ["items/root-is-a-folder", "items/id-version-and-token-sizes", "items/unknown-item-is-1005"],
      "\(run.report)")
    #expect(run.report.contains("no answer within 3 s"), "\(run.report)")
    #expect(run.outcome("items/names-valid") == .ok, "\(run.report)")
  }

  /// A command that cannot start fails the checks with the reason; the kit does not hang or trap.
  @Test func aMissingCommandFailsWithTheReason() throws {
    let run = try KitHarness.run(["/nonexistent/folio-ext-nothing"], only: ["handshake"])
    #expect(run.outcome("handshake/describe-before-initialize") != .ok, "\(run.report)")
    #expect(run.report.contains("cannot start"), "\(run.report)")
  }
}

/// The checks of group 10 against extensions that break its rules.
@Suite(.offThePool) struct ConformanceKitConcurrencyTests {
  /// Answering a cancel is the promise that `dest` is no longer written.
  @Test func anExtensionThatWritesAfterItsCancelAnswerFails() throws {
    let store = try KitHarness.storeFolder()
    defer { KitHarness.discard(store) }
    let run = try KitHarness.run(KitHarness.fixture("write-after-cancel.py"), config: ["root": store], only: ["concurrency"])
    #expect(run.failed == ["concurrency/cancel-answered-within-5s-and-dest-stops"], "\(run.report)")
    #expect(run.report.contains("after the answer"), "\(run.report)")
  }

  /// An upload visible under its name before its bytes are all there is what `kill -9` exposes.
  @Test func anExtensionWhoseUploadIsVisibleHalfWrittenFailsTheKillCheck() throws {
    let store = try KitHarness.storeFolder()
    defer { KitHarness.discard(store) }
    let run = try KitHarness.run(KitHarness.fixture("partial-visible.py"), config: ["root": store], only: ["concurrency"])
    #expect(run.failed == ["concurrency/kill-9-mid-upload-then-replay-creates-once"], "\(run.report)")
    #expect(run.report.contains("a partial object after kill -9"), "\(run.report)")
  }
}
