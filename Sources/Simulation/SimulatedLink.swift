import Foundation
import ProviderAPI
import TestSupport

/// One machine's connection to the ``SimulatedServer``: the `Provider` its sync engine is given,
/// with the faults of test-plan.md §4.3 drawn from the run's seed. A call may wait (latency, which
/// reorders concurrent calls), fail before doing anything (a 503), be done with its answer lost (a
/// timeout after the server acted), and a listing may be cut short or come back empty with 200; a
/// change feed's anchor may expire; a download may hold an error page instead of the file. Going
/// offline, a wrong password and a full quota are states the steps switch on and off.
///
/// A crash is a call that never answers: the machine's process is gone (``crashed``), what it
/// wrote to disk stays, and the run restarts it on the same files. Every later call of a crashed
/// link hangs too, so nothing of the dead process reaches the server.
///
/// It also guards test-plan.md's "nothing deleted unless some actor deleted it": a delete or a move
/// to the trash that no step of this machine asked for is a violation.
public class SimulatedLink: Provider, @unchecked Sendable {
  public struct Faults: Sendable {
    public var latency = 0.0
    public var busy = 0.0
    public var lostAnswer = 0.0
    public var cutListing = 0.0
    public var emptyListing = 0.0
    public var expiredAnchor = 0.0
    public var errorPage = 0.0
    /// A write request the network delivered twice (a proxy's or client library's retry after a
    /// reset): the server applies it again and the client reads the second answer.
    public var duplicate = 0.0
    public init() {}

    /// Rates scaled by `level` (0 is a calm run).
    public static func level(_ level: Double) -> Faults {
      var f = Faults()
      f.latency = min(0.9, 0.3 * level)
      f.busy = 0.04 * level
      f.lostAnswer = 0.03 * level
      f.cutListing = 0.08 * level
      f.emptyListing = 0.05 * level
      f.expiredAnchor = 0.05 * level
      f.errorPage = 0.04 * level
      f.duplicate = 0.03 * level
      return f
    }
  }

  public let server: SimulatedServer
  public let machine: String
  let backing: any Provider
  private let lock = NSLock()
  private var rng: SimulationRandom
  /// Duplicates are drawn from a stream of their own, so that adding them left every other fault
  /// of a seed (and the regressions' scripts) as it was.
  private var duplicateRandom: SimulationRandom
  /// Crashes at durable steps, from a stream of their own too.
  private var durableRandom: SimulationRandom
  private var _faults: Faults
  private var _offline = false
  private var _signedOut = false
  private var _quotaFull = false
  private var _crashChance = 0.0
  private var _crashed = false
  private var _allowedDeletes: Set<ItemIdentifier> = []
  private var liedAbout: Set<ItemIdentifier> = []
  private var onCrash: (@Sendable () -> Void)?
  /// Calls made, for the run's statistics.
  public private(set) var callCount = 0
  public private(set) var faultCount = 0

  public init(server: SimulatedServer, machine: String, random: SimulationRandom, faults: Faults) {
    self.server = server
    self.machine = machine
    backing = server.backing()
    rng = random
    duplicateRandom = random.derived(0xD0B1E)
    durableRandom = random.derived(0xD15C)
    _faults = faults
  }

  public var domain: DomainIdentifier { SimulatedServer.domain }
  public var traits: ProviderTraits { server.traits }

  // MARK: - What the steps switch

  private func locked<T>(_ body: (SimulatedLink) -> T) -> T {
    lock.lock()
    defer { lock.unlock() }
    return body(self)
  }

  public var crashed: Bool { locked { $0._crashed } }
  public func setFaults(_ f: Faults) { locked { $0._faults = f } }
  public func setOffline(_ on: Bool) { locked { $0._offline = on } }
  public func setSignedOut(_ on: Bool) { locked { $0._signedOut = on } }
  public var signedOut: Bool { locked { $0._signedOut } }
  public func setQuotaFull(_ on: Bool) { locked { $0._quotaFull = on } }
  /// The chance that each call of the current step is the instant the process dies.
  public func setCrashChance(_ p: Double) { locked { $0._crashChance = p } }
  public func allowDeletes(_ ids: Set<ItemIdentifier>) { locked { $0._allowedDeletes = ids } }
  public func whenCrashed(_ body: @escaping @Sendable () -> Void) { locked { $0.onCrash = body } }

  /// Kills the machine's process now (between two calls): its next call hangs.
  public func crash() {
    let hook: (@Sendable () -> Void)? = locked {
      $0._crashed = true
      return $0.onCrash
    }
    hook?()
  }

  private func draw(_ p: Double) -> Bool { locked { $0.rng.chance(p) } }

  /// The chance that a process in a step that may crash dies before each durable step (an index
  /// transaction, a file made, renamed or removed).
  static let durableCrashChance = 0.1

  /// Whether the process dies just before this durable step; if so it is dead from now on.
  public func diesBeforeDurableStep() -> Bool {
    let dies = locked { l in l._crashChance > 0 && !l._crashed && l.durableRandom.chance(Self.durableCrashChance) }
    if dies { crash() }
    return dies
  }

  /// Whether this write reaches the server twice.
  private func duplicated() -> Bool {
    locked { l in
      guard l._faults.duplicate > 0, l.duplicateRandom.chance(l._faults.duplicate) else { return false }
      l.faultCount += 1
      return true
    }
  }
  private func drawInt(_ n: UInt64) -> UInt64 { locked { $0.rng.next() % n } }

  private func hang() async -> Never {
    // A dead process's call: it never answers and nothing after it runs.
    await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
    fatalError("a crashed machine's call was answered")
  }

  /// Before every call: the machine's state, then the faults drawn for this call.
  private func enter(_ what: String, writes: Bool = false) async throws(ProviderError) {
    let state = locked { l -> (Bool, Bool, Bool, Bool, Faults, Double) in
      l.callCount += 1
      return (l._crashed, l._offline, l._signedOut, l._quotaFull, l._faults, l._crashChance)
    }
    if state.0 { await hang() }
    if state.1 { throw ProviderError(.serverUnreachable, "\(machine) is offline") }
    if state.2 { throw ProviderError(.notAuthenticated, "the password for sim was refused") }
    if writes && state.3 { throw ProviderError(.insufficientQuota, "the account is full") }
    if draw(state.4.latency) {
      try? await Task.sleep(for: .milliseconds(Int(1 + drawInt(3000))))
      if crashed { await hang() }
    }
    if state.5 > 0 && draw(state.5) {
      crash()
      await hang()
    }
    if draw(state.4.busy) {
      locked { $0.faultCount += 1 }
      throw ProviderError(.serverBusy, "503 Service Unavailable (\(what))")
    }
  }

  /// After a call that changed something: the answer may be lost on the way back.
  private func leave(_ what: String) async throws(ProviderError) {
    if crashed { await hang() }
    if draw(locked { $0._faults.lostAnswer }) {
      locked { $0.faultCount += 1 }
      throw ProviderError(.serverUnreachable, "the connection closed before the answer to \(what) (it was done)")
    }
  }

  private func guardDelete(_ identifier: ItemIdentifier, _ what: String) async {
    let allowed = locked { $0._allowedDeletes.contains(identifier) }
    if !allowed {
      server.ledger.violation("\(machine) \(what) \(identifier.rawValue) on the server though no step of it asked to")
    }
  }

  // MARK: - Provider

  public func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item {
    try await logged("item \(Self.show(identifier))") { () throws(ProviderError) -> Item in
      try await enter("item")
      return try await backing.item(for: identifier, pathHint: pathHint)
    }
  }

  public func item(at path: ItemPath) async throws(ProviderError) -> Item {
    try await logged("item at \(path.displayString)") { () throws(ProviderError) -> Item in
      try await enter("item")
      return try await backing.item(at: path)
    }
  }

  func rawEnumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    try await enter("listing")
    var r = request
    // Small pages, so a listing has several and can be cut between them.
    r.suggestedPageSize = min(r.suggestedPageSize, 4)
    let faults = locked { $0._faults }
    if page != nil && draw(faults.cutListing) {
      locked { $0.faultCount += 1 }
      throw ProviderError(.serverUnreachable, "the listing of \(request.container.rawValue) was cut short")
    }
    if page == nil && request.container != .workingSet {
      // An error page served with 200: an empty listing. Never twice in a row for one folder.
      let lie = locked { l in
        if l.liedAbout.contains(request.container) {
          l.liedAbout.remove(request.container)
          return false
        }
        return true
      } && draw(faults.emptyListing)
      if lie {
        locked {
          $0.faultCount += 1
          $0.liedAbout.insert(request.container)
        }
        var empty = ItemPage(items: [], nextPage: nil, totalCount: 0)
        empty.container = try? await backing.item(for: request.container, pathHint: nil)
        return empty
      }
    }
    return try await backing.enumerate(r, page: page, progress: progress)
  }

  public func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor {
    try await enter("anchor")
    return try await backing.currentSyncAnchor(for: container)
  }

  public func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch {
    try await enter("changes")
    if draw(locked { $0._faults.expiredAnchor }) {
      locked { $0.faultCount += 1 }
      throw ProviderError(.syncAnchorExpired, "the anchor expired")
    }
    return try await backing.changes(in: container, since: anchor)
  }

  func rawFetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await enter("download")
    let item = try await backing.fetchContents(identifier, version: version, to: destination, progress: progress)
    if draw(locked { $0._faults.errorPage }) {
      locked { $0.faultCount += 1 }
      // Never exactly the file's announced size: a storage that states no hash leaves the size as
      // the only check, and bytes of the right length are indistinguishable from the file. The
      // 42-byte page once stood for a 42-byte file, and an edit built on it was blamed on the
      // engine (folio-sim, seed 188905).
      var page = Data("<html><body>502 Bad Gateway</body></html>\n".utf8)
      if Int64(page.count) == item.documentSize { page.append(0x0A) }
      try? page.write(to: destination)
    }
    try await leave("a download")
    return item
  }

  func rawCreateItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await enter("create", writes: contents != nil)
    let item = try await backing.createItem(template, fields: fields, contents: contents, options: options, progress: progress)
    if server.sabotage == .loseFiles, contents != nil, let inner = await server.inner(item.identifier) {
      try? await server.memory.deleteItem(inner, baseVersion: nil, options: [])
    }
    try await leave("a create")
    if contents != nil, duplicated() {
      // The same create again: the name is taken now, by the first one's item.
      return try await backing.createItem(template, fields: fields, contents: contents, options: options, progress: progress)
    }
    return item
  }

  func rawModifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await enter("modify", writes: changedFields.contains(.contents))
    if changedFields.contains(.parentItemIdentifier) && template.parentIdentifier == .trash, let id = template.identifier {
      await guardDelete(id, "moved to the trash")
    }
    var base = baseVersion
    if changedFields.contains(.contents), server.kind.conditionalWrites == .ignored, let id = template.identifier,
      let current = try? await backing.item(for: id, pathHint: nil), current.version.content != baseVersion.content
    {
      // The storage ignores If-Match: the stale write wins and the version it replaces is gone,
      // which the user was told (the location's traits say so).
      if let inner = await server.inner(id), let data = await server.memory.content(of: inner) {
        server.ledger.release(data, because: "overwritten by a stale write \(machine) sent (the storage ignores conditional writes)")
      }
      base = current.version
    }
    let item = try await backing.modifyItem(
      template, baseVersion: base, changedFields: changedFields, contents: contents, progress: progress)
    try await leave("a modify")
    if changedFields == .contents, duplicated() {
      // The same PUT again (content writes are what HTTP clients retry): its base is stale now,
      // refused where conditional writes are honoured; where they are ignored, the same bytes
      // written over themselves.
      let again = server.kind.conditionalWrites == .ignored ? item.version : base
      return try await backing.modifyItem(
        template, baseVersion: again, changedFields: changedFields, contents: contents, progress: progress)
    }
    return item
  }

  func rawDeleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    try await enter("delete")
    await guardDelete(identifier, "deleted")
    if let inner = await server.inner(identifier) {
      for data in await server.contents(under: inner) {
        server.ledger.release(data, because: "deleted for good by \(machine)")
      }
    }
    try await backing.deleteItem(identifier, baseVersion: baseVersion, options: options)
    try await leave("a delete")
  }

  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?) async throws(ProviderError) -> Item {
    try await restoreItem(identifier, to: parent, as: nil)
  }

  func rawRestoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?, as name: ItemName?) async throws(ProviderError)
    -> Item
  {
    try await enter("restore")
    let item = try await backing.restoreItem(identifier, to: parent, as: name)
    try await leave("a restore")
    return item
  }
}

extension SimulatedLink {
  /// `folio-sim --trace` prints every call a machine makes and what came of it: which faults hit
  /// it and what the server answered, the first thing to read when a seed fails.
  nonisolated(unsafe) public static var echoCalls = false

  func logged<T>(_ what: @autoclosure () -> String, _ body: () async throws(ProviderError) -> T) async throws(ProviderError) -> T {
    guard Self.echoCalls else { return try await body() }
    let call = what()
    do throws(ProviderError) {
      let result = try await body()
      print("      · \(machine) \(call) → \(Self.describe(result))")
      return result
    } catch {
      print("      · \(machine) \(call) → \(error.code): \(error.message)")
      throw error
    }
  }

  static func describe(_ value: Any) -> String {
    if let item = value as? Item { return describe(item) }
    if let page = value as? ItemPage {
      return "\(page.items.count) item(s)\(page.nextPage == nil ? "" : ", more"): "
        + page.items.map { $0.path.displayString }.joined(separator: " ")
    }
    if let batch = value as? ChangeBatch {
      return "\(batch.updatedItems.count) updated, \(batch.deletedIdentifiers.count) deleted"
    }
    return "done"
  }

  /// An identifier as a person reads it: a path-keyed one's path.
  static func show(_ id: ItemIdentifier) -> String {
    guard id.rawValue.hasPrefix("p:"), let data = Data(base64Encoded: String(id.rawValue.dropFirst(2))) else {
      return id.rawValue
    }
    return "p:" + ItemPath(bytes: Array(data)).displayString
  }

  static func describe(_ item: Item) -> String {
    let v = SimulationLedger.hash(item.version.content).prefix(6)
    return "\(show(item.identifier)) \(item.path.displayString) v\(v)\(item.isTrashed ? " (trashed)" : "")"
  }

  public func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    try await logged("list \(Self.show(request.container))\(page == nil ? "" : " (next page)")") { () throws(ProviderError) -> ItemPage in
      try await rawEnumerate(request, page: page, progress: progress)
    }
  }

  public func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await logged("download \(Self.show(identifier))") { () throws(ProviderError) -> Item in
      try await rawFetchContents(identifier, version: version, to: destination, progress: progress)
    }
  }

  public func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    let bytes = contents.flatMap { try? Data(contentsOf: $0) }.map { " bytes " + SimulationLedger.hash($0).prefix(6) } ?? ""
    return try await logged("create \(template.filename.displayString) in \(Self.show(template.parentIdentifier))\(bytes)") {
      () throws(ProviderError) -> Item in
      try await rawCreateItem(template, fields: fields, contents: contents, options: options, progress: progress)
    }
  }

  public func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    let bytes = contents.flatMap { try? Data(contentsOf: $0) }.map { " bytes " + SimulationLedger.hash($0).prefix(6) } ?? ""
    let what =
      "modify \(template.identifier.map(Self.show) ?? "?") [\(changedFields.rawValue)] name \(template.filename.displayString) in "
      + "\(Self.show(template.parentIdentifier)) base v\(SimulationLedger.hash(baseVersion.content).prefix(6))\(bytes)"
    return try await logged(what) { () throws(ProviderError) -> Item in
      try await rawModifyItem(template, baseVersion: baseVersion, changedFields: changedFields, contents: contents, progress: progress)
    }
  }

  public func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    try await logged("delete \(Self.show(identifier))") { () throws(ProviderError) in
      try await rawDeleteItem(identifier, baseVersion: baseVersion, options: options)
    }
  }

  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?, as name: ItemName?) async throws(ProviderError)
    -> Item
  {
    try await logged("restore \(Self.show(identifier))") { () throws(ProviderError) -> Item in
      try await rawRestoreItem(identifier, to: parent, as: name)
    }
  }
}

/// The link of a run whose storage keys items by path: the engine re-keys what moves.
public final class SimulatedPathLink: SimulatedLink, PathKeyedProvider, @unchecked Sendable {
  private var keys: PathKeyedMemoryProvider { PathKeyedMemoryProvider(base: server.memory) }
  public func identifier(for path: ItemPath) -> ItemIdentifier { keys.identifier(for: path) }
  public func path(for identifier: ItemIdentifier) -> ItemPath? { keys.path(for: identifier) }
}
