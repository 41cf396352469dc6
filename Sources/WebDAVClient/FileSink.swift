import Dispatch
import Foundation
import NIOCore
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Where a GET's body goes: written into a file descriptor at its offsets on a serial queue, while
/// the event loop goes on reading the socket.
///
/// Bounded: past ``limit`` bytes received and not yet written, ``push(_:on:)`` answers a future
/// the loop waits for before it reads again, completed once half of that is written. Memory stays
/// at a few MiB whatever the file's size. Writes are `pwrite` at `start + offset`, so the caller's
/// file position is left alone. What is written is handed to the kernel's writeback as it goes
/// (``FileWriteback``), so the caller's final `fsync` has little left to do.
final class FileSink: BodyConsumer, @unchecked Sendable {
  static let limit = 8 << 20
  /// Bytes between progress reports.
  static let progressStep: Int64 = 1 << 20

  private let fd: Int32
  private let start: Int64
  private let expected: Int64?
  private let progress: (@Sendable (Int64) -> Void)?
  private let server: String
  private let queue = DispatchQueue(label: "folio.webdav.download")
  private let writeback: FileWriteback

  private let lock = NSLock()
  // Guarded by `lock`.
  private var received: Int64 = 0
  private var backlog = 0
  private var mostBacklog = 0
  private var pending: [ByteBuffer] = []
  private var writing = false
  private var waiter: EventLoopPromise<Void>?
  private var failure: WebDAVError?
  private var ended = false
  private var endWaiter: CheckedContinuation<Void, Never>?
  private var settled = false
  // Touched only on `queue`.
  private var written: Int64 = 0
  private var reported: Int64 = 0

  /// - Parameters:
  ///   - start: Where the body's first byte goes in the file.
  ///   - expected: The body's length when the answer said it: more is refused, less fails at the end.
  ///   - writebackStep: How many bytes are written between two hand-overs to the kernel's writeback.
  init(
    fd: Int32, start: Int64, expected: Int64?, server: String, progress: (@Sendable (Int64) -> Void)?,
    writebackStep: Int64 = 32 << 20
  ) {
    self.server = server
    self.fd = fd
    self.start = start
    self.expected = expected
    self.progress = progress
    self.writeback = FileWriteback(fd: fd, start: start, step: writebackStep)
  }

  /// The most bytes that waited to be written at once (for tests: the bound held).
  var highWaterMark: Int { lock.withLock { mostBacklog } }

  func push(_ buffer: ByteBuffer, on loop: any EventLoop) -> EventLoopFuture<Void> {
    let count = buffer.readableBytes
    guard count > 0 else { return loop.makeSucceededVoidFuture() }
    var kick = false
    let wait = lock.withLock { () -> EventLoopFuture<Void>? in
      if failure != nil { return nil }
      if let expected, received + Int64(count) > expected {
        failure = WebDAVError(.malformedResponse, "\(server) sent more bytes than the \(expected) it announced")
        return nil
      }
      received += Int64(count)
      backlog += count
      mostBacklog = max(mostBacklog, backlog)
      pending.append(buffer)
      if !writing {
        writing = true
        kick = true
      }
      guard backlog > Self.limit else { return nil }
      let promise = loop.makePromise(of: Void.self)
      waiter = promise
      return promise.futureResult
    }
    // One wake-up of the writer per burst, not per buffer: it takes everything queued meanwhile.
    if kick { queue.async { self.drain() } }
    return wait ?? loop.makeSucceededVoidFuture()
  }

  func finish() {
    lock.withLock { ended = true }
    queue.async { self.settle() }
  }

  func fail(_ error: any Error) {
    lock.withLock {
      if failure == nil { failure = StatusMapping.transport(error, server: server) }
      ended = true
    }
    queue.async { self.settle() }
  }

  /// Waits until every byte received is written (or the download failed); the bytes written.
  func drained() async throws(WebDAVError) -> Int64 {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = lock.withLock { () -> Bool in
        if settled { return true }
        endWaiter = continuation
        return false
      }
      if now { continuation.resume() }
    }
    let (failure, received) = lock.withLock { (self.failure, self.received) }
    if let failure { throw failure }
    if let expected, received != expected {
      throw WebDAVError(.unreachable, "the download from \(server) ended after \(received) of \(expected) bytes")
    }
    return received
  }

  /// Says the outcome once the body ended and everything queued is written (on `queue`, after the
  /// last write), once no writeback call on the file is pending (the caller may close it then).
  private func settle() {
    writeback.finish()
    let resume = lock.withLock { () -> CheckedContinuation<Void, Never>? in
      guard ended, !settled else { return nil }
      settled = true
      defer { endWaiter = nil }
      return endWaiter
    }
    resume?.resume()
  }

  /// On `queue`: writes what is pending until nothing is.
  private func drain() {
    while true {
      let batch = lock.withLock { () -> [ByteBuffer] in
        if pending.isEmpty {
          writing = false
          return []
        }
        defer { pending.removeAll(keepingCapacity: true) }
        return pending
      }
      if batch.isEmpty { return }
      for buffer in batch { write(buffer) }
    }
  }

  private func write(_ buffer: ByteBuffer) {
    if lock.withLock({ failure != nil }) {
      release(buffer.readableBytes)
      return
    }
    let ok = buffer.withUnsafeReadableBytes { raw -> Bool in
      var done = 0
      while done < raw.count {
        let n = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(start + written) + off_t(done))
        if n < 0 {
          if errno == EINTR { continue }
          return false
        }
        done += n
      }
      return true
    }
    if ok {
      written += Int64(buffer.readableBytes)
      writeback.written(upTo: start + written)
      if let progress, written - reported >= Self.progressStep {
        reported = written
        progress(written)
      }
    } else {
      let reason = String(cString: strerror(errno))
      lock.withLock {
        if failure == nil { failure = WebDAVError(.localIO, "cannot write the downloaded file: \(reason)") }
      }
    }
    release(buffer.readableBytes)
  }

  private func release(_ count: Int) {
    let promise = lock.withLock { () -> EventLoopPromise<Void>? in
      backlog -= count
      guard let waiting = waiter, backlog <= Self.limit / 2 || failure != nil else { return nil }
      waiter = nil
      return waiting
    }
    promise?.succeed(())
  }

  /// The last progress report: the whole body (called once it is written).
  func reportEnd() {
    queue.sync {
      if let progress, written != reported {
        reported = written
        progress(written)
      }
    }
  }
}
