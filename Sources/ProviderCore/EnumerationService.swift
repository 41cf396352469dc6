import ProviderAPI

/// Pages of folders, fetched ahead of the reader, cancelled when superseded.
///
/// The reader opens an enumeration and gets a ticket; pages arrive as ``EnumerationEvent``s on
/// one stream. The service keeps `prefetchPages` pages ahead of the last row the reader said it is
/// looking at, so scrolling a folder of a million entries asks for ~200 items at a time and never
/// for the whole folder. Opening a new enumeration in the same slot (the browser's list, a folder
/// picker) cancels the old one; anything it still produces is dropped.
public actor EnumerationService {
  public nonisolated let events: AsyncStream<EnumerationEvent>
  private let continuation: AsyncStream<EnumerationEvent>.Continuation
  private let prefetchPages: Int

  private struct Enumeration {
    let provider: any Provider
    let request: EnumerationRequest
    let slot: String
    var nextPage: Page?
    var loaded = 0
    var wanted: Int
    var complete = false
    var loader: Task<Void, Never>?
    var watcher: Task<Void, Never>?
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
    var e = Enumeration(
      provider: provider, request: request, slot: slot, wanted: request.suggestedPageSize * (1 + prefetchPages))
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

  /// The reader shows rows up to `index`: keep `prefetchPages` pages beyond it loaded.
  public func reading(_ ticket: EnumerationTicket, upTo index: Int) {
    guard var e = open[ticket] else { return }
    let want = index + 1 + e.request.suggestedPageSize * max(1, prefetchPages)
    if want > e.wanted {
      e.wanted = want
      open[ticket] = e
      startLoading(ticket)
    }
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
    guard var e = open[ticket], e.loader == nil, !e.complete, e.loaded < e.wanted else { return }
    e.loader = Task { [weak self] in await self?.load(ticket) }
    open[ticket] = e
  }

  private func load(_ ticket: EnumerationTicket) async {
    while let e = open[ticket], !e.complete, e.loaded < e.wanted, !Task.isCancelled {
      let provider = e.provider
      let request = e.request
      let page = e.nextPage
      let isFirst = e.loaded == 0 && page == nil
      let cont = continuation
      do {
        let result = try await provider.enumerate(request, page: page) { p in
          if isFirst { cont.yield(.progress(ticket, p)) }
        }
        // Superseded or closed while waiting: drop the page.
        guard var cur = open[ticket], !Task.isCancelled else { return }
        let offset = cur.loaded
        cur.loaded += result.items.count
        cur.nextPage = result.nextPage
        cur.complete = result.nextPage == nil
        open[ticket] = cur
        continuation.yield(
          .page(ticket, offset: offset, items: result.items, totalCount: result.totalCount, isComplete: cur.complete))
      } catch {
        guard var cur = open[ticket], !Task.isCancelled else { return }
        if error.code == .pageExpired && cur.nextPage != nil {
          cur.loaded = 0
          cur.nextPage = nil
          open[ticket] = cur
          continuation.yield(.restarted(ticket))
          continue
        }
        if error.code == .cancelled { return }
        cur.complete = true
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
