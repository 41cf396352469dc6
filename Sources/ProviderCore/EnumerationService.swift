import ProviderAPI

/// Pages of folders, fetched ahead of the reader, cancelled when superseded.
///
/// The reader opens an enumeration and gets a ticket; pages arrive as ``EnumerationEvent``s on
/// one stream. Pages are numbered (page *k* holds items `k × pageSize ..< (k+1) × pageSize`), and
/// the service remembers the token that fetches each page it has seen, so a reader that keeps only
/// the pages near its viewport (a list of a million entries must not hold a million items) can ask
/// for an evicted page again. `reading(upTo:)` keeps `prefetchPages` pages ahead of the reader.
/// Opening a new enumeration in the same slot (the browser's list, a folder picker) cancels the
/// old one; anything it still produces is dropped.
public actor EnumerationService {
  public nonisolated let events: AsyncStream<EnumerationEvent>
  private let continuation: AsyncStream<EnumerationEvent>.Continuation
  private let prefetchPages: Int

  private struct Enumeration {
    let provider: any Provider
    let request: EnumerationRequest
    let slot: String
    /// The token that fetches page k (page 0 needs none).
    var tokens: [Int: Page] = [:]
    /// Index of the last page, once a page came back without a next token.
    var lastPage: Int?
    /// Sequential demand: every page up to this one (from `reading(upTo:)`).
    var wantThrough: Int
    /// The next page the sequential reading has not fetched yet.
    var nextSequential = 0
    /// Pages before `nextSequential` asked for again (a reader that evicted them).
    var revisit: Set<Int> = []
    var loader: Task<Void, Never>?
    var watcher: Task<Void, Never>?
    var failed = false
  }

  private var nextTicket: UInt64 = 1
  private var open: [EnumerationTicket: Enumeration] = [:]
  private var slots: [String: EnumerationTicket] = [:]

  public init(prefetchPages: Int = 1) {
    self.prefetchPages = max(0, prefetchPages)
    (events, continuation) = AsyncStream.makeStream(of: EnumerationEvent.self, bufferingPolicy: .unbounded)
  }

  /// Starts enumerating `request.container`; the first page (and the prefetched ones) follow as events.
  /// - Parameter watch: also report `containerChanged` when the provider signals a change.
  @discardableResult
  public func open(_ request: EnumerationRequest, on provider: any Provider, slot: String = "main", watch: Bool = true)
    -> EnumerationTicket
  {
    if let old = slots[slot] { close(old) }
    let ticket = EnumerationTicket(rawValue: nextTicket)
    nextTicket += 1
    var e = Enumeration(provider: provider, request: request, slot: slot, wantThrough: prefetchPages)
    if watch {
      let signals = provider.changeSignals(for: request.container)
      e.watcher = Task { [weak self] in
        for await _ in signals {
          guard let self else { return }
          await self.signal(ticket)
        }
      }
    }
    open[ticket] = e
    slots[slot] = ticket
    startLoading(ticket)
    return ticket
  }

  /// The page size of an enumeration's pages (the request's suggested size).
  public func pageSize(of ticket: EnumerationTicket) -> Int? { open[ticket]?.request.suggestedPageSize }

  /// The reader shows rows up to `index`: load every page up to it and `prefetchPages` beyond.
  public func reading(_ ticket: EnumerationTicket, upTo index: Int) {
    guard let e = open[ticket], !e.failed else { return }
    let size = max(1, e.request.suggestedPageSize)
    let last = index / size + max(1, prefetchPages)
    guard last > e.wantThrough else { return }
    open[ticket]?.wantThrough = last
    startLoading(ticket)
  }

  /// Asks for pages by number (a reader coming back to pages it evicted, or jumping to the end).
  /// Pages whose token is not known yet are reached by fetching the pages before them.
  public func request(_ ticket: EnumerationTicket, pages: ClosedRange<Int>) {
    guard var e = open[ticket], !e.failed else { return }
    let upper = min(pages.upperBound, e.lastPage ?? Int.max)
    guard pages.lowerBound <= upper else { return }
    // Pages already passed are fetched again by their token; the rest extend the sequential demand.
    let revisitUpper = min(upper, e.nextSequential - 1)
    if pages.lowerBound <= revisitUpper {
      for p in pages.lowerBound...revisitUpper where e.tokens[p] != nil || p == 0 { e.revisit.insert(p) }
    }
    e.wantThrough = max(e.wantThrough, upper)
    open[ticket] = e
    startLoading(ticket)
  }

  /// Asks for everything (the command line's `ls`, a "select all").
  public func readAll(_ ticket: EnumerationTicket) { reading(ticket, upTo: Int.max / 4) }

  public func close(_ ticket: EnumerationTicket) {
    guard let e = open.removeValue(forKey: ticket) else { return }
    e.loader?.cancel()
    e.watcher?.cancel()
    if slots[e.slot] == ticket { slots[e.slot] = nil }
  }

  /// Whether the ticket is the live one (for readers that want to check before merging).
  public func isCurrent(_ ticket: EnumerationTicket) -> Bool { open[ticket] != nil }

  /// Finishes the event stream (at shutdown).
  public func shutdown() {
    for t in Array(open.keys) { close(t) }
    continuation.finish()
  }

  // MARK: - Loading

  private func startLoading(_ ticket: EnumerationTicket) {
    guard var e = open[ticket], e.loader == nil, nextPage(e) != nil else { return }
    e.loader = Task { [weak self] in await self?.load(ticket) }
    open[ticket] = e
  }

  /// The next page to fetch: a page asked for again, else the next one in sequence if wanted.
  private func nextPage(_ e: Enumeration) -> Int? {
    if e.failed { return nil }
    if let p = e.revisit.min() { return p }
    if e.nextSequential <= e.wantThrough && e.nextSequential <= (e.lastPage ?? Int.max) { return e.nextSequential }
    return nil
  }

  private func load(_ ticket: EnumerationTicket) async {
    while let e = open[ticket], let pageIndex = nextPage(e), !Task.isCancelled {
      let provider = e.provider
      let request = e.request
      let token = pageIndex == 0 ? nil : e.tokens[pageIndex]
      let isFirst = pageIndex == 0
      let cont = continuation
      do {
        let result = try await provider.enumerate(request, page: token) { p in
          if isFirst { cont.yield(.progress(ticket, p)) }
        }
        // Superseded or closed while waiting: drop the page.
        guard var cur = open[ticket], !Task.isCancelled else { return }
        cur.revisit.remove(pageIndex)
        if pageIndex == cur.nextSequential { cur.nextSequential += 1 }
        if let next = result.nextPage {
          cur.tokens[pageIndex + 1] = next
        } else {
          cur.lastPage = pageIndex
        }
        open[ticket] = cur
        let size = max(1, request.suggestedPageSize)
        continuation.yield(
          .page(
            ticket, offset: pageIndex * size, items: result.items, totalCount: result.totalCount,
            isComplete: result.nextPage == nil))
      } catch {
        guard var cur = open[ticket], !Task.isCancelled else { return }
        if error.code == .pageExpired && pageIndex > 0 {
          // The folder changed under the listing: start over from the first page.
          cur.tokens = [:]
          cur.lastPage = nil
          cur.revisit = []
          cur.nextSequential = 0
          open[ticket] = cur
          continuation.yield(.restarted(ticket))
          continue
        }
        if error.code == .cancelled { return }
        cur.failed = true
        cur.loader = nil
        open[ticket] = cur
        continuation.yield(.failed(ticket, error))
        return
      }
    }
    open[ticket]?.loader = nil
  }

  private func signal(_ ticket: EnumerationTicket) {
    guard open[ticket] != nil else { return }
    continuation.yield(.containerChanged(ticket))
  }
}
