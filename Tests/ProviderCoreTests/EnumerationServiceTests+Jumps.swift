import Foundation
import ProviderAPI
import Testing

@testable import ProviderCore
@testable import TestSupport

/// An InMemoryProvider seen through a window: it may let readers jump (tokens are offsets, as the
/// local provider's snapshots are), may hide the total count, and logs what was asked, in order.
struct WindowProvider: Provider {
  enum Event: Equatable { case page(offset: Int), watch }
  final class Log: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [Event] = []
    func add(_ e: Event) { lock.withLock { events.append(e) } }
    var all: [Event] { lock.withLock { events } }
    var offsets: [Int] { all.compactMap { if case .page(let o) = $0 { return o } else { return nil } } }
  }

  let base: InMemoryProvider
  var jumps = false
  var hidesTotal = false
  let log = Log()

  var domain: DomainIdentifier { base.domain }
  var traits: ProviderTraits { base.traits }

  func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item {
    try await base.item(for: identifier, pathHint: pathHint)
  }
  func item(at path: ItemPath) async throws(ProviderError) -> Item { try await base.item(at: path) }
  func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    log.add(.page(offset: page.flatMap { Int(String(decoding: $0.data, as: UTF8.self)) } ?? 0))
    var result = try await base.enumerate(request, page: page, progress: progress)
    if hidesTotal { result.totalCount = nil }
    return result
  }
  func pageToken(at offset: Int, from known: Page, in request: EnumerationRequest) -> Page? {
    jumps ? try? Page(Data(String(offset).utf8)) : nil
  }
  func changeSignals(for container: ItemIdentifier) -> AsyncStream<Void> {
    log.add(.watch)
    return AsyncStream { _ in }
  }
  func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor {
    try await base.currentSyncAnchor(for: container)
  }
  func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch {
    try await base.changes(in: container, since: anchor)
  }
  func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await base.fetchContents(identifier, version: version, to: destination, progress: progress)
  }
  func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await base.createItem(template, fields: fields, contents: contents, options: options, progress: progress)
  }
  func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await base.modifyItem(
      template, baseVersion: baseVersion, changedFields: changedFields, contents: contents, progress: progress)
  }
  func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    try await base.deleteItem(identifier, baseVersion: baseVersion, options: options)
  }
}

func completed(_ ticket: EnumerationTicket) -> @Sendable ([EnumerationEvent]) -> Bool {
  { $0.contains { if case .page(let t, _, _, _, true) = $0 { return t == ticket } else { return false } } }
}

@Suite struct EnumerationServiceJumpTests {
  /// A provider whose tokens are positions: End on a long list fetches the first page (for the
  /// count) and the last ones, nothing in between.
  @Test func endOnAJumpingProviderFetchesOnlyTheLastPages() async throws {
    let memory = InMemoryProvider()
    await memory.addFiles(count: 5_000)
    let provider = WindowProvider(base: memory, jumps: true)
    let service = EnumerationService(prefetchPages: 0)
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let t = await service.open(EnumerationRequest(container: .root, suggestedPageSize: 100), on: provider, watch: false)
    await log.wait(until: pageCount(t))
    await service.request(t, pages: 48...49)
    await log.wait(until: completed(t))
    #expect(provider.log.offsets == [0, 4_800, 4_900])
    #expect(await log.pages(of: t).map(\.offset) == [0, 4_800, 4_900])
    let names = await log.events.flatMap { e -> [String] in
      if case .page(_, 4_900, let items, _, _) = e { return items.map(\.filename.lossyString) }
      return []
    }
    #expect(names.first == "file4900" && names.last == "file4999")
  }

  /// A provider that can only go page after page is walked to the page wanted; the pages walked
  /// through are not delivered (the reader would evict them at once).
  @Test func aSequentialProviderIsWalkedButOnlyTheWantedPagesAreDelivered() async throws {
    let memory = InMemoryProvider()
    await memory.addFiles(count: 1_000)
    let provider = WindowProvider(base: memory)
    let service = EnumerationService(prefetchPages: 0)
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let t = await service.open(EnumerationRequest(container: .root, suggestedPageSize: 100), on: provider, watch: false)
    await log.wait(until: pageCount(t))
    await service.request(t, pages: 8...9)
    await log.wait(until: completed(t))
    #expect(provider.log.offsets == [0, 100, 200, 300, 400, 500, 600, 700, 800, 900])
    #expect(await log.pages(of: t).map(\.offset) == [0, 800, 900])
    // Back to a page walked through: its token is known, one fetch.
    await service.request(t, pages: 3...3)
    await log.wait(until: loaded(t, atLeast: 400))
    #expect(provider.log.offsets.suffix(1) == [300])
  }

  /// End before the length is known (no total count): walk to the end, deliver the last page only.
  @Test func endOfAListOfUnknownLengthDeliversOnlyItsLastPages() async throws {
    let memory = InMemoryProvider()
    await memory.addFiles(count: 2_050)
    let provider = WindowProvider(base: memory, hidesTotal: true)
    let service = EnumerationService(prefetchPages: 0, deliveredPagesPerRequest: 2)
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let t = await service.open(EnumerationRequest(container: .root, suggestedPageSize: 100), on: provider, watch: false)
    await log.wait(until: pageCount(t))
    await service.request(t, pages: 1...(Int.max / 1024))
    await log.wait(until: loaded(t, atLeast: 100 + 50 + 100))
    // The walk found the end at page 20; the last two pages are delivered (19 again, by its token).
    let delivered = await log.pages(of: t).map(\.offset)
    #expect(delivered.first == 0)
    #expect(Set(delivered.dropFirst()) == [1_900, 2_000])
    #expect(provider.log.offsets.count <= 22)
  }

  /// A new request replaces the one before: pages no longer wanted are not fetched nor delivered.
  @Test func aNewRequestSupersedesTheOldOne() async throws {
    let memory = InMemoryProvider()
    await memory.addFiles(count: 1_000)
    let gate = Gate()
    await memory.setHook { call throws(ProviderError) in if call == .enumerate { await gate.pass() } }
    let provider = WindowProvider(base: memory, jumps: true)
    let service = EnumerationService(prefetchPages: 0)
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let t = await service.open(EnumerationRequest(container: .root, suggestedPageSize: 100), on: provider, watch: false)
    await gate.waitForArrivals(1)
    await service.request(t, pages: 4...6)
    await service.request(t, pages: 9...9)
    await gate.open()
    await log.wait(until: completed(t))
    #expect(await log.pages(of: t).map(\.offset) == [0, 900])
    #expect(provider.log.offsets == [0, 900])
  }

  /// The container is watched once the first page is there, not before.
  @Test func theWatchStartsAfterTheFirstPage() async throws {
    let memory = InMemoryProvider()
    await memory.addFiles(count: 10)
    let gate = Gate()
    await memory.setHook { call throws(ProviderError) in if call == .enumerate { await gate.pass() } }
    let provider = WindowProvider(base: memory)
    let service = EnumerationService()
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let t = await service.open(EnumerationRequest(container: .root), on: provider, watch: true)
    await gate.waitForArrivals(1)
    #expect(provider.log.all == [.page(offset: 0)])
    await gate.open()
    await log.wait(until: pageCount(t))
    for _ in 0..<1_000 where !provider.log.all.contains(.watch) { await Task.yield() }
    #expect(provider.log.all == [.page(offset: 0), .watch])
  }

  /// The first page asked for at launch is adopted, not asked for again.
  @Test func aPrefetchedFirstPageIsAdopted() async throws {
    let memory = InMemoryProvider()
    await memory.addFiles(count: 150)
    let provider = WindowProvider(base: memory)
    let request = EnumerationRequest(container: .root, suggestedPageSize: 100)
    let prefetch = FirstPagePrefetch(request, on: provider)
    let service = EnumerationService(prefetchPages: 0)
    let (log, task) = EventLog.follow(service)
    defer { task.cancel() }
    let t = await service.open(request, on: provider, watch: false, prefetched: prefetch)
    await log.wait(until: pageCount(t))
    #expect(provider.log.offsets == [0])
    #expect(await log.pages(of: t).map(\.count) == [100])
    // A prefetch of another request (pages of 50) is not adopted.
    let other = FirstPagePrefetch(EnumerationRequest(container: .root, suggestedPageSize: 50), on: provider)
    let t2 = await service.open(request, on: provider, slot: "other", watch: false, prefetched: other)
    await log.wait(until: pageCount(t2))
    #expect(await log.pages(of: t2).map(\.count) == [100])
  }
}
