import Foundation
import ProviderAPI

/// A location served by an out-of-process extension that speaks FEP/1 (docs/EXTENSIONS.md):
/// every Provider call becomes one JSON-RPC request to it, with the deadline of its class.
///
/// The extension runs under an ``ExtensionSupervisor``: started at the first call, restarted
/// with backoff after a crash, stopped by the breaker when it keeps crashing. Nothing here ever
/// blocks on its pipe: calls are async and bounded by deadlines, and a crash fails them with a
/// transient `serverUnreachable` naming why, which is what makes the location read offline.
///
/// Items carry no path on the wire: the host places each under its parent's path, which it
/// knows from the listings and items it has seen (and otherwise asks for, walking up).
public final class ExtensionProvider: Provider, AccountStatusProviding, RetryableProvider, @unchecked Sendable {
  public let domain: DomainIdentifier
  public let launch: ExtensionLaunch
  let supervisor: ExtensionSupervisor
  private let lock = NSLock()
  /// The declaration of the last `initialize` (this run's, or a saved one from before).
  private var declared: JSONValue?
  private var capabilities: ExtensionCapabilities
  /// id → (parent, name) of the items seen, to give each item its path.
  private var places: [ItemIdentifier: (parent: ItemIdentifier, name: ItemName)] = [:]
  private var watchers: [UUID: (container: ItemIdentifier, continuation: AsyncStream<Void>.Continuation)] = [:]
  private var pollTask: Task<Void, Never>?
  private var itemAtPathUnsupported = false
  let hostSorted = HostSortedListings()

  public init(launch: ExtensionLaunch) {
    self.domain = launch.domain
    self.launch = launch
    self.supervisor = ExtensionSupervisor(launch: launch)
    let saved = ExtensionSupervisor.savedCapabilities(beside: launch.logFile)
    self.declared = saved
    self.capabilities = ExtensionCapabilities(saved?["capabilities"])
    supervisor.onNotification = { [weak self] method, params in self?.notification(method, params) }
    supervisor.onStart = { [weak self] session in self?.started(session) }
  }

  deinit { pollTask?.cancel() }

  public var traits: ProviderTraits {
    lock.lock()
    defer { lock.unlock() }
    return capabilities.traits
  }

  var currentCapabilities: ExtensionCapabilities {
    lock.lock()
    defer { lock.unlock() }
    return capabilities
  }

  public var actionDeclarations: [ActionDeclaration] {
    lock.lock()
    let list = declared?["actions"]?.array ?? []
    lock.unlock()
    return list.compactMap { a in
      guard let id = a["id"]?.string, let title = a["title"]?.string else { return nil }
      guard let rule = try? ActivationRule(parsing: a["rule"]?.string ?? "true") else { return nil }
      return ActionDeclaration(identifier: ActionIdentifier(id), name: TerminalText.escape(title), activationRule: rule)
    }
  }

  public var decorationDeclarations: [DecorationDeclaration] {
    lock.lock()
    let list = declared?["decorations"]?.array ?? []
    lock.unlock()
    return list.compactMap { d in
      guard let id = d["id"]?.string else { return nil }
      return DecorationDeclaration(
        identifier: DecorationIdentifier(id), category: .badge, label: TerminalText.escape(d["label"]?.string ?? id),
        glyph: TerminalText.escape(d["glyph"]?.string ?? "•"), asciiGlyph: TerminalText.escape(d["ascii"]?.string ?? "*"))
    }
  }

  private func started(_ session: ExtensionSupervisor.Session) {
    lock.lock()
    declared = session.initializeResult
    capabilities = session.capabilities
    lock.unlock()
  }

  // MARK: Calls

  /// One request, on the running extension (started if needed), within its class's limit.
  func call(
    _ method: String, _ params: JSONValue, _ cls: CallClass, progress: (@Sendable (JSONValue) -> Void)? = nil
  ) async throws(ProviderError) -> (JSONValue, ExtensionCapabilities) {
    if Task.isCancelled { throw .cancelledError }
    let session = try await supervisor.session()
    let limiter: AsyncLimiter? =
      switch cls {
      case .metadata: session.metadata
      case .download: session.downloads
      case .upload: session.uploads
      default: nil
      }
    await limiter?.acquire()
    defer { limiter?.release() }
    if Task.isCancelled { throw .cancelledError }
    let result = await session.connection.call(method, params, class: cls, progress: progress)
    switch result {
    case .success(let value):
      supervisor.succeeded()
      return (value, session.capabilities)
    case .failure(let e):
      if e.code == .cancelled { throw .cancelledError }
      // A stop says why, with the extension's last words (Info, the status line, `folio`).
      throw e.message.hasPrefix("extension stopped") ? withTail(e) : e
    }
  }

  // MARK: Paths

  private func remember(_ item: Item) {
    guard item.identifier != .root else { return }
    lock.withLock { places[item.identifier] = (item.parentIdentifier, item.filename) }
  }

  private func remember(_ items: [Item]) {
    lock.withLock {
      for item in items where item.identifier != .root { places[item.identifier] = (item.parentIdentifier, item.filename) }
    }
  }

  private func forget(_ id: ItemIdentifier) {
    lock.withLock { places[id] = nil }
  }

  private func place(of id: ItemIdentifier) -> (parent: ItemIdentifier, name: ItemName)? {
    lock.withLock { places[id] }
  }

  /// The path of a container, from what was seen, else by asking for the items up to the root.
  func path(of id: ItemIdentifier, depth: Int = 0) async throws(ProviderError) -> ItemPath {
    if id == .root { return .root }
    if id == .trash || id == .workingSet { return .root }
    if let known = place(of: id) {
      return try await path(of: known.parent, depth: depth + 1).appending(known.name)
    }
    guard depth < 256 else { throw ProviderError(.invalidArgument, "the extension's folders nest too deep (a loop?)") }
    let (json, caps) = try await call("item", ["id": .string(id.rawValue)], .metadata)
    let parent = ItemIdentifier(json["parent"]?.string ?? "#root")
    let parentPath = try await path(of: parent, depth: depth + 1)
    let item = try ExtensionItemCoding.item(json, parentPath: parentPath, capabilities: caps)
    remember(item)
    return item.path
  }

  /// An item of an answer, placed under its parent's path.
  func decode(_ json: JSONValue, _ caps: ExtensionCapabilities) async throws(ProviderError) -> Item {
    let parent = ItemIdentifier(json["parent"]?.string ?? "#root")
    let parentPath = json["id"]?.string == "#root" ? ItemPath.root : try await path(of: parent)
    let item = try ExtensionItemCoding.item(json, parentPath: parentPath, capabilities: caps)
    remember(item)
    return item
  }

  /// The items of a list, refusing (and logging) any the host cannot take, keeping the rest.
  func decodeList(_ list: [JSONValue], _ caps: ExtensionCapabilities, parentPath known: ItemPath?) async throws(ProviderError) -> [Item] {
    var out: [Item] = []
    out.reserveCapacity(list.count)
    var pathCache: [ItemIdentifier: ItemPath] = [:]
    for json in list {
      let parent = ItemIdentifier(json["parent"]?.string ?? "#root")
      let parentPath: ItemPath
      if let known { parentPath = known } else if let p = pathCache[parent] { parentPath = p } else {
        parentPath = try await path(of: parent)
        pathCache[parent] = parentPath
      }
      do throws(ProviderError) {
        let item = try ExtensionItemCoding.item(json, parentPath: parentPath, capabilities: caps)
        out.append(item)
      } catch {
        supervisor.log.note("refused an item (\(TerminalText.escape(json["id"]?.string ?? "?"))): \(error.message)")
      }
    }
    remember(out)
    return out
  }

  // MARK: Reading

  public func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item {
    var params: [String: JSONValue] = ["id": .string(identifier.rawValue)]
    if let pathHint, let text = pathHint.utf8String { params["pathHint"] = .string(text) }
    let (json, caps) = try await call("item", .object(params), .metadata)
    return try await decode(json, caps)
  }

  public func item(at path: ItemPath) async throws(ProviderError) -> Item {
    let normalized = ItemAddress.normalize(path.bytes)
    if normalized == .root { return try await item(for: .root, pathHint: nil) }
    if !lock.withLock({ itemAtPathUnsupported }), let text = normalized.utf8String {
      do throws(ProviderError) {
        let (json, caps) = try await call("itemAtPath", ["path": .string(text)], .metadata)
        return try await decode(json, caps)
      } catch where error.code == .featureUnsupported {
        lock.withLock { itemAtPathUnsupported = true }
      }
    }
    // No `itemAtPath`: one listing per component, from the top.
    var current = try await item(for: .root, pathHint: nil)
    let components = normalized.bytes.split(separator: 0x2F).map { ItemName(bytes: Array($0)) }
    for name in components {
      var page: Page? = nil
      var found: Item?
      repeat {
        let request = EnumerationRequest(container: current.identifier, includeHidden: true, suggestedPageSize: 500)
        let p = try await enumerate(request, page: page, progress: { _ in })
        found = p.items.first { $0.filename == name }
        page = p.nextPage
      } while found == nil && page != nil
      guard let found else { throw ProviderError.noSuchItem(normalized.displayString) }
      current = found
    }
    return current
  }

  public func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    if HostSortedListings.isHostToken(page), let page {
      guard let (id, offset) = HostSortedListings.parse(page) else { throw ProviderError(.pageExpired, "an unknown page") }
      return try hostSorted.page(id, offset: offset, size: request.suggestedPageSize)
    }
    if page == nil, !HostSortedListings.extensionSorts(request.sort, currentCapabilities) {
      // An order the extension does not do: the whole folder by name, sorted here.
      var all: [Item] = []
      var next: Page? = nil
      var byName = request
      byName.sort = ItemSort(key: .name, ascending: true, foldersFirst: false)
      byName.suggestedPageSize = max(request.suggestedPageSize, 1000)
      repeat {
        let p = try await enumerateFromExtension(byName, page: next, progress: { _ in })
        all += p.items
        next = p.nextPage
        progress(EnumerationProgress(phase: .readingMetadata, completed: all.count, total: p.totalCount))
      } while next != nil
      progress(EnumerationProgress(phase: .sorting, completed: 0, total: all.count))
      let id = hostSorted.store(HostSortedListings.sorted(all, by: request.sort))
      return try hostSorted.page(id, offset: 0, size: request.suggestedPageSize)
    }
    return try await enumerateFromExtension(request, page: page, progress: progress)
  }

  /// One page in the extension's own order.
  private func enumerateFromExtension(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    let caps = currentCapabilities
    var params: [String: JSONValue] = [
      "container": .string(request.container.rawValue), "pageSize": .number(Double(max(1, request.suggestedPageSize))),
      "includeHidden": .bool(request.includeHidden),
    ]
    if let page { params["page"] = .string(String(decoding: page.data, as: UTF8.self)) }
    // Only sorts the extension declared reach it (the others are the host's).
    let key = request.sort.key == .date ? "date" : request.sort.key == .size ? "size" : "name"
    params["sort"] = [
      "by": .string(key), "descending": .bool(!request.sort.ascending), "foldersFirst": .bool(request.sort.foldersFirst),
    ]
    let (json, answerCaps) = try await call(
      "enumerateItems", .object(params), .metadata,
      progress: { p in
        progress(EnumerationProgress(phase: .reading, completed: p["completed"]?.int ?? 0, total: p["total"]?.int))
      })
    let containerPath = try await path(of: request.container)
    var items = try await decodeList(json["items"]?.array ?? [], answerCaps, parentPath: containerPath)
    if !request.includeHidden { items.removeAll { $0.filename.isHidden } }
    var next: Page? = nil
    if let token = json["nextPage"]?.string { next = try Page(Data(token.utf8)) }
    return ItemPage(items: items, nextPage: next, totalCount: json["totalCount"]?.int)
  }

  public func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor {
    guard currentCapabilities.feed else { throw ProviderError(.featureUnsupported, "this extension keeps no change log") }
    let (json, _) = try await call("currentSyncAnchor", ["container": .string(container.rawValue)], .metadata)
    guard let anchor = json["anchor"]?.string else { throw ProviderError(.ioError, "the extension answered no anchor") }
    return try SyncAnchor(Data(anchor.utf8))
  }

  public func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch {
    guard currentCapabilities.feed else { throw ProviderError(.featureUnsupported, "this extension keeps no change log") }
    let (json, caps) = try await call(
      "enumerateChanges",
      ["container": .string(container.rawValue), "anchor": .string(String(decoding: anchor.data, as: UTF8.self))], .metadata)
    let deleted = (json["deleted"]?.array ?? []).compactMap(\.string).map(ItemIdentifier.init)
    for id in deleted { forget(id) }
    // Parents first, so each item finds its parent's new path.
    let updated = json["updated"]?.array ?? []
    rememberPlaces(of: updated, caps)
    let items = try await decodeList(updated, caps, parentPath: nil)
    guard let next = json["anchor"]?.string else { throw ProviderError(.ioError, "the extension answered no anchor") }
    return ChangeBatch(
      updatedItems: items, deletedIdentifiers: deleted, anchor: try SyncAnchor(Data(next.utf8)),
      moreComing: json["moreComing"]?.bool ?? false)
  }

  /// The places of a batch of changed items, before any is decoded: a moved folder and its
  /// children may come in one batch, children first.
  private func rememberPlaces(of list: [JSONValue], _ caps: ExtensionCapabilities) {
    lock.withLock {
      for u in list {
        guard let id = u["id"]?.string, id != "#root", let parent = u["parent"]?.string,
          let name = try? ExtensionItemCoding.name(u.object ?? [:], caps: caps, isRoot: false)
        else { continue }
        places[ItemIdentifier(id)] = (ItemIdentifier(parent), name)
      }
    }
  }

  // MARK: Signals

  public func changeSignals(for container: ItemIdentifier) -> AsyncStream<Void> {
    let caps = currentCapabilities
    guard caps.feed else { return AsyncStream { $0.finish() } }
    let key = UUID()
    let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    continuation.onTermination = { [weak self] _ in
      guard let self else { return }
      self.lock.lock()
      self.watchers[key] = nil
      self.lock.unlock()
    }
    lock.lock()
    watchers[key] = (container, continuation)
    // Without push, the host asks for changes on the extension's timer (`pollSeconds`) while
    // someone watches: a signal each time.
    if !caps.push && pollTask == nil {
      let seconds = caps.pollSeconds
      pollTask = Task { [weak self] in
        while !Task.isCancelled {
          try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
          guard let self else { return }
          self.signal(nil)
        }
      }
    }
    lock.unlock()
    return stream
  }

  private func notification(_ method: String, _ params: JSONValue) {
    switch method {
    case "$/signal": signal(params["container"]?.string.map(ItemIdentifier.init))
    default: supervisor.log.note("an unknown notification \(TerminalText.escape(method)) (ignored)")
    }
  }

  /// `$/signal`: the named container's watchers and the working set's; without a container,
  /// everyone's.
  func signal(_ container: ItemIdentifier?) {
    lock.lock()
    let targets = watchers.values.filter { w in container == nil || w.container == container || w.container == .workingSet }
    lock.unlock()
    for t in targets { t.continuation.yield() }
  }

  // MARK: Supervision

  /// Retry (Reload in the browser, `folio sync`, `folio domain check`): clears the breaker or a
  /// start failure, so the next call starts the extension again.
  public func retryNow() { supervisor.retry() }

  /// The extension's `describe` answer: its name and version, the protocols it speaks, its
  /// settings (`{name, description, required, secret}`), from a process of its own.
  public func describe() async throws(ProviderError) -> JSONValue {
    try await ExtensionSupervisor.describe(launch)
  }

  /// Stops the extension in order (the end of `folio`, tests).
  public func shutdown() async { await supervisor.shutdown() }

  /// How the extension is, in a sentence, for Info and `folio domain list`.
  public var stateDescription: String {
    switch supervisor.status {
    case .notStarted: return "not started"
    case .starting: return "starting"
    case .running(let pid): return "running (pid \(pid))"
    case .crashed(let reason, let at):
      return "stopped: \(reason); starts again \(at > Date() ? "in \(Int(at.timeIntervalSinceNow.rounded(.up))) s" : "at the next request")"
    case .stopped(let reason): return reason
    case .failed(let e): return e.message
    }
  }

  /// The extension's last lines on stderr (and the host's notes), escaped for the terminal.
  public var lastLogLines: [String] { supervisor.log.lastLines.map(TerminalText.escapeMessage) }

  public var logFile: URL { launch.logFile }

  /// Whether the extension is running, never started, or out (crashed, stopped, failed).
  public var isOut: Bool {
    switch supervisor.status {
    case .crashed, .stopped, .failed: return true
    default: return false
    }
  }

  /// How many times it was started (tests watch restarts).
  public var startCount: Int { supervisor.startCount }

  /// Kills the running extension, as a hang would be (tests, the benchmark).
  public func kill(because reason: String) { supervisor.kill(because: reason) }

  // MARK: Account

  public func accountStatus() async -> AccountStatus {
    let caps: ExtensionCapabilities
    do throws(ProviderError) {
      _ = try await supervisor.session()
      caps = currentCapabilities
    } catch {
      return AccountStatus(failure: withTail(error))
    }
    guard caps.about else { return .online(usedBytes: 0, quotaBytes: nil) }
    do throws(ProviderError) {
      let (json, _) = try await call("about", [:], .metadata)
      let used = json["used"]?.int64 ?? 0
      let total = json["total"]?.int64
      if let total, total > 0, used >= total || json["free"]?.int64 == 0 { return .overQuota(usedBytes: used, quotaBytes: total) }
      return .online(usedBytes: used, quotaBytes: total)
    } catch {
      if error.code == .featureUnsupported { return .online(usedBytes: 0, quotaBytes: nil) }
      return AccountStatus(failure: withTail(error))
    }
  }

  /// An error of the extension's stop, with its last words, for the location's status.
  func withTail(_ e: ProviderError) -> ProviderError {
    guard e.code == .serverUnreachable || e.code == .badConfig, e.message.contains("extension") else { return e }
    let said = supervisor.log.lastLines.filter { !$0.hasPrefix("folio: ") }.suffix(3)
    guard !said.isEmpty else { return e }
    let text = said.map { TerminalText.escapeMessage(String($0.prefix(200))) }.joined(separator: " | ")
    return ProviderError(e.code, e.message + " — its log ends: " + text, existingItem: e.existingItem)
  }
}
