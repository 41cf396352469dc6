import Foundation
import ProviderAPI
import Synchronization
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// A remote domain "cloud" served by an InMemoryProvider behind a ``FaultyProvider``, a real
/// index file and a real content store in a scratch folder, and a sync engine over them. Backoff
/// is short (10 ms base) and its jitter pinned, so tests wait on conditions and never for long.
final class SyncFixture: @unchecked Sendable {
  static let cloud = DomainIdentifier(unchecked: "cloud")
  let scratch = ScratchFolder()
  let memory: InMemoryProvider
  let provider: FaultyProvider
  let indexURL: URL
  let index: WorkingSetIndex
  let registry: DomainRegistry
  let domain: Domain
  let policy: RetryPolicy
  let limits: TransferQueue.Limits
  let budget: Int64
  let engine: SyncEngine

  init(
    budget: Int64 = 1 << 30, policy: RetryPolicy = RetryPolicy(base: 0.01, cap: 0.05, attemptsPerDrain: 4),
    limits: TransferQueue.Limits = TransferQueue.Limits(uploads: 2, downloads: 3, probeInterval: 0.05),
    traits: ProviderTraits = .inMemory
  ) throws {
    memory = InMemoryProvider(domain: Self.cloud, rootName: "Cloud", traits: traits)
    provider = FaultyProvider(memory)
    indexURL = URL(fileURLWithPath: scratch.path.lossyString).appendingPathComponent("data/index.sqlite")
    index = try WorkingSetIndex.open(at: indexURL)
    domain = Domain(identifier: Self.cloud, displayName: "Cloud", provider: provider, localRoot: nil)
    var r = DomainRegistry(
      local: Domain(identifier: .local, displayName: "This Computer", provider: InMemoryProvider(traits: .localFilesystem), localRoot: .root))
    try r.add(domain)
    registry = r
    self.policy = policy
    self.limits = limits
    self.budget = budget
    engine = SyncEngine(
      registry: r, index: index,
      contentRoot: URL(fileURLWithPath: scratch.path.lossyString).appendingPathComponent("cache/folio/content", isDirectory: true),
      cacheBudget: budget, policy: policy, limits: limits, jitter: { 0 })
  }

  var root: URL { URL(fileURLWithPath: scratch.path.lossyString) }
  var contentRoot: URL { root.appendingPathComponent("cache/folio/content", isDirectory: true) }
  var store: ContentStore { engine.store }
  var queue: TransferQueue { engine.queue }

  /// A second engine over the same index and store, as a new process after a crash would build
  /// (`pid` plays that process).
  func restartedEngine(pid: Int32 = ProcessLiveness.current) -> SyncEngine {
    SyncEngine(
      registry: registry, index: index, contentRoot: contentRoot, cacheBudget: budget, policy: policy, limits: limits,
      pid: pid, jitter: { 0 })
  }

  /// Writes a file in the scratch folder (outside the store).
  func source(_ name: String, _ content: String) throws -> URL {
    let url = root.appendingPathComponent("src-\(name)")
    try Data(content.utf8).write(to: url)
    return url
  }

  /// Files in the domain's content folder, by kind.
  func storeFiles() -> (content: [String], staged: [String], temporary: [String]) {
    let folder = store.folder(for: Self.cloud)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return (
      names.filter { $0.utf8.count == 64 }.sorted(), names.filter { $0.hasPrefix("up-") }.sorted(),
      names.filter { $0.hasPrefix(".tmp-") }.sorted()
    )
  }

  func text(of identifier: ItemIdentifier) async -> String? {
    await memory.content(of: identifier).map { String(decoding: $0, as: UTF8.self) }
  }

  func children(of parent: ItemIdentifier = .root) async throws -> [Item] {
    try await memory.enumerate(EnumerationRequest(container: parent, suggestedPageSize: 1000), page: nil, progress: { _ in })
      .items
  }

  /// Edits a file on the "server" as another client would.
  @discardableResult
  func remoteEdit(_ identifier: ItemIdentifier, _ content: String) async throws -> Item {
    let current = try await memory.item(for: identifier)
    let url = root.appendingPathComponent("remote-\(UUID().uuidString)")
    try Data(content.utf8).write(to: url)
    return try await memory.modifyItem(
      ItemTemplate(current), baseVersion: current.version, changedFields: .contents, contents: url)
  }

  /// The pid of a process that has ended: what a crashed Folio leaves in its rows.
  static func deadPID() throws -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/true")
    try p.run()
    p.waitUntilExit()
    return p.processIdentifier
  }
}

/// Records every sync event and lets a test wait for a condition on them.
actor SyncEventRecorder {
  private(set) var events: [SyncEvent] = []
  private var waiters: [(UUID, @Sendable ([SyncEvent]) -> Bool, CheckedContinuation<Void, Never>)] = []
  private var task: Task<Void, Never>?

  static func follow(_ hub: SyncEventHub) async -> SyncEventRecorder {
    let r = SyncEventRecorder()
    await r.listen(hub.stream())
    return r
  }

  private func listen(_ stream: AsyncStream<SyncEvent>) {
    task = Task { for await e in stream { self.append(e) } }
  }

  private func append(_ e: SyncEvent) {
    events.append(e)
    let ready = waiters.enumerated().filter { $0.element.1(events) }.map(\.offset)
    for i in ready.reversed() { waiters.remove(at: i).2.resume() }
  }

  /// Returns once `condition` holds; after `seconds` records an issue (with the events seen)
  /// and returns, so a wrong expectation fails the test instead of hanging the run.
  func wait(
    seconds: Double = 20, sourceLocation: SourceLocation = #_sourceLocation,
    until condition: @escaping @Sendable ([SyncEvent]) -> Bool
  ) async {
    if condition(events) { return }
    let id = UUID()
    let timer = Task {
      try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
      self.expire(id, sourceLocation)
    }
    await withCheckedContinuation { c in waiters.append((id, condition, c)) }
    timer.cancel()
  }

  private func expire(_ id: UUID, _ sourceLocation: SourceLocation) {
    guard let i = waiters.firstIndex(where: { $0.0 == id }) else { return }
    Issue.record("the awaited sync event did not come; events: \(events)", sourceLocation: sourceLocation)
    waiters.remove(at: i).2.resume()
  }

  func stop() { task?.cancel() }
}

/// An InMemoryProvider with the faults a real server has, switched on by tests: downloads that
/// arrive short, items that state a hash, FolioServer-style conflicts (the stale upload is kept as
/// a copy and the original comes back with `localVersionConflictingWithServer`), an empty or a
/// failing working-set listing, and push signals on demand.
final class FaultyProvider: Provider, @unchecked Sendable {
  struct Faults {
    var truncateDownloads = false
    var statedHash: String?
    /// Returned by `fetchVerifiedContents` as the digest the provider checked.
    var verifiedDigest: ContentDigest?
    var serverConflicts = false
    var emptyWorkingSetListing = false
  }

  let inner: InMemoryProvider
  let faults = Mutex(Faults())
  private let signal = Mutex<AsyncStream<Void>.Continuation?>(nil)
  private let signalStream: AsyncStream<Void>

  init(_ inner: InMemoryProvider) {
    self.inner = inner
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    signalStream = stream
    signal.withLock { $0 = continuation }
  }

  func set(_ change: (inout Faults) -> Void) { faults.withLock { change(&$0) } }
  func push() { _ = signal.withLock { $0?.yield() } }

  var domain: DomainIdentifier { inner.domain }
  var traits: ProviderTraits { inner.traits }

  func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item {
    try await inner.item(for: identifier, pathHint: pathHint)
  }
  func item(at path: ItemPath) async throws(ProviderError) -> Item { try await inner.item(at: path) }
  func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    if request.container == .workingSet && faults.withLock({ $0.emptyWorkingSetListing }) {
      return ItemPage(items: [], nextPage: nil, totalCount: 0)
    }
    return try await inner.enumerate(request, page: page, progress: progress)
  }
  func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor {
    try await inner.currentSyncAnchor(for: container)
  }
  func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch {
    try await inner.changes(in: container, since: anchor)
  }
  func changeSignals(for container: ItemIdentifier) -> AsyncStream<Void> { signalStream }

  func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    var item = try await inner.fetchContents(identifier, version: version, to: destination, progress: progress)
    let f = faults.withLock { $0 }
    if f.truncateDownloads, let data = try? Data(contentsOf: destination), !data.isEmpty {
      try? data.dropLast().write(to: destination)
    }
    if let hash = f.statedHash { item.userInfo[ContentHash.userInfoKey] = .string(hash) }
    return item
  }

  func fetchVerifiedContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> (item: Item, digest: ContentDigest?) {
    let item = try await fetchContents(identifier, version: version, to: destination, progress: progress)
    return (item, faults.withLock { $0.verifiedDigest })
  }

  func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await inner.createItem(template, fields: fields, contents: contents, options: options, progress: progress)
  }

  func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    if changedFields.contains(.contents), faults.withLock({ $0.serverConflicts }), let id = template.identifier {
      let current = try await inner.item(for: id)
      if current.version.content != baseVersion.content {
        var t = ItemTemplate(parentIdentifier: current.parentIdentifier, filename: ConflictNames.conflictCopy(current.filename, at: Date()), contentType: current.contentType)
        t.tags = []
        let copy = try await inner.createItem(t, fields: [.contents], contents: contents, options: [])
        var original = current
        original.uploadingError = ProviderError(
          .localVersionConflictingWithServer, "changed on the server first", existingItem: copy.identifier)
        original.decorations.append(DecorationIdentifier("conflict"))
        return original
      }
    }
    return try await inner.modifyItem(
      template, baseVersion: baseVersion, changedFields: changedFields, contents: contents, progress: progress)
  }

  func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    try await inner.deleteItem(identifier, baseVersion: baseVersion, options: options)
  }
  func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?) async throws(ProviderError) -> Item {
    try await inner.restoreItem(identifier, to: parent)
  }
}
