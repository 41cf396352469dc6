import ProviderAPI

/// Pages of folders, fetched as the reader needs them, cancelled when superseded.
///
/// The reader opens an enumeration and gets a ticket; pages arrive as ``EnumerationEvent``s on
/// one stream. Pages are numbered (page *k* holds items `k × pageSize ..< (k+1) × pageSize`), and
/// the service remembers the token that fetches each page it has seen, so a reader that keeps only
/// the pages near its viewport (a list of a million entries must not hold a million items) can ask
/// for an evicted page again. Two kinds of reader:
///
/// - **sequential** (`reading(upTo:)`, `readAll`: the command line's `ls`): every page up to the
///   one read, in order, and `prefetchPages` beyond;
/// - **random access** (`request(pages:)`: the browser's list): the pages of the viewport. Each
///   request replaces the one before (the reader moved on), and a request longer than
///   `deliveredPagesPerRequest` pages — End on a list of unknown length — gets only its last pages:
///   the reader would evict the others at once.
///
/// Reaching a far page: a provider whose tokens are positions (`Provider.pageToken(at:from:in:)`,
/// the local provider's snapshots) is asked for that page directly, so End on a million entries
/// costs one page. Other providers can only be walked page after page; the pages walked through
/// only to learn the next token are not delivered. Either way the service never runs ahead of the
/// reader by more than the pages it asked for (and `prefetchPages` for a sequential reader), and
/// delivers nothing the reader did not ask for: backpressure, so that the event stream (unbounded)
/// never buffers a folder's worth of items.
///
/// Opening a new enumeration in the same slot (the browser's list, a folder picker) cancels the
/// old one; anything it still produces is dropped. The container is watched for changes
/// (`Provider.changeSignals`) once the first page has arrived, never before: adding a watch can be
/// slow (inotify walks a huge folder's children), and the first screen must not wait for it.
public actor EnumerationService {
  public nonisolated let events: AsyncStream<EnumerationEvent>
  private let continuation: AsyncStream<EnumerationEvent>.Continuation
  private let prefetchPages: Int
  /// The most pages one random-access request gets delivered (its last ones).
  public let deliveredPagesPerRequest: Int

  private struct Enumeration {
    let provider: any Provider
    let request: EnumerationRequest
    let slot: String
    let watch: Bool
    /// The first page, already asked for before the enumeration was opened (at launch).
    var prefetched: FirstPagePrefetch?
    /// The token that fetches page k (page 0 needs none).
    var tokens: [Int: Page] = [:]
    /// Index of the last page, once a page came back without a next token.
    var lastPage: Int?
    /// Index of the last page from the provider's total count (before the last page is seen).
    var countedLastPage: Int?
    /// Sequential demand: every page up to this one is delivered, in order (`reading(upTo:)`).
    var wantThrough: Int
    /// The next page the sequential reader has not been given yet.
    var nextSequential = 0
    /// The pages of the reader's latest request not delivered yet, ascending.
    var wanted: [Int] = []
    /// The latest request runs to the end of a listing whose end is not known yet: once it is,
    /// `wanted` becomes the request's last pages.
    var wantedToEnd: Int?
    var loader: Task<Void, Never>?
    var watcher: Task<Void, Never>?
    var failed = false

    var knownLastPage: Int? { lastPage ?? countedLastPage }
  }

  private var nextTicket: UInt64 = 1
  private var open: [EnumerationTicket: Enumeration] = [:]
  private var slots: [String: EnumerationTicket] = [:]
  /// Tickets handed out by `reserveTicket()` and not opened yet; those closed meanwhile are refused.
  private var reserved: Set<EnumerationTicket> = []

  /// - Parameters:
  ///   - prefetchPages: pages fetched beyond the first at open, and beyond what a sequential
  ///     reader has read.
  ///   - deliveredPagesPerRequest: the most pages one `request(pages:)` gets (its last ones).
  public init(prefetchPages: Int = 1, deliveredPagesPerRequest: Int = 8) {
    self.prefetchPages = max(0, prefetchPages)
    self.deliveredPagesPerRequest = max(1, deliveredPagesPerRequest)
    (events, continuation) = AsyncStream.makeStream(of: EnumerationEvent.self, bufferingPolicy: .unbounded)
  }

  /// Starts enumerating `request.container`; the first page (and the prefetched ones) follow as events.
  /// - Parameters:
  ///   - watch: also report `containerChanged` when the provider signals a change (watched from
  ///     the first page on).
  ///   - prefetched: the first page, already asked for (at launch); used when it is for this
  ///     request, else ignored.
  ///   - ticket: a ticket from `reserveTicket()`, so the caller could file it before any event for
  ///     it can exist; nothing is opened if it was closed meanwhile.
  @discardableResult
  public func open(
    _ request: EnumerationRequest, on provider: any Provider, slot: String = "main", watch: Bool = true,
    prefetched: FirstPagePrefetch? = nil, ticket reservedTicket: EnumerationTicket? = nil
  ) -> EnumerationTicket {
    let ticket: EnumerationTicket
    if let reservedTicket {
      guard reserved.remove(reservedTicket) != nil else { return reservedTicket }
      ticket = reservedTicket
    } else {
      ticket = EnumerationTicket(rawValue: nextTicket)
      nextTicket += 1
    }
    if let old = slots[slot] { close(old) }
    let e = Enumeration(
      provider: provider, request: request, slot: slot, watch: watch,
      prefetched: prefetched?.request == request ? prefetched : nil, wantThrough: prefetchPages)
    open[ticket] = e
    slots[slot] = ticket
    startLoading(ticket)
    return ticket
  }

  /// A ticket for an enumeration to be opened with `open(…, ticket:)`: a reader that maps tickets
  /// to its own can file it before the first event for it exists.
  public func reserveTicket() -> EnumerationTicket {
    let ticket = EnumerationTicket(rawValue: nextTicket)
    nextTicket += 1
    reserved.insert(ticket)
    return ticket
  }

  /// The page size of an enumeration's pages (the request's suggested size).
  public func pageSize(of ticket: EnumerationTicket) -> Int? { open[ticket]?.request.suggestedPageSize }

  /// A sequential reader shows rows up to `index`: every page up to it, and `prefetchPages` beyond.
  public func reading(_ ticket: EnumerationTicket, upTo index: Int) {
    guard let e = open[ticket], !e.failed else { return }
    let size = max(1, e.request.suggestedPageSize)
    let last = index / size + max(1, prefetchPages)
    guard last > e.wantThrough else { return }
    open[ticket]?.wantThrough = last
    startLoading(ticket)
  }

  /// A random-access reader needs these pages (its viewport; evicted pages it scrolls back to;
  /// the end of the list). Replaces the previous request: pages asked for before and not
  /// delivered yet are no longer wanted. Of a request longer than `deliveredPagesPerRequest`
  /// pages only the last ones are delivered; a range past the end is cut at the last page.
  public func request(_ ticket: EnumerationTicket, pages: ClosedRange<Int>) {
    guard var e = open[ticket], !e.failed else { return }
    // The reader reads by number now: the pages prefetched at open that are not fetched yet are
    // no longer needed in sequence.
    e.wantThrough = min(e.wantThrough, max(0, e.nextSequential - 1))
    e.wanted = []
    e.wantedToEnd = nil
    if let last = e.knownLastPage {
      e.wanted = Self.delivered(of: pages, last: last, limit: deliveredPagesPerRequest)
    } else if pages.count > deliveredPagesPerRequest {
      // The end is not known yet: walk to it, then deliver the request's last pages.
      e.wantedToEnd = pages.lowerBound
    } else {
      e.wanted = Array(pages)
    }
    open[ticket] = e
    startLoading(ticket)
  }

  /// The pages of `pages` that are delivered: at most `limit`, the last ones, none past `last`.
  static func delivered(of pages: ClosedRange<Int>, last: Int, limit: Int) -> [Int] {
    let upper = min(pages.upperBound, last)
    guard pages.lowerBound <= upper else { return [] }
    return Array(max(pages.lowerBound, upper - limit + 1)...upper)
  }

  /// Asks for everything (the command line's `ls`, a "select all").
  public func readAll(_ ticket: EnumerationTicket) { reading(ticket, upTo: Int.max / 4) }

  public func close(_ ticket: EnumerationTicket) {
    reserved.remove(ticket)
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
    reserved = []
    continuation.finish()
  }

  // MARK: - Loading

  private func startLoading(_ ticket: EnumerationTicket) {
    guard var e = open[ticket], e.loader == nil, nextFetch(e) != nil else { return }
    e.loader = Task { [weak self] in await self?.load(ticket) }
    open[ticket] = e
  }

  /// The page whose token is known (or can be made) closest before `page`, to fetch next on the
  /// way to it; `page` itself when it can be fetched now.
  private func stepToward(_ page: Int, _ e: Enumeration) -> Int {
    if page == 0 || e.tokens[page] != nil { return page }
    if let any = e.tokens.values.first,
      e.provider.pageToken(at: page * max(1, e.request.suggestedPageSize), from: any, in: e.request) != nil
    {
      return page
    }
    return e.tokens.keys.filter { $0 < page }.max() ?? 0
  }

  /// The next page to fetch: toward what the reader asked for last, else the sequential demand.
  private func nextFetch(_ e: Enumeration) -> Int? {
    if e.failed { return nil }
    if e.wantedToEnd != nil {
      // Walk on from the furthest page known.
      return e.tokens.keys.max() ?? 0
    }
    if let p = e.wanted.first { return stepToward(p, e) }
    if e.nextSequential <= e.wantThrough && e.nextSequential <= (e.lastPage ?? Int.max) {
      return stepToward(e.nextSequential, e)
    }
    return nil
  }

  private func token(for page: Int, _ e: Enumeration) -> Page? {
    if page == 0 { return nil }
    if let t = e.tokens[page] { return t }
    guard let any = e.tokens.values.first else { return nil }
    return e.provider.pageToken(at: page * max(1, e.request.suggestedPageSize), from: any, in: e.request)
  }

  private func load(_ ticket: EnumerationTicket) async {
    while var e = open[ticket], let pageIndex = nextFetch(e), !Task.isCancelled {
      let provider = e.provider
      let request = e.request
      let pageToken = token(for: pageIndex, e)
      let cont = continuation
      let prefetched = pageIndex == 0 ? e.prefetched : nil
      if prefetched != nil {
        e.prefetched = nil
        open[ticket] = e
      }
      let outcome: Result<ItemPage, ProviderError>
      if let prefetched {
        outcome = await prefetched.adopt { cont.yield(.progress(ticket, $0)) }
      } else {
        do throws(ProviderError) {
          outcome = .success(
            try await provider.enumerate(request, page: pageToken) { p in
              if pageIndex == 0 { cont.yield(.progress(ticket, p)) }
            })
        } catch {
          outcome = .failure(error)
        }
      }
      // Superseded or closed while waiting: drop the page.
      guard var cur = open[ticket], !Task.isCancelled else { return }
      switch outcome {
      case .success(let result):
        let size = max(1, request.suggestedPageSize)
        if let next = result.nextPage {
          cur.tokens[pageIndex + 1] = next
        } else {
          cur.lastPage = pageIndex
        }
        if let total = result.totalCount { cur.countedLastPage = max(0, (total - 1) / size) }
        if let start = cur.wantedToEnd, let last = cur.knownLastPage {
          cur.wantedToEnd = nil
          cur.wanted = Self.delivered(of: start...Int.max / 2, last: last, limit: deliveredPagesPerRequest)
        }
        var deliver = false
        if let i = cur.wanted.firstIndex(of: pageIndex) {
          cur.wanted.remove(at: i)
          deliver = true
        }
        if pageIndex == cur.nextSequential && pageIndex <= cur.wantThrough {
          cur.nextSequential += 1
          deliver = true
        }
        if let last = cur.knownLastPage { cur.wanted.removeAll { $0 > last } }
        let startWatching = pageIndex == 0 && cur.watch && cur.watcher == nil
        if startWatching { cur.watcher = watch(ticket, cur) }
        open[ticket] = cur
        if deliver {
          continuation.yield(
            .page(
              ticket, offset: pageIndex * size, items: result.items, totalCount: result.totalCount,
              isComplete: result.nextPage == nil))
        }
        if pageIndex == 0, let container = result.container {
          continuation.yield(.containerRead(ticket, container, totalCount: result.totalCount))
        }
      case .failure(let error):
        if error.code == .pageExpired && pageIndex > 0 {
          // The folder changed under the listing: start over from the first page.
          cur.tokens = [:]
          cur.lastPage = nil
          cur.countedLastPage = nil
          cur.wanted = []
          cur.wantedToEnd = nil
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

  /// Watches the container from now on (after the first page). Detached: a provider may take a
  /// while to set its watch up, and the actor must keep answering meanwhile.
  private func watch(_ ticket: EnumerationTicket, _ e: Enumeration) -> Task<Void, Never> {
    let provider = e.provider
    let container = e.request.container
    return Task.detached { [weak self] in
      let signals = provider.changeSignals(for: container)
      for await _ in signals {
        guard let self, !Task.isCancelled else { return }
        await self.signal(ticket)
      }
    }
  }

  private func signal(_ ticket: EnumerationTicket) {
    guard open[ticket] != nil else { return }
    continuation.yield(.containerChanged(ticket))
  }
}
