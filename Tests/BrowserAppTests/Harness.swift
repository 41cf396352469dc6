import BrowserApp
import BrowserUI
import FolioConfig
import Foundation
import ProviderAPI
import ProviderCore
import Testing
import TestSupport
import WorkingSetIndex

struct HarnessTimeout: Error, CustomStringConvertible {
  var what: String
  var description: String { "timed out waiting for \(what)" }
}

/// Waits until `condition` holds, checking it between turns of the main actor. The condition is
/// the oracle; the timeout is only a generous bound so a broken app fails instead of hanging.
/// The bound is wide (120 s) because CI runs every suite at once on two shared cores: a folder of
/// three files once took longer than 20 s to list, and (before the blocking suites moved off the
/// cooperative pool) longer than 60 s. Under a CPU burner the whole run's 700 tests each take
/// 40–70 s; `explain` says what was seen instead.
@MainActor
func waitUntil(
  _ what: String, timeout: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation,
  explain: () -> String = { "" },
  _ condition: () async throws -> Bool
) async throws {
  let clock = ContinuousClock()
  let deadline = clock.now + timeout
  while try await !condition() {
    if clock.now >= deadline {
      let seen = explain()
      Issue.record("timed out waiting for \(what)\(seen.isEmpty ? "" : "; seen: \(seen)")", sourceLocation: sourceLocation)
      throw HarnessError.timeout(what)
    }
    await Task.yield()
    try await Task.sleep(for: .milliseconds(1))
  }
}

enum HarnessError: Error { case timeout(String) }

/// The app loop around an InMemoryProvider (the only location, "Memory") and an in-memory index,
/// driven through a VirtualTerminal.
@MainActor
final class Harness {
  /// Opens every file by running /bin/true on it.
  static let trueOpener = OpenerResolver(
    rules: [OpenerRule(match: .extensions(["txt", "png", "md", "pdf", "jpg"]), argv: ["/bin/true", "{path}"])],
    environment: [:], isAvailable: { _ in false })

  let provider: InMemoryProvider
  let index: WorkingSetIndex
  let domain: Domain
  let services: AppServices
  let terminal: VirtualTerminal
  /// The memory location has no local root: it is remote, so files open through the sync engine
  /// (downloaded into `contentRoot`, then given to the opener), as a server's would.
  let engine: SyncEngine
  let contentRoot: URL
  private(set) var app: BrowserApp!
  private var runTask: Task<Void, Never>?
  /// True once `run()` returned.
  private(set) var finished = false
  /// The most pages the Browse list held after any reduced action.
  private(set) var maxPagesHeld = 0

  init(
    provider: InMemoryProvider = InMemoryProvider(domain: .local), width: Int = 100, height: Int = 30,
    openers: OpenerResolver = Harness.trueOpener, remote: RemoteHooks = .none, more: [Domain] = [],
    pathKeyed: Bool = false, viewChoicesFile: URL? = nil
  ) throws {
    _ = Harness.locale
    self.provider = provider
    index = try WorkingSetIndex.inMemory()
    // Path-keyed, the location has no change feed (as an SSH host): the engine runs a listing
    // poller for it.
    let shown: any Provider = pathKeyed ? PathKeyedMemoryProvider(base: provider) : provider
    domain = Domain(identifier: .local, displayName: "Memory", provider: shown, localRoot: nil)
    var registry = DomainRegistry(local: domain)
    // Other locations after Memory (a local folder, for pastes across locations).
    for d in more { try registry.add(d) }
    contentRoot = FileManager.default.temporaryDirectory.appendingPathComponent("folio-harness-\(UUID().uuidString)")
    engine = SyncEngine(registry: registry, index: index, contentRoot: contentRoot, cacheBudget: 1 << 30)
    var services = AppServices(
      registry: registry, items: ItemService(registry: registry, index: index), index: index,
      actions: ActionRunner(userActions: []), openers: openers, sync: engine, remote: remote)
    services.viewChoicesFile = viewChoicesFile
    self.services = services
    terminal = VirtualTerminal(width: width, height: height)
  }

  /// A UTF-8 LC_CTYPE, as `folio` sets up at launch: without it wcwidth answers -1 for every
  /// non-ASCII character, and a right-aligned message starting with “ lost its first column —
  /// but only when no BrowserUITests snapshot had set the locale earlier in the same process.
  static let locale: Void = { _ = DisplayWidth.setUp() }()

  /// A test that failed half way leaves no loop running behind it.
  deinit {
    runTask?.cancel()
    let engine = self.engine
    let root = contentRoot
    Task {
      await engine.stop()
      try? FileManager.default.removeItem(at: root)
    }
  }

  var state: AppState { app.state }

  /// Starts the loop at the root of the memory location (or at `folder`), with the first page
  /// already asked for when `prefetched` is given (as `folio` does at launch).
  func start(at folder: FolderLocation? = nil, prefetched: FirstPagePrefetch? = nil) {
    let locations = services.locationEntries()
    var state = AppState(
      width: terminal.width, height: terminal.height, start: folder ?? locations[0].root, locations: locations)
    state.customActions = services.customActionEntries()
    state.timeZone = TimeZone(identifier: "UTC")!
    app = BrowserApp(
      state: state, terminal: terminal, services: services, prefetched: prefetched.map { (domain.identifier, $0) })
    app.didReduce = { [weak self] s in
      guard let self else { return }
      self.maxPagesHeld = max(self.maxPagesHeld, s.browse.list.pages.count)
    }
    let app = self.app!
    let engine = self.engine
    runTask = Task { @MainActor [weak self] in
      await engine.start()
      await app.run()
      await engine.stop()
      self?.finished = true
    }
  }

  /// Starts and waits for the first folder to be listed.
  func startAndLoad(at folder: FolderLocation? = nil) async throws {
    start(at: folder)
    try await waitForListing()
  }

  func type(_ keys: KeyEvent...) { terminal.type(keys) }
  func type(text: String) { terminal.type(text: text) }

  /// Types q and waits for the loop to end.
  func quit(sourceLocation: SourceLocation = #_sourceLocation) async throws {
    if state.overlay != nil { type(.escape) }
    if state.sidebar.focused { type(.escape) }
    type(.character("q"))
    try await waitUntil("the loop to end after q", sourceLocation: sourceLocation) { finished }
    await runTask?.value
  }

  // MARK: - Reading the UI

  var screen: String { terminal.text }

  /// The names of the rows the Browse list holds, in order.
  var listedNames: [String] { state.browse.list.loadedItems.map(\.filename.displayString) }

  var browsePath: ItemPath? {
    if case .folder(let f) = state.browse.location { return f.path }
    return nil
  }

  var isInTrash: Bool {
    if case .trash = state.browse.location { return true }
    return false
  }

  var menu: MenuState? {
    if case .menu(let m) = state.overlay { return m }
    return nil
  }

  var prompt: PromptState? {
    if case .prompt(let p) = state.overlay { return p }
    return nil
  }

  var tagPicker: TagPickerState? {
    if case .tagPicker(let t) = state.overlay { return t }
    return nil
  }

  // MARK: - Waiting

  /// Waits until the Browse list finished loading, and a screen showing that was presented.
  func waitForListing(sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await waitUntil(
      "the folder to load", sourceLocation: sourceLocation,
      explain: {
        "loading \(state.browse.isLoading), total \(state.browse.list.total.map(String.init) ?? "nil"), "
          + "keys pending \(terminal.pendingKeys), suspended \(terminal.isSuspended), status “\(terminal.statusLine)”"
      }
    ) {
      !state.browse.isLoading && state.browse.list.total != nil && terminal.pendingKeys == 0
        && !terminal.statusLine.contains("loading")
    }
  }

  func waitForScreen(containing text: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    try await waitUntil("the screen to show “\(text)”", sourceLocation: sourceLocation) { screen.contains(text) }
  }

  // MARK: - Driving

  /// Moves the Browse cursor onto the loaded item named `name`, with j/k.
  func select(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    guard let target = listedNames.firstIndex(of: name) else {
      Issue.record("no item named \(name) in \(listedNames)", sourceLocation: sourceLocation)
      throw HarnessError.timeout(name)
    }
    let delta = target - state.browse.cursor
    terminal.type(Array(repeating: delta > 0 ? KeyEvent.character("j") : .character("k"), count: abs(delta)))
    try await waitUntil("the cursor on \(name)", sourceLocation: sourceLocation) {
      state.currentItem?.filename.displayString == name
    }
  }

  /// Opens the context menu and chooses the entry titled `title` with the arrow keys and Enter.
  func chooseFromMenu(_ title: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    type(.character("m"))
    try await waitUntil("the menu", sourceLocation: sourceLocation) { menu != nil }
    try await waitForScreen(containing: title, sourceLocation: sourceLocation)
    guard let m = menu, let i = m.entries.firstIndex(where: { $0.title == title }) else {
      Issue.record("no menu entry \(title) in \(menu?.entries.map(\.title) ?? [])", sourceLocation: sourceLocation)
      throw HarnessError.timeout(title)
    }
    terminal.type(Array(repeating: .down, count: i))
    try await waitUntil("the menu cursor on \(title)", sourceLocation: sourceLocation) { menu?.cursor == i }
    type(.enter)
  }

  /// Focuses the sidebar, moves to the first entry matching `matches` and chooses it.
  func chooseInSidebar(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation, _ matches: (SidebarEntry) -> Bool
  ) async throws {
    type(.character("b"))
    try await waitUntil("the sidebar to take focus", sourceLocation: sourceLocation) { state.sidebar.focused }
    guard let target = state.sidebar.entries.firstIndex(where: matches) else {
      Issue.record("no sidebar entry \(what) in \(state.sidebar.entries)", sourceLocation: sourceLocation)
      throw HarnessError.timeout(what)
    }
    while state.sidebar.cursor != target {
      let before = state.sidebar.cursor
      type(before < target ? .down : .up)
      try await waitUntil("the sidebar cursor to move", sourceLocation: sourceLocation) { state.sidebar.cursor != before }
    }
    type(.enter)
    try await waitUntil("the sidebar to let go of focus", sourceLocation: sourceLocation) { !state.sidebar.focused }
  }
}
