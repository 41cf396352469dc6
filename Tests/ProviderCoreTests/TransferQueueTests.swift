import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

#if canImport(Glibc)
  import Glibc
#endif

@testable import ProviderCore
@testable import TestSupport

/// The transfer queue over the durable journal: uploads, resumption after a crash, backoff,
/// throttling, conflicts.
@Suite struct TransferQueueTests {
  @Test func aPutUploadsTheStagedBytesAndAdoptsThemAsTheItemsContent() async throws {
    let f = try SyncFixture()
    let ids = try await f.engine.put([try f.source("a.txt", "alpha"), try f.source("b.txt", "beta")], into: try await f.memory.item(for: .root), in: f.domain)
    let report = await f.queue.drain()
    #expect(report.succeeded && report.completed.map(\.transferID).sorted() == ids.sorted())
    let names = try await f.children().map(\.filename.lossyString).sorted()
    #expect(names == ["src-a.txt", "src-b.txt"])
    for item in try await f.children() {
      let local = try #require(try f.store.localFile(domain: SyncFixture.cloud, identifier: item.identifier))
      #expect(try Data(contentsOf: local.url) == (await f.memory.content(of: item.identifier)))
      #expect(local.content.state == .clean && local.content.version == item.version)
    }
    #expect(f.storeFiles().staged.isEmpty)
    #expect(try f.index.pendingTransfers().isEmpty)
  }

  /// …and the name it will have is said before the upload ends (a browser's pending row shows it).
  @Test func aTakenNameIsBouncedNeverReplaced() async throws {
    let f = try SyncFixture()
    await f.memory.add(ItemName("src-a.txt"), content: Data("theirs".utf8))
    let recorder = await SyncEventRecorder.follow(f.engine.events)
    _ = try await f.engine.put([try f.source("a.txt", "mine")], into: try await f.memory.item(for: .root), in: f.domain)
    #expect(await f.queue.drain().succeeded)
    await recorder.wait { events in events.contains { if case .completed = $0 { true } else { false } } }
    let names = await recorder.events.compactMap { e -> String? in
      if case .progress(let a) = e { return a.name?.lossyString }
      return nil
    }
    #expect(names.contains("src-a 2.txt"), "\(names)")
    let events = await recorder.events
    let renamedAt = events.firstIndex { if case .progress(let a) = $0 { a.name?.lossyString == "src-a 2.txt" } else { false } }
    let completedAt = events.firstIndex { if case .completed = $0 { true } else { false } }
    #expect(renamedAt != nil && completedAt != nil && renamedAt! < completedAt!)
    let byName = Dictionary(uniqueKeysWithValues: try await f.children().map { ($0.filename.lossyString, $0.identifier) })
    #expect(await f.text(of: try #require(byName["src-a.txt"])) == "theirs")
    #expect(await f.text(of: try #require(byName["src-a 2.txt"])) == "mine")
  }

  /// A new file's upload says how far it is, from the provider's own count (here in 32 KiB steps,
  /// as a storage acknowledging writes would): the browser's `↑ n%` rises to 100 and never falls
  /// back before the end.
  @Test func aNewFilesUploadReportsTheProvidersProgressUpToItsSize() async throws {
    let f = try SyncFixture()
    await f.memory.setUploadStep(32 * 1024)
    let size: Int64 = 200_000
    let recorder = await SyncEventRecorder.follow(f.engine.events)
    let source = try f.source("big.bin", String(repeating: "x", count: Int(size)))
    let ids = try await f.engine.put([source], into: try await f.memory.item(for: .root), in: f.domain)
    #expect(await f.queue.drain().succeeded)
    await recorder.wait { events in events.contains { if case .completed = $0 { true } else { false } } }
    let done = await recorder.events.compactMap { e -> Int64? in
      if case .progress(let a) = e, a.transferID == ids[0] { return a.completedBytes }
      return nil
    }
    #expect(done == done.sorted(), "\(done)")
    #expect(done.last == size, "\(done)")
    #expect(Set(done.filter { $0 > 0 && $0 < size }).count >= 3, "\(done)")
  }

  /// …and so does an edit's upload (`modifyItem`), from the same count.
  @Test func anEditsUploadReportsTheProvidersProgressUpToItsSize() async throws {
    let f = try SyncFixture()
    await f.memory.setUploadStep(32 * 1024)
    let size: Int64 = 200_000
    let item = await f.memory.add(ItemName("a.txt"), content: Data("v1".utf8))
    let recorder = await SyncEventRecorder.follow(f.engine.events)
    let url = try await f.engine.materialize(item, in: f.domain, forOpen: true)
    try Data(repeating: 0x79, count: Int(size)).write(to: url)
    let id = try #require(try await f.engine.noticeEdits(item, in: f.domain))
    #expect(await f.queue.drain().succeeded)
    await recorder.wait { events in events.contains { if case .completed(let a, _) = $0 { a.transferID == id } else { false } } }
    let done = await recorder.events.compactMap { e -> Int64? in
      if case .progress(let a) = e, a.transferID == id { return a.completedBytes }
      return nil
    }
    #expect(done == done.sorted(), "\(done)")
    #expect(done.last == size, "\(done)")
    #expect(Set(done.filter { $0 > 0 && $0 < size }).count >= 3, "\(done)")
  }

  /// `kill -9` after the row committed and while the upload ran: a new queue (a new process)
  /// resumes the row of the dead process, once.
  @Test func aNewQueueResumesTheRunningRowOfADeadProcess() async throws {
    let f = try SyncFixture()
    let ids = try await f.engine.put([try f.source("a.txt", "alpha")], into: try await f.memory.item(for: .root), in: f.domain)
    let dead = try SyncFixture.deadPID()
    #expect(try f.index.claimTransfer(ids[0], pid: dead) != nil)
    let restarted = f.restartedEngine()
    #expect(await restarted.queue.drain().succeeded)
    #expect(try await f.children().count == 1)
    #expect(await f.memory.calls.filter { $0 == .create }.count == 1)
  }

  @Test func aRowRunningInAnotherLiveProcessIsLeftToIt() async throws {
    let f = try SyncFixture()
    let ids = try await f.engine.put([try f.source("a.txt", "alpha")], into: try await f.memory.item(for: .root), in: f.domain)
    let other = Process()
    other.executableURL = URL(fileURLWithPath: "/bin/sleep")
    other.arguments = ["30"]
    try other.run()
    defer {
      kill(other.processIdentifier, SIGKILL)
      other.waitUntilExit()
    }
    #expect(try f.index.claimTransfer(ids[0], pid: other.processIdentifier) != nil)
    let report = await f.restartedEngine().queue.drain()
    #expect(report.unfinished.map(\.activity.transferID) == ids)
    #expect(await f.memory.calls.filter { $0 == .create }.isEmpty)
  }

  /// A crash after the provider created the item but before the last commit: the resumed upload
  /// finds the item it made and creates nothing twice.
  @Test func aCreateThatLandedBeforeTheCrashIsNotRepeated() async throws {
    let f = try SyncFixture()
    let ids = try await f.engine.put([try f.source("a.txt", "alpha")], into: try await f.memory.item(for: .root), in: f.domain)
    let row = try #require(try f.index.transfer(id: ids[0]))
    let dead = try SyncFixture.deadPID()
    let created = try await f.memory.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("src-a.txt"), contentType: .plainText), fields: [.contents],
      contents: URL(fileURLWithPath: try #require(row.stagedPath).lossyString), options: [])
    try f.index.updateTransfer(ids[0]) {
      $0.resultIdentifier = created.identifier
      $0.state = .running
      $0.ownerPID = dead
    }
    #expect(await f.restartedEngine().queue.drain().succeeded)
    #expect(try await f.children().map(\.identifier) == [created.identifier])
    #expect(try f.store.localFile(domain: SyncFixture.cloud, identifier: created.identifier) != nil)
  }

  @Test func transientErrorsBackOffExponentiallyThenSucceed() async throws {
    let f = try SyncFixture()
    let failures = Counter()
    await f.memory.setHook { call throws(ProviderError) in
      if call == .create, await failures.next() <= 2 {
        throw ProviderError(.serverBusy, "503 Service Unavailable")
      }
    }
    let recorder = await SyncEventRecorder.follow(f.engine.events)
    _ = try await f.engine.put([try f.source("a.txt", "alpha")], into: try await f.memory.item(for: .root), in: f.domain)
    let report = await f.queue.drain()
    #expect(report.succeeded)
    await recorder.wait { $0.contains { if case .completed = $0 { true } else { false } } }
    let retries = await recorder.events.compactMap { e -> ProviderError? in
      if case .retrying(_, let error, _) = e { return error } else { return nil }
    }
    #expect(retries.map(\.code) == [.serverBusy, .serverBusy])
  }

  @Test func theRetryPolicyDoublesToItsCapWithEqualJitter() {
    let p = RetryPolicy(base: 1, cap: 300)
    #expect(p.delay(afterFailures: 1, jitter: 0) == 0.5)
    #expect(p.delay(afterFailures: 1, jitter: 1) == 1)
    #expect(p.delay(afterFailures: 4, jitter: 0.999) <= 8 && p.delay(afterFailures: 4, jitter: 0) == 4)
    #expect(p.delay(afterFailures: 20, jitter: 1) == 300)
    #expect(p.delay(afterFailures: 1000, jitter: 0) == 150)
    #expect(p.delay(afterFailures: 1, jitter: 0, retryAfter: 7) == 7)
    #expect(p.delay(afterFailures: 1, jitter: 0, retryAfter: 10_000) == 300)
  }

  @Test(arguments: [
    (ProviderError.Code.notAuthenticated, FailureDisposition.throttle), (.serverUnreachable, .throttle),
    (.insufficientQuota, .throttle), (.cannotSynchronize, .throttle), (.serverBusy, .retry), (.ioError, .retry),
    (.versionNoLongerAvailable, .retry), (ProviderError.Code(-9999, "unknown"), .retry), (.noSuchItem, .fail),
    (.noPermission, .fail), (.cancelled, .requeue),
  ])
  func failuresAreClassifiedByCode(_ code: ProviderError.Code, _ expected: FailureDisposition) {
    #expect(FailureDisposition.of(ProviderError(code, "x")) == expected)
  }

  @Test func aResolvableErrorLatchesTheDomainUntilResolved() async throws {
    let f = try SyncFixture()
    let signedIn = Flag()
    await f.memory.setHook { call throws(ProviderError) in
      if call == .create, !(await signedIn.value) { throw ProviderError(.notAuthenticated, "sign in to cloud") }
    }
    let recorder = await SyncEventRecorder.follow(f.engine.events)
    let root = try await f.memory.item(for: .root)
    _ = try await f.engine.put([try f.source("a", "1"), try f.source("b", "2"), try f.source("c", "3")], into: root, in: f.domain)
    let report = await f.queue.drain()
    #expect(!report.succeeded)
    // One failure latched the domain: the others were not even tried (at most the two that ran at once).
    #expect(await f.memory.calls.filter { $0 == .create }.count <= 2)
    #expect(report.unfinished.allSatisfy { $0.state != .failed })
    #expect(report.unfinished.contains { $0.state == .throttled && $0.recovery == "Sign in to the location again." })
    // The browser's mode: nothing moves until the sign-in resolves it, then everything does.
    await f.queue.start()
    await signedIn.set()
    await f.queue.resolve(domain: SyncFixture.cloud)
    await recorder.wait { events in events.filter { if case .completed = $0 { true } else { false } }.count == 3 }
    await f.queue.stop()
    #expect(try await f.children().count == 3)
    #expect(await recorder.events.contains(.domainResumed(SyncFixture.cloud)))
  }

  @Test func serverUnreachableIsProbedAndReleasedWhenTheServerIsBack() async throws {
    let f = try SyncFixture()
    let online = Flag()
    let root = try await f.memory.item(for: .root)
    await f.memory.setHook { call throws(ProviderError) in
      if !(await online.value) { throw ProviderError(.serverUnreachable, "no route to the server") }
    }
    let recorder = await SyncEventRecorder.follow(f.engine.events)
    _ = try await f.engine.put([try f.source("a", "1")], into: root, in: f.domain)
    await f.queue.start()
    await recorder.wait { $0.contains { if case .domainThrottled = $0 { true } else { false } } }
    await online.set()
    await recorder.wait { $0.contains { if case .completed = $0 { true } else { false } } }
    await f.queue.stop()
    #expect(await f.memory.calls.contains(.anchor))
  }

  /// Issue 9 item 4: `folio put` while the server was down left its upload throttled in the
  /// journal. The browser's queue held no latch for it, so nothing probed or released it: it
  /// waited, shown stuck, until Retry. A running queue now tries such rows itself.
  @Test func aRowAnotherProcessLeftThrottledIsSentByARunningQueue() async throws {
    let f = try SyncFixture(limits: TransferQueue.Limits(uploads: 2, downloads: 3, probeInterval: 3600))
    let root = try await f.memory.item(for: .root)
    let ids = try await f.engine.put([try f.source("a", "1")], into: root, in: f.domain)
    try f.index.updateTransfer(ids[0]) {
      $0.state = .throttled
      $0.throttledByCode = ProviderError.Code.serverUnreachable.rawValue
      $0.lastError = "cannot reach the server"
    }
    let recorder = await SyncEventRecorder.follow(f.engine.events)
    await f.queue.start()
    await recorder.wait { $0.contains { if case .completed = $0 { true } else { false } } }
    await f.queue.stop()
    #expect(try await f.children().map(\.filename) == [ItemName("src-a")])
  }

  /// Issue 9 item 4: the server answering (a sync, a listing) lifts a latch on
  /// `serverUnreachable` at once — not at the next probe, 15 s away — and only that latch.
  @Test func theServerAnsweringReleasesUnreachableUploadsAtOnce() async throws {
    let f = try SyncFixture(limits: TransferQueue.Limits(uploads: 2, downloads: 3, probeInterval: 3600))
    let online = Flag()
    let root = try await f.memory.item(for: .root)
    await f.memory.setHook { call throws(ProviderError) in
      if !(await online.value) { throw ProviderError(.serverUnreachable, "no route to the server") }
    }
    let recorder = await SyncEventRecorder.follow(f.engine.events)
    _ = try await f.engine.put([try f.source("a", "1")], into: root, in: f.domain)
    await f.queue.start()
    await recorder.wait { $0.contains { if case .domainThrottled = $0 { true } else { false } } }
    let sync = try #require(f.engine.workingSetSync(for: SyncFixture.cloud))
    _ = try? await sync.syncNow()
    await online.set()
    _ = try await sync.syncNow()
    await recorder.wait { $0.contains { if case .completed = $0 { true } else { false } } }
    #expect(await recorder.events.contains(.syncResumed(SyncFixture.cloud)))
    await f.queue.stop()
  }

  @Test func aFailedTransferWaitsForRetry() async throws {
    let f = try SyncFixture()
    let folder = await f.memory.add(ItemName("Locked"), folder: true)
    let ids = try await f.engine.put([try f.source("a", "1")], into: folder, in: f.domain)
    await f.memory.setHook { call throws(ProviderError) in
      if call == .create { throw ProviderError(.noPermission, "the folder is read-only") }
    }
    let report = await f.queue.drain()
    #expect(report.unfinished.map(\.state) == [.failed])
    #expect(try f.index.transfer(id: ids[0])?.lastError?.contains("read-only") == true)
    // The staged bytes are still there for the retry (or for `domain remove --keep-unsynced`).
    #expect(f.storeFiles().staged.count == 1)
    await f.memory.setHook { _ throws(ProviderError) in }
    try await f.queue.retry(ids[0])
    #expect(try f.index.transfer(id: ids[0])?.state == .queued)
  }

  /// folio-sim's seed 13: with an upload refused for quota, the domain was held whole and an open
  /// (a download) waited for ever. A full account refuses writes, not reads.
  @Test func aFullAccountHoldsUploadsNotDownloads() async throws {
    let f = try SyncFixture()
    let remote = await f.memory.add(ItemName("read.txt"), content: Data("theirs".utf8))
    _ = try await f.engine.put([try f.source("a", "mine")], into: try await f.memory.item(at: .root), in: f.domain)
    await f.memory.setHook { call throws(ProviderError) in
      if call == .create { throw ProviderError(.insufficientQuota, "the account is full") }
    }
    let report = await f.queue.drain()
    #expect(report.unfinished.map(\.state) == [.throttled])
    #expect(await f.queue.latchedError(for: SyncFixture.cloud)?.code == .insufficientQuota)
    let url = try await f.engine.materialize(remote, in: f.domain)
    #expect(try String(contentsOf: url, encoding: .utf8) == "theirs")
  }

  /// folio-sim's seed 100612: under a full quota's latch, a download whose answer was lost (a
  /// network error, resolvable) was parked as throttled behind that latch, which only freed space
  /// lifts: an open waited for ever. It is retried on its backoff instead.
  @Test func aDownloadFailingUnderAnotherLatchIsRetriedNotParked() async throws {
    let f = try SyncFixture()
    let remote = await f.memory.add(ItemName("read.txt"), content: Data("theirs".utf8))
    _ = try await f.engine.put([try f.source("a", "mine")], into: try await f.memory.item(at: .root), in: f.domain)
    let lost = Flag()
    await f.memory.setHook { call throws(ProviderError) in
      if call == .create { throw ProviderError(.insufficientQuota, "the account is full") }
      if call == .fetch, await !lost.value {
        await lost.set()
        throw ProviderError(.serverUnreachable, "the connection closed before the answer")
      }
    }
    _ = await f.queue.drain()
    #expect(await f.queue.latchedError(for: SyncFixture.cloud)?.code == .insufficientQuota)
    let url = try await f.engine.materialize(remote, in: f.domain)
    #expect(await lost.value)
    #expect(try String(contentsOf: url, encoding: .utf8) == "theirs")
  }

  /// folio-sim's seed 33: a new file put into a folder deleted elsewhere before it was sent failed
  /// for good, its bytes only in the staged copy. It goes to the top of the location, as edits of
  /// a deleted file do.
  @Test func aNewFileWhoseFolderWasDeletedGoesToTheTop() async throws {
    let f = try SyncFixture()
    let folder = await f.memory.add(ItemName("Gone"), folder: true)
    _ = try await f.engine.put([try f.source("a", "mine")], into: folder, in: f.domain)
    try await f.memory.deleteItem(folder.identifier, baseVersion: nil, options: .recursive)
    let report = await f.queue.drain()
    #expect(report.succeeded, "\(report)")
    let top = try await f.children()
    let kept = try #require(top.first { $0.filename == ItemName("src-a") })
    #expect(await f.text(of: kept.identifier) == "mine")
    #expect(f.storeFiles().staged.isEmpty)
  }
}

actor Counter {
  private var n = 0
  func next() -> Int {
    n += 1
    return n
  }
}

actor Flag {
  private(set) var value = false
  func set() { value = true }
  func clear() { value = false }
}
