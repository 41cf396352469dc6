import Foundation

/// Runs ``MultistatusParser`` over a ``ChunkFeed`` on a thread of its own and hands its entries to
/// an async consumer in batches, one batch at a time.
///
/// The thread: the parser is fed by blocking reads of the feed, which must not hold a thread of
/// Swift's cooperative pool for as long as a large listing streams in. The handoff: the parser
/// waits while the consumer works on a batch (writes it to an index, say), so a slow consumer slows
/// the parser, the parser slows the feed, the feed slows the socket, and memory holds one batch
/// plus the feed's bound whatever the folder's size.
final class MultistatusReader: @unchecked Sendable {
  /// What the parse found besides the children.
  struct Outcome {
    /// The entry of the path that was asked for.
    var requested: WebDAVEntry?
    var children = 0
    var failedResponses = 0
  }

  let feed = ChunkFeed()
  private let handoff = BatchHandoff()
  private let lock = NSLock()
  // Guarded by `lock`; final once the handoff has ended.
  private var outcome = Outcome()
  private var failure: WebDAVError?

  /// Starts parsing at once; the body is pushed into ``feed``.
  ///
  /// - Parameters:
  ///   - batchSize: Children per batch (the last may be smaller).
  ///   - server: How to name the server in messages.
  init(resolver: HrefResolver, requested: WebDAVPath, depth: Int, batchSize: Int, server: String) {
    let handoff = self.handoff
    let feed = self.feed
    let thread = Thread { [self] in
      var pending: [WebDAVEntry] = []
      pending.reserveCapacity(batchSize)
      var found = Outcome()
      let parser = MultistatusParser(resolver: resolver, requested: requested, depth: depth) { entry, role in
        switch role {
        case .requested:
          found.requested = entry
          return true
        case .child:
          found.children += 1
          pending.append(entry)
          guard pending.count >= batchSize else { return true }
          defer { pending.removeAll(keepingCapacity: true) }
          return handoff.deliver(pending)
        }
      }
      let stream = UTF8CheckedStream(ChunkFeedStream(feed))
      let parsed = parser.read(stream)
      var error = parser.failure
      if error == nil, let refusal = stream.refusal {
        error = WebDAVError(.malformedResponse, "the server's listing cannot be read: \(refusal)")
      }
      if error == nil, let bodyError = feed.bodyFailure { error = StatusMapping.transport(bodyError, server: server) }
      if error == nil, !parsed || !parser.sawEnd {
        error = WebDAVError(.malformedResponse, "the server's listing ended before its end tag")
      }
      if error == nil, !pending.isEmpty, !handoff.deliver(pending) { error = .cancelledError }
      found.failedResponses = parser.failedResponses
      feed.stop()
      self.lock.withLock {
        self.outcome = found
        self.failure = error
      }
      handoff.end()
    }
    thread.name = "folio.webdav.propfind"
    thread.stackSize = 1 << 20
    thread.start()
  }

  /// The next batch of children, or nil once the document is read (or failed: see ``result()``).
  func next() async -> [WebDAVEntry]? { await handoff.next() }

  /// Lets the parser go on after a batch was dealt with.
  func processed() { handoff.processed() }

  /// Stops the parser (the consumer failed or was cancelled); ``next()`` then ends.
  func cancel() {
    handoff.cancel()
    feed.stop()
  }

  /// What the parse found, or why it failed; valid once ``next()`` answered nil.
  func result() throws(WebDAVError) -> Outcome {
    let (outcome, failure) = lock.withLock { (self.outcome, self.failure) }
    if let failure { throw failure }
    return outcome
  }
}

/// One batch at a time from the parser's thread to an awaiting task.
final class BatchHandoff: @unchecked Sendable {
  private let lock = NSLock()
  // Guarded by `lock`.
  private var ready: [WebDAVEntry]?
  private var ended = false
  private var cancelled = false
  private var waiting: CheckedContinuation<[WebDAVEntry]?, Never>?
  private let taken = DispatchSemaphore(value: 0)

  /// On the parser's thread: hands `batch` over and blocks until it was dealt with. False when the
  /// consumer went away.
  func deliver(_ batch: [WebDAVEntry]) -> Bool {
    let resume = lock.withLock { () -> CheckedContinuation<[WebDAVEntry]?, Never>? in
      if cancelled { return nil }
      if let waiting {
        self.waiting = nil
        return waiting
      }
      ready = batch
      return nil
    }
    if lock.withLock({ cancelled }) { return false }
    resume?.resume(returning: batch)
    taken.wait()
    return lock.withLock { !cancelled }
  }

  /// On the parser's thread: nothing more comes.
  func end() {
    let resume = lock.withLock { () -> CheckedContinuation<[WebDAVEntry]?, Never>? in
      ended = true
      defer { waiting = nil }
      return waiting
    }
    resume?.resume(returning: nil)
  }

  func next() async -> [WebDAVEntry]? {
    await withCheckedContinuation { (continuation: CheckedContinuation<[WebDAVEntry]?, Never>) in
      let answer = lock.withLock { () -> [WebDAVEntry]?? in
        if let batch = ready {
          ready = nil
          return .some(batch)
        }
        if ended || cancelled { return .some(nil) }
        waiting = continuation
        return nil
      }
      if let answer { continuation.resume(returning: answer) }
    }
  }

  func processed() { taken.signal() }

  func cancel() {
    let resume = lock.withLock { () -> CheckedContinuation<[WebDAVEntry]?, Never>? in
      cancelled = true
      defer { waiting = nil }
      return waiting
    }
    resume?.resume(returning: nil)
    taken.signal()
  }
}
