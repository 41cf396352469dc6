import ProviderAPI
import Testing

@testable import ProviderCore
@testable import TestSupport

/// Collects a service's events until a condition holds. Waits on events, never on time.
actor EventLog {
  var events: [EnumerationEvent] = []
  private var waiters: [(@Sendable ([EnumerationEvent]) -> Bool, CheckedContinuation<Void, Never>)] = []

  func append(_ e: EnumerationEvent) {
    events.append(e)
    let ready = waiters.enumerated().filter { $0.element.0(events) }.map(\.offset)
    for i in ready.reversed() { waiters.remove(at: i).1.resume() }
  }

  func wait(until condition: @escaping @Sendable ([EnumerationEvent]) -> Bool) async {
    if condition(events) { return }
    await withCheckedContinuation { waiters.append((condition, $0)) }
  }

  func pages(of ticket: EnumerationTicket) -> [(offset: Int, count: Int, complete: Bool)] {
    events.compactMap {
      if case .page(let t, let o, let items, _, let c) = $0, t == ticket { return (o, items.count, c) }
      return nil
    }
  }

  static func follow(_ service: EnumerationService) -> (EventLog, Task<Void, Never>) {
    let log = EventLog()
    let task = Task {
      for await e in service.events { await log.append(e) }
    }
    return (log, task)
  }
}

func pageCount(_ ticket: EnumerationTicket) -> @Sendable ([EnumerationEvent]) -> Bool {
  { events in
    events.filter { if case .page(let t, _, _, _, _) = $0 { return t == ticket } else { return false } }.count >= 1
  }
}

func loaded(_ ticket: EnumerationTicket, atLeast n: Int) -> @Sendable ([EnumerationEvent]) -> Bool {
  { events in
    events.reduce(0) { acc, e in
      if case .page(let t, _, let items, _, _) = e, t == ticket { return acc + items.count }
      return acc
    } >= n
  }
}

@Suite struct EnumerationServiceTests {
  @Test func firstPageThenOnePrefetchedPageOnly() async throws {
    let provider = InMemoryProvider()
    await provider.addFiles(count: 1000)
    let service = EnumerationService(prefetchPages: 1)
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let ticket = await service.open(
      EnumerationRequest(container: .root, suggestedPageSize: 100), on: provider, watch: false)
    await log.wait(until: loaded(ticket, atLeast: 200))
    // Nothing more is fetched until the reader moves.
    let calls = await provider.calls.filter { $0 == .enumerate }.count
    #expect(calls == 2)
    let pages = await log.pages(of: ticket)
    #expect(pages.map(\.offset) == [0, 100])
    #expect(pages.allSatisfy { $0.count == 100 && !$0.complete })
  }

  @Test func readerMovingAheadFetchesMorePages() async throws {
    let provider = InMemoryProvider()
    await provider.addFiles(count: 1000)
    let service = EnumerationService(prefetchPages: 1)
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let ticket = await service.open(EnumerationRequest(container: .root, suggestedPageSize: 100), on: provider, watch: false)
    await log.wait(until: loaded(ticket, atLeast: 200))
    await service.reading(ticket, upTo: 450)
    await log.wait(until: loaded(ticket, atLeast: 600))
    let pages = await log.pages(of: ticket)
    #expect(pages.map(\.offset) == [0, 100, 200, 300, 400, 500])
  }

  @Test func readAllCompletesWithEveryItemInOrder() async throws {
    let provider = InMemoryProvider()
    await provider.addFiles(count: 250)
    let service = EnumerationService()
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let ticket = await service.open(EnumerationRequest(container: .root, suggestedPageSize: 100), on: provider, watch: false)
    await service.readAll(ticket)
    await log.wait(until: { events in
      events.contains { if case .page(_, _, _, _, true) = $0 { return true } else { return false } }
    })
    let names = await log.events.flatMap { e -> [String] in
      if case .page(_, _, let items, _, _) = e { return items.map { $0.filename.lossyString } }
      return []
    }
    #expect(names.count == 250)
    #expect(names == names.sorted())
    #expect(await log.pages(of: ticket).last?.complete == true)
  }

  @Test func supersededEnumerationIsCancelledAndItsPageDropped() async throws {
    let provider = InMemoryProvider()
    await provider.addFiles(count: 10)
    let gate = Gate()
    await provider.setHook { call throws(ProviderError) in if call == .enumerate { await gate.pass() } }
    let service = EnumerationService()
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let first = await service.open(EnumerationRequest(container: .root), on: provider, slot: "list", watch: false)
    await gate.waitForArrivals(1)
    let second = await service.open(EnumerationRequest(container: .root), on: provider, slot: "list", watch: false)
    #expect(await service.isCurrent(first) == false)
    await gate.open()
    await log.wait(until: pageCount(second))
    #expect(await log.pages(of: first).isEmpty)
    #expect(await log.pages(of: second).count == 1)
  }

  @Test func differentSlotsRunSideBySide() async throws {
    let provider = InMemoryProvider()
    await provider.addFiles(count: 5)
    let service = EnumerationService()
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let a = await service.open(EnumerationRequest(container: .root), on: provider, slot: "list", watch: false)
    let b = await service.open(EnumerationRequest(container: .root), on: provider, slot: "picker", watch: false)
    await log.wait(until: pageCount(a))
    await log.wait(until: pageCount(b))
    #expect(await service.isCurrent(a))
    #expect(await service.isCurrent(b))
  }

  @Test func failureIsReportedOnceWithTheProviderCode() async throws {
    let provider = InMemoryProvider()
    await provider.setHook { call throws(ProviderError) in
      if call == .enumerate { throw ProviderError(.serverUnreachable, "the server does not answer") }
    }
    let service = EnumerationService()
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let t = await service.open(EnumerationRequest(container: .root), on: provider, watch: false)
    await log.wait(until: { $0.contains { if case .failed = $0 { return true } else { return false } } })
    let failures = await log.events.compactMap { e -> ProviderError? in
      if case .failed(let tt, let err) = e, tt == t { return err }
      return nil
    }
    #expect(failures.map(\.code) == [.serverUnreachable])
    #expect(failures.first?.isResolvable == true)
  }

  @Test func expiredPageRestartsTheEnumeration() async throws {
    let provider = InMemoryProvider()
    await provider.addFiles(count: 30)
    let counter = CallCounter()
    await provider.setHook { call throws(ProviderError) in
      if call == .enumerate, await counter.next() == 2 { throw ProviderError(.pageExpired, "folder changed") }
    }
    let service = EnumerationService(prefetchPages: 0)
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let t = await service.open(EnumerationRequest(container: .root, suggestedPageSize: 10), on: provider, watch: false)
    await service.readAll(t)
    await log.wait(until: { $0.contains { if case .page(_, _, _, _, true) = $0 { return true } else { return false } } })
    let restarted = await log.events.contains { if case .restarted = $0 { return true } else { return false } }
    #expect(restarted)
    // After the restart the offsets start again from 0 and reach the end.
    let offsets = await log.pages(of: t).map(\.offset)
    #expect(offsets == [0, 0, 10, 20])
  }

  @Test func closedTicketProducesNothingMore() async throws {
    let provider = InMemoryProvider()
    await provider.addFiles(count: 10)
    let gate = Gate()
    await provider.setHook { call throws(ProviderError) in if call == .enumerate { await gate.pass() } }
    let service = EnumerationService()
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let t = await service.open(EnumerationRequest(container: .root), on: provider, watch: false)
    await gate.waitForArrivals(1)
    await service.close(t)
    await gate.open()
    // A second enumeration completes; the closed one must not have produced a page before it.
    let t2 = await service.open(EnumerationRequest(container: .root), on: provider, slot: "other", watch: false)
    await log.wait(until: pageCount(t2))
    #expect(await log.pages(of: t).isEmpty)
  }
}

actor CallCounter {
  var n = 0
  func next() -> Int {
    n += 1
    return n
  }
}

@Suite struct EnumerationServicePageTests {
  /// A reader that evicted pages gets them again by number, without re-reading from the start.
  @Test func evictedPagesAreFetchedAgainByTheirToken() async throws {
    let provider = InMemoryProvider()
    await provider.addFiles(count: 500)
    let service = EnumerationService(prefetchPages: 0)
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let t = await service.open(EnumerationRequest(container: .root, suggestedPageSize: 100), on: provider, watch: false)
    await service.reading(t, upTo: 299)  // pages 0...2 and one ahead
    await log.wait(until: loaded(t, atLeast: 400))
    let before = await provider.calls.filter { $0 == .enumerate }.count
    await service.request(t, pages: 1...1)
    await log.wait(until: loaded(t, atLeast: 500))
    let pages = await log.pages(of: t)
    #expect(pages.map(\.offset) == [0, 100, 200, 300, 100])
    #expect(await provider.calls.filter { $0 == .enumerate }.count == before + 1)
  }

  /// Jumping to the end fetches the pages in between once, then stops at the last page.
  @Test func jumpingAheadStopsAtTheLastPage() async throws {
    let provider = InMemoryProvider()
    await provider.addFiles(count: 250)
    let service = EnumerationService(prefetchPages: 0)
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let t = await service.open(EnumerationRequest(container: .root, suggestedPageSize: 100), on: provider, watch: false)
    await service.request(t, pages: 0...1_000_000)
    await log.wait(until: { $0.contains { if case .page(_, _, _, _, true) = $0 { return true } else { return false } } })
    #expect(await log.pages(of: t).map(\.offset) == [0, 100, 200])
    #expect(await provider.calls.filter { $0 == .enumerate }.count == 3)
  }
}
