import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Where a streamed body goes, buffer by buffer, on the event loop.
protocol BodyConsumer: AnyObject, Sendable {
  /// Takes one buffer; the future says when the loop may read the socket again (backpressure).
  func push(_ buffer: ByteBuffer, on loop: any EventLoop) -> EventLoopFuture<Void>
  /// The body ended.
  func finish()
  /// The body failed part-way.
  func fail(_ error: any Error)
}

extension ChunkFeed: BodyConsumer {}

/// One response read through AsyncHTTPClient's delegate API: the head goes to an awaiting task,
/// which then says where the body goes — a ``BodyConsumer`` (a listing's parser, a download's
/// file) or collected up to a limit (an error's text).
///
/// Why the delegate API and not the async `HTTPClientResponse.Body`: the body parts are taken on
/// the event loop as they arrive and only the consumer's future holds the socket back, where the
/// async body costs two thread hops per buffer (FolioServerProvider's `ResponseReceiver` measured
/// it; this is the same shape, without its sign-in and hashing).
///
/// The body is not read before the task has decided (the head's future completes then), so nothing
/// goes anywhere for an answer whose status is an error.
final class StreamingResponse: HTTPClientResponseDelegate, @unchecked Sendable {
  typealias Response = Void

  private enum Destination {
    case undecided
    case consumer(any BodyConsumer)
    case collect(ByteBuffer, limit: Int)
  }

  private let lock = NSLock()
  // Guarded by `lock`.
  private var head: HTTPResponseHead?
  private var headWaiter: CheckedContinuation<HTTPResponseHead, any Error>?
  private var early: (any Error)?
  private var goAhead: EventLoopPromise<Void>?
  private var destination = Destination.undecided

  /// The head, or the error that came first (no connection, the first-byte deadline).
  func responseHead() async throws -> HTTPResponseHead {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponseHead, any Error>) in
      let (ready, error) = lock.withLock { () -> (HTTPResponseHead?, (any Error)?) in
        if let head { return (head, nil) }
        if let early { return (nil, early) }
        headWaiter = continuation
        return (nil, nil)
      }
      if let ready { continuation.resume(returning: ready) } else if let error { continuation.resume(throwing: error) }
    }
  }

  /// Whether the head came (the first-byte timer asks).
  var hasHead: Bool { lock.withLock { head != nil } }

  /// The body goes to `consumer`; reading starts now.
  func stream(into consumer: any BodyConsumer) { decide(.consumer(consumer)) }

  /// The body is kept up to `limit` bytes (the rest is read and dropped); reading starts now.
  func collect(upTo limit: Int) { decide(.collect(ByteBuffer(), limit: limit)) }

  /// What ``collect(upTo:)`` kept, once the request finished.
  var collected: String? {
    lock.withLock {
      if case .collect(let buffer, _) = destination { return String(buffer: buffer) }
      return nil
    }
  }

  private func decide(_ where: Destination) {
    let promise = lock.withLock { () -> EventLoopPromise<Void>? in
      destination = `where`
      defer { goAhead = nil }
      return goAhead
    }
    promise?.succeed(())
  }

  // MARK: HTTPClientResponseDelegate (on the event loop)

  func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
    let promise = task.eventLoop.makePromise(of: Void.self)
    let waiter = lock.withLock { () -> CheckedContinuation<HTTPResponseHead, any Error>? in
      self.head = head
      goAhead = promise
      defer { headWaiter = nil }
      return headWaiter
    }
    waiter?.resume(returning: head)
    return promise.futureResult
  }

  func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
    let consumer = lock.withLock { () -> (any BodyConsumer)? in
      switch destination {
      case .consumer(let consumer): return consumer
      case .collect(var kept, let limit):
        if kept.readableBytes < limit {
          var part = buffer
          if let slice = part.readSlice(length: min(part.readableBytes, limit - kept.readableBytes)) {
            destination = .undecided  // so that `kept` is unique when written
            kept.writeImmutableBuffer(slice)
            destination = .collect(kept, limit: limit)
          }
        }
        return nil
      case .undecided: return nil
      }
    }
    return consumer?.push(buffer, on: task.eventLoop) ?? task.eventLoop.makeSucceededVoidFuture()
  }

  func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
    let (waiter, consumer, promise) = lock.withLock {
      () -> (CheckedContinuation<HTTPResponseHead, any Error>?, (any BodyConsumer)?, EventLoopPromise<Void>?) in
      early = early ?? error
      defer {
        headWaiter = nil
        goAhead = nil
      }
      if case .consumer(let consumer) = destination { return (headWaiter, consumer, goAhead) }
      return (headWaiter, nil, goAhead)
    }
    waiter?.resume(throwing: error)
    promise?.fail(error)
    consumer?.fail(error)
  }

  func didFinishRequest(task: HTTPClient.Task<Void>) throws {
    let consumer = lock.withLock { () -> (any BodyConsumer)? in
      if case .consumer(let consumer) = destination { return consumer }
      return nil
    }
    consumer?.finish()
  }
}
