import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore
import WorkingSetIndex

/// The main loop: terminal input → Action → reduce → Effect → engine → Action.
///
/// One owner for UI state (this loop, on the main actor). Every piece of I/O runs in a task and
/// comes back as an Action; the loop only reads keys with a short timeout, reduces, and presents a
/// new Screen when something changed, so a stalled provider never delays a keystroke.
@MainActor
public final class BrowserApp {
  public private(set) var state: AppState
  let terminal: any TerminalDevice
  let services: AppServices
  let enumerations = EnumerationService(prefetchPages: 1)
  /// UI ticket → the service's ticket, and back.
  var serviceTickets: [UInt64: EnumerationTicket] = [:]
  /// The folder on screen as its listing poller knows it (storage without a change feed).
  var polledFolder: (domain: DomainIdentifier, folder: ItemIdentifier)?
  /// Polled folders shown before in this run: a second visit may paint from the provider's last
  /// reading (`EnumerationRequest.Freshness.recent`), so the poller reads it again at once.
  var polledBefore: Set<ItemKey> = []
  var uiTickets: [EnumerationTicket: UInt64] = [:]
  /// The domain of each UI ticket whose enumeration is open (cleared when it is closed).
  var domainOfTicket: [UInt64: DomainIdentifier] = [:]
  /// The start folder's first page, already asked for at launch (see `FirstPagePrefetch`).
  var prefetched: (domain: DomainIdentifier, page: FirstPagePrefetch)?
  /// Actions waiting for the loop.
  var pending: [Action] = []
  var running = true
  var dirty = true
  var recentsTask: Task<Void, Never>?
  /// Keeps the sidebar's Favorites and Tags live (`observeSidebar`); nil until the first refresh.
  var sidebarTask: Task<Void, Never>?
  var eventsTask: Task<Void, Never>?
  var backgroundJobs: Set<Int> = []
  var nextBackground = 0
  /// The sync engine's listener and the remote locations' status checks (BrowserApp+Sync.swift).
  var syncTasks: [Task<Void, Never>] = []
  /// Locations whose transfer count is being read.
  var countingDomains: Set<DomainIdentifier> = []
  /// The preview pane's job (at most one: a new subject cancels it, and its helper is killed).
  var previewJob: Task<Void, Never>?
  /// Previews made this session, within 8 MiB (the brief's budget).
  let previews = PreviewCache(budget: 8 << 20)
  /// When the last preview was asked for: one asked for right after it is a held key.
  var lastPreviewRequest: ContinuousClock.Instant?
  /// Folder sizes being counted for Info, by ticket (BrowserApp+FolderSize.swift).
  var folderCounts: [UInt64: Task<Void, Never>] = [:]
  /// Called with the new state after every action is reduced (tests check invariants that must
  /// hold at every step, not only at the moments they look).
  public var didReduce: (@MainActor (AppState) -> Void)?
  /// Keeps the sort and hidden-files choice (BrowserApp+GoTo.swift), the newest write winning.
  let viewChoicesWriter = ViewChoicesWriter()
  var viewChoicesGeneration = 0
  var viewChoicesTask: Task<Void, Never>?

  /// - Parameter prefetched: the start folder's first page, asked for before the app existed
  ///   (the launch reads the folder while the index, the theme and the terminal are set up).
  public init(
    state: AppState, terminal: any TerminalDevice, services: AppServices,
    prefetched: (domain: DomainIdentifier, page: FirstPagePrefetch)? = nil
  ) {
    self.state = state
    self.terminal = terminal
    self.services = services
    self.prefetched = prefetched
  }

  /// Delivers an action from anywhere; the loop reduces it on its next turn (at once if waiting).
  public func send(_ action: Action) {
    pending.append(action)
    wakeup.signal()
  }

  /// What the loop waits on between turns: an action sent, a key typed, or its timeout.
  let wakeup = LoopWakeup()

  /// Runs until the user quits (or the task running it is cancelled). The terminal is restored by
  /// the caller (`shutdown`) in a defer.
  public func run() async {
    let size = terminal.size
    state.width = size.width
    state.height = size.height
    startEnumerationEvents()
    if let broker = services.signIn {
      broker.attach { [weak self] question in
        Task { @MainActor in self?.send(.signInQuestion(question)) }
      }
    }
    startSync()
    watchOtherWriters()
    perform(state.start())
    var lastTick = Date()
    while running && !Task.isCancelled {
      await drain()
      if dirty {
        drawFrame()
        dirty = false
      }
      guard running else { break }
      // Wait for the next thing to do without holding the main actor: the tasks that bring pages
      // and answers hop through it, and a loop blocked in readKey would hold each hop up to its
      // timeout (several hops stood between a folder's first page and the screen). A terminal
      // that cannot wake the loop is polled with the timeout instead. Idle — nothing reduced for
      // 100 ms, nothing loading, no page awaited — the loop blocks in readKey again: a key wakes
      // it there without a hop through a wakeup task (Down answers faster).
      var wait = pending.isEmpty ? 15 : 0
      let quiet = Date().timeIntervalSince(lastActivity)
      let idle = terminal.readKeyWaits && !isBusy && quiet > 0.1 && !(expectingPages && quiet < 2)
      // Idle, the loop reads the key itself: a watch left armed by a busy turn would wake a
      // dispatch thread (created anew after a quiet spell) for every key, on the cores the key's
      // frame needs.
      if idle { terminal.stopWakingOnInput() }
      if wait > 0 && !idle {
        let wakeup = self.wakeup
        if terminal.wakeWhenInputArrives({ Task { @MainActor in wakeup.signal() } }) {
          await wakeup.wait(milliseconds: wait)
          wait = 0
        }
      }
      if let key = terminal.readKey(timeoutMilliseconds: pending.isEmpty ? wait : 0) {
        reduce(.key(key))
        // Take every key already typed before drawing again (key repeat, pastes).
        var extra = 0
        while extra < 64, let more = terminal.readKey(timeoutMilliseconds: 0) {
          reduce(.key(more))
          extra += 1
        }
        // The key's frame goes out from this thread, now: after the yield below, the loop resumes
        // on another of the pool's threads (a futex wake, and on a busy machine a wait for a
        // core) before it could draw (docs/BENCHMARKS.md, issue 13: Down key).
        await drain()
        if dirty {
          drawFrame()
          dirty = false
        }
      }
      if Date().timeIntervalSince(lastTick) > 0.12, isBusy {
        lastTick = Date()
        reduce(.tick)
      }
      await Task.yield()
    }
    // ssh processes still waiting on a question get "no" and end.
    services.signIn?.detach()
    recentsTask?.cancel()
    sidebarTask?.cancel()
    sidebarTask = nil
    eventsTask?.cancel()
    for t in syncTasks { t.cancel() }
    await enumerations.shutdown()
    // A choice changed just before q is in the file before Folio exits.
    await viewChoicesTask?.value
  }

  /// Two grids drawn into in turn: the terminal keeps the one it presented last (to compare the
  /// next frame with), so the other is this loop's alone and is drawn over in place — a frame
  /// allocates no grid (docs/BENCHMARKS.md, issue 13: the Down key).
  var frame = Screen(width: 0, height: 0)
  var spareFrame = Screen(width: 0, height: 0)

  func drawFrame() {
    swap(&frame, &spareFrame)
    AppView.render(state, into: &frame)
    terminal.present(frame)
  }

  var isBusy: Bool { state.browse.isLoading || !backgroundJobs.isEmpty || state.preview.loadingVisible }

  func drain() async {
    var n = 0
    while !pending.isEmpty && n < 256 {
      let a = pending.removeFirst()
      reduce(a)
      n += 1
    }
  }

  /// When an action was last reduced, and whether pages were asked for and none came since
  /// (see the loop's wait).
  var lastActivity = Date()
  var expectingPages = false

  func reduce(_ action: Action) {
    lastActivity = Date()
    switch action {
    case .pageLoaded, .loadFailed, .loadRestarted: expectingPages = false
    default: break
    }
    state.messageLog.now = lastActivity
    let effects = state.reduce(action)
    dirty = true
    didReduce?(state)
    perform(effects)
  }

  // MARK: - Effects

  func perform(_ effects: [Effect]) {
    for e in effects { perform(e) }
  }

  func perform(_ effect: Effect) {
    switch effect {
    case .enumerate(let ticket, let location, let sort, let hidden, let pageSize):
      expectingPages = true
      startEnumeration(ticket: ticket, location: location, sort: sort, hidden: hidden, pageSize: pageSize)
    case .requestPages(let ticket, let pages):
      expectingPages = true
      guard let t = serviceTickets[ticket] else { return }
      Task { await enumerations.request(t, pages: pages) }
    case .closeEnumeration(let ticket):
      domainOfTicket[ticket] = nil
      guard let t = serviceTickets.removeValue(forKey: ticket) else { return }
      uiTickets[t] = nil
      Task { await enumerations.close(t) }
    case .open(let item, let domain):
      openItem(item, domain: domain)
    case .quit:
      running = false
    case .loadRecents(let tag):
      observeRecents(tag: tag)
    case .search(let query):
      background { services throws(ProviderError) in
        let rows = try services.index.search(query, limit: 500).map(IndexedRow.init)
        return .searchResults(query: query, rows)
      }
    case .refreshSidebar:
      observeSidebar()
    case .authenticate(let domainID, let user, let secret, let remember):
      authenticate(domainID, user: user, secret: secret, remember: remember)
    case .answerSignInQuestion(let id, let answer):
      services.signIn?.answer(id, answer)
    case .openEntry(let row):
      resolveEntry(row)
    case .checkEntries(let rows):
      checkEntries(rows)
    case .listFolderNow(let f):
      // Reload is the person's Retry: a location that stopped trying (an extension's breaker)
      // tries again.
      (services.registry.domain(f.domain)?.provider as? any RetryableProvider)?.retryNow()
      if let id = f.identifier { services.sync?.listingPoller(for: f.domain)?.refresh(id) }
    case .forgetEntry(let row):
      guard let domain = services.registry.domain(row.domain) else { return }
      background { services throws(ProviderError) in
        try services.items.forget(row.item, in: domain)
        return .operationSucceeded(
          message: "Removed “\(row.item.filename.displayString)”: it no longer exists", reload: false, select: nil)
      }
    case .preview(let ticket, let subject):
      startPreview(ticket: ticket, subject)
    case .bulkRename(let items, let folder, let sort, let hidden):
      bulkRename(items, in: folder, sort: sort, includeHidden: hidden)
    case .cancelPreview:
      previewJob?.cancel()
      previewJob = nil
    case .runShellCommand, .openShell, .copyToSystemClipboard:
      performShell(effect)
    case .resolveGoTo, .listCompletions, .saveViewChoices, .saveOpenWithHistory:
      performNavigation(effect)
    default:
      performOperation(effect)
    }
  }

  /// Runs a closure off the loop and sends the action it returns (or the error). An operation's
  /// answer names the effect it came from (`retry`'s), so only that effect's prompt reacts to it.
  func background(
    retry: (DomainIdentifier, Effect)? = nil, _ body: @escaping @Sendable (AppServices) async throws(ProviderError) -> Action
  ) {
    let origin = retry?.1
    let services = self.services
    let id = nextBackground
    nextBackground += 1
    backgroundJobs.insert(id)
    Task.detached {
      let action: Action
      do throws(ProviderError) {
        let answer = try await body(services)
        if case .operationSucceeded(let m, let r, let s, nil) = answer, let origin {
          action = .operationSucceeded(message: m, reload: r, select: s, from: origin)
        } else {
          action = answer
        }
      } catch {
        // A provider that needs credentials: ask, and run the same work again once signed in.
        if error.code == .notAuthenticated, let (domain, effect) = retry {
          action = .authenticationRequired(domain, retry: [effect], reason: error.message)
        } else {
          action = .operationFailed(error, from: origin)
        }
      }
      await MainActor.run {
        self.backgroundJobs.remove(id)
        self.send(action)
      }
    }
  }
}

extension IndexedRow {
  init(_ i: IndexedItem) { self.init(item: i.item(), domain: i.domain, isDeleted: i.isTrashed) }
}

/// The loop's wait: until `signal()` (an action sent, input arrived) or a timeout, suspended — so
/// every other main-actor job runs meanwhile.
@MainActor
final class LoopWakeup {
  private var waiter: CheckedContinuation<Void, Never>?
  private var timer: Task<Void, Never>?
  private var signalled = false

  func signal() {
    guard let waiter else {
      signalled = true
      return
    }
    self.waiter = nil
    timer?.cancel()
    timer = nil
    waiter.resume()
  }

  func wait(milliseconds: Int) async {
    if signalled {
      signalled = false
      return
    }
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
      waiter = c
      timer = Task { [weak self] in
        try? await Task.sleep(for: .milliseconds(milliseconds))
        guard !Task.isCancelled else { return }
        self?.signal()
      }
    }
    signalled = false
  }
}
