import Foundation
import NIOCore

/// The body of a PROPFIND answer on its way from the event loop to the parser, which pulls it with
/// blocking `read`s on a thread of its own (``MultistatusReader``), through ``ChunkFeedStream``.
///
/// Bounded: past ``limit`` bytes received and not yet read, ``push(_:on:)`` answers a future the
/// event loop waits for before it reads the socket again, completed once the parser has taken half.
final class ChunkFeed: @unchecked Sendable {
  static let limit = 1 << 20

  private let condition = NSCondition()
  // Guarded by `condition`.
  private var chunks: [ByteBuffer] = []
  private var first = 0
  private var queued = 0
  private var ended = false
  private var failure: (any Error)?
  private var stopped = false
  private var waiter: EventLoopPromise<Void>?
  private var mostQueued = 0

  /// The most bytes that waited at once (for tests: the bound held).
  var highWaterMark: Int { condition.withLock { mostQueued } }

  /// What made the body fail, once it did.
  var bodyFailure: (any Error)? { condition.withLock { failure } }

  // MARK: The event loop's side

  /// Takes one buffer; the future says when the loop may read more.
  func push(_ buffer: ByteBuffer, on loop: any EventLoop) -> EventLoopFuture<Void> {
    condition.lock()
    defer { condition.unlock() }
    guard !stopped, buffer.readableBytes > 0 else { return loop.makeSucceededVoidFuture() }
    chunks.append(buffer)
    queued += buffer.readableBytes
    mostQueued = max(mostQueued, queued)
    condition.broadcast()
    guard queued > Self.limit else { return loop.makeSucceededVoidFuture() }
    let promise = loop.makePromise(of: Void.self)
    waiter = promise
    return promise.futureResult
  }

  /// The body ended: the parser reads what is left, then the end.
  func finish() {
    condition.withLock {
      ended = true
      condition.broadcast()
    }
  }

  /// The body failed: the parser's next read fails.
  func fail(_ error: any Error) {
    condition.withLock {
      if failure == nil { failure = error }
      ended = true
      condition.broadcast()
    }
  }

  /// The reader is gone: drop what waits and let the loop read on (its bytes are then dropped).
  func stop() {
    let promise = condition.withLock { () -> EventLoopPromise<Void>? in
      stopped = true
      chunks.removeAll()
      first = 0
      queued = 0
      condition.broadcast()
      defer { waiter = nil }
      return waiter
    }
    promise?.succeed(())
  }

  // MARK: The parser's side (its own thread)

  /// Blocks until bytes, the end (0) or a failure (−1) come.
  func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
    condition.lock()
    while first == chunks.count && !ended && !stopped { condition.wait() }
    if stopped || (first == chunks.count && failure != nil) {
      condition.unlock()
      return -1
    }
    if first == chunks.count {
      condition.unlock()
      return 0
    }
    var chunk = chunks[first]
    let n = min(maxLength, chunk.readableBytes)
    chunk.withUnsafeReadableBytes { raw in
      buffer.update(from: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: n)
    }
    chunk.moveReaderIndex(forwardBy: n)
    if chunk.readableBytes == 0 {
      chunks[first] = ByteBuffer()
      first += 1
      if first == chunks.count {
        chunks.removeAll(keepingCapacity: true)
        first = 0
      }
    } else {
      chunks[first] = chunk
    }
    queued -= n
    var promise: EventLoopPromise<Void>?
    if let waiting = waiter, queued <= Self.limit / 2 {
      waiter = nil
      promise = waiting
    }
    condition.unlock()
    promise?.succeed(())
    return n
  }
}

/// A ``ChunkFeed`` as an `InputStream`, which ``MultistatusParser/read(_:)`` reads a chunk at a
/// time into libxml2's push parser. Used on the parser's thread only.
final class ChunkFeedStream: InputStream {
  private let feed: ChunkFeed

  init(_ feed: ChunkFeed) {
    self.feed = feed
    super.init(data: Data())
  }

  override func open() {}
  override func close() {}
  override var hasBytesAvailable: Bool { true }
  override var streamError: (any Error)? { feed.bodyFailure }

  override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength: Int) -> Int {
    feed.read(buffer, maxLength: maxLength)
  }
}
