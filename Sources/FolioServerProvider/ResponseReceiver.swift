import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI

/// One response read through AsyncHTTPClient's delegate API: the head is handed to an awaiting
/// task, which then says where the body goes: into a ``ContentSink`` (a download), or collected
/// up to a limit (an error's JSON).
///
/// Why not the async `HTTPClientResponse.Body`: it asks the event loop for one buffer at a time,
/// so a download paid two thread wake-ups per 64 KiB and never read while it wrote. Here the body
/// parts are taken on the event loop as they arrive, and only the sink's backpressure stops it.
///
/// The body is not read before the task has decided (the head's future completes then), so
/// nothing is written for an answer whose headers do not fit.
final class ResponseReceiver: HTTPClientResponseDelegate, @unchecked Sendable {
  typealias Response = Void

  /// Where the body goes.
  private enum Destination {
    case undecided
    case sink(ContentSink)
    case collect(ByteBuffer, limit: Int)
  }

  private let lock = NSLock()
  // Guarded by `lock`.
  private var head: HTTPResponseHead?
  private var headWaiter: CheckedContinuation<HTTPResponseHead, any Error>?
  private var early: (any Error)?
  private var goAhead: EventLoopPromise<Void>?
  private var destination = Destination.undecided

  // MARK: The awaiting task

  /// The response's head, or the error that came first (the connection, the first-byte timeout).
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

  /// Whether the head arrived (the first-byte timer asks).
  var hasHead: Bool { lock.withLock { head != nil } }

  /// The body goes into `sink`; reading starts now.
  func stream(into sink: ContentSink) {
    let promise = lock.withLock { () -> EventLoopPromise<Void>? in
      destination = .sink(sink)
      return goAhead
    }
    promise?.succeed(())
  }

  /// The body is kept, up to `limit` bytes (the rest is read and dropped); reading starts now.
  func collect(upTo limit: Int) {
    let promise = lock.withLock { () -> EventLoopPromise<Void>? in
      destination = .collect(ByteBuffer(), limit: limit)
      return goAhead
    }
    promise?.succeed(())
  }

  /// The head was refused (the task cancels the request): the go-ahead is given anyway, with the
  /// body dropped. AsyncHTTPClient holds a response whose end is already read until the go-ahead,
  /// and only then acts on the cancel; without it the request would never finish (a leak).
  func refuse() { collect(upTo: 0) }

  /// What ``collect(upTo:)`` kept, once the request finished.
  var collected: ByteBuffer? {
    lock.withLock {
      if case .collect(let buffer, _) = destination { return buffer }
      return nil
    }
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
    let sink = lock.withLock { () -> ContentSink? in
      switch destination {
      case .sink(let sink): return sink
      case .collect(var kept, let limit):
        if kept.readableBytes < limit {
          var part = buffer
          if let slice = part.readSlice(length: min(part.readableBytes, limit - kept.readableBytes)) {
            destination = .undecided  // drop the reference so `kept` is unique when written
            kept.writeImmutableBuffer(slice)
            destination = .collect(kept, limit: limit)
          }
        }
        return nil
      case .undecided: return nil
      }
    }
    return sink?.accept(buffer, on: task.eventLoop) ?? task.eventLoop.makeSucceededVoidFuture()
  }

  func didReceiveError(task: HTTPClient.Task<Void>, _ error: any Error) {
    let (waiter, sink, promise) = lock.withLock {
      () -> (CheckedContinuation<HTTPResponseHead, any Error>?, ContentSink?, EventLoopPromise<Void>?) in
      early = early ?? error
      defer {
        headWaiter = nil
        goAhead = nil
      }
      if case .sink(let sink) = destination { return (headWaiter, sink, goAhead) }
      return (headWaiter, nil, goAhead)
    }
    waiter?.resume(throwing: error)
    // A head whose go-ahead never came (the task gave up on it) must not hold a promise forever.
    promise?.fail(error)
    if let sink { sink.fail(Self.bodyError(error, sink: sink)) }
  }

  func didFinishRequest(task: HTTPClient.Task<Void>) throws {
    let sink = lock.withLock { () -> ContentSink? in
      if case .sink(let sink) = destination { return sink }
      return nil
    }
    sink?.end()
  }

  /// What a failure in the middle of a body means for a download.
  static func bodyError(_ error: any Error, sink: ContentSink) -> ProviderError {
    if let e = error as? ProviderError { return e }
    let got: Int64
    switch sink.outcome {
    case .success(let n): got = n
    case .failure(let e): return e
    }
    if let e = error as? HTTPClientError {
      if e == .readTimeout {
        return ProviderError(
          .serverUnreachable,
          "\(sink.server) stopped sending after \(got) of \(sink.expectedLength) bytes (nothing for 60 s)")
      }
      if e == .cancelled { return .cancelledError }
    }
    if ServerErrorMapping.transport(error, server: sink.server).code == .cancelled { return .cancelledError }
    return ProviderError(
      .ioError, "the download from \(sink.server) was cut short after \(got) of \(sink.expectedLength) bytes")
  }
}
