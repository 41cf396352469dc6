import Crypto
import Dispatch
import Foundation
import NIOCore
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Where a download's body goes as the event loop receives it: written into the file at its
/// offsets on one serial queue, then hashed on another, while the loop goes on reading the socket.
///
/// Why this shape (docs/BENCHMARKS.md, "Remote storage"): AsyncHTTPClient's async body hands over
/// one 64 KiB buffer at a time and reads the next only when it is asked for, so every buffer cost
/// two thread wake-ups and the socket sat unread while the file was written. Fed from a response
/// delegate instead, the loop reads without waiting. The stages wake each other once per batch
/// (`batch` bytes, or the end), not once per buffer, and three threads share the work: the loop's
/// socket reads, the `pwrite`s, and SHA-256 (the biggest single cost, at the hardware's speed).
///
/// Memory stays flat whatever the size: beyond `limit` bytes received but not yet written and
/// hashed, ``accept(_:on:)`` answers a future the loop waits for before it reads again, completed
/// once half of that is done.
///
/// The buffers are `ByteBuffer`s handed over as they are (reference-counted, never copied).
final class ContentSink: @unchecked Sendable {
  /// Bytes that wake an idle stage (fewer wait for more, or for the end).
  static let batch = 1 << 20
  /// Bytes received but not yet written and hashed before the event loop stops reading.
  static let limit = 8 << 20
  /// How often progress is reported, in bytes.
  static let progressStep: Int64 = 1 << 20

  let expectedLength: Int64
  /// The bytes the body must have, for messages.
  let path: String
  let server: String

  private let fd: Int32
  private let start: Int64
  private let writeQueue = DispatchQueue(label: "folio.download.write")
  private let hashQueue = DispatchQueue(label: "folio.download.sha256")
  private let writeback: FileWriteback
  private let progress: @Sendable (TransferProgress) -> Void

  private let hashes: Bool
  /// Whether the body may go on past `expectedLength` bytes, which are then all it keeps: the
  /// reading stops there (a server that ignored a range from 0 sends the whole content).
  private let keepsOnlyExpected: Bool
  // Touched only on `hashQueue`.
  private var hasher: SHA256?
  // Touched only on `writeQueue`.
  private var position: Int64
  private var reported: Int64 = 0

  private let lock = NSLock()
  // Guarded by `lock`.
  private var toWrite: [ByteBuffer] = []
  private var toWriteBytes = 0
  private var writing = false
  private var toHash: [ByteBuffer] = []
  private var hashing = false
  private var received: Int64 = 0
  private var written: Int64 = 0
  /// Received and not yet written and hashed.
  private var backlog = 0
  private var ended = false
  private var failure: ProviderError?
  /// With `keepsOnlyExpected`: the bytes wanted all came, and the connection is being closed.
  private var hasAllExpected = false
  private var waiter: EventLoopPromise<Void>?
  private var drainedWaiter: CheckedContinuation<Void, Never>?
  private var isDrained = false

  /// - Parameters:
  ///   - fd: The file, open for writing; it must stay open until ``stop()`` returned.
  ///   - start: The offset of the body's first byte in the file.
  ///   - hashing: Whether to compute the SHA-256 (whole contents only).
  ///   - keepsOnlyExpected: The body may be longer than `expectedLength`: its first
  ///     `expectedLength` bytes are kept, then the event loop is told to stop (the request fails
  ///     with ``enough`` and the connection is closed), and a failure after that is not the
  ///     download's.
  init(
    fd: Int32, start: Int64, expectedLength: Int64, hashing: Bool, keepsOnlyExpected: Bool = false, path: String,
    server: String, progress: @escaping @Sendable (TransferProgress) -> Void
  ) {
    self.fd = fd
    self.start = start
    self.position = start
    self.expectedLength = expectedLength
    self.path = path
    self.server = server
    self.progress = progress
    self.hashes = hashing
    self.keepsOnlyExpected = keepsOnlyExpected
    self.hasher = hashing ? SHA256() : nil
    self.writeback = FileWriteback(fd: fd, start: start)
    progress(TransferProgress(completedBytes: 0, totalBytes: expectedLength))
  }

  // MARK: Fed by the event loop

  /// Takes one buffer of the body; the future says when the loop may read more (at once, unless
  /// `limit` bytes wait), or fails the download (too many bytes, a write error).
  func accept(_ buffer: ByteBuffer, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
    var buffer = buffer
    var count = buffer.readableBytes
    if count == 0 { return eventLoop.makeSucceededVoidFuture() }
    var wait: EventLoopFuture<Void>?
    var wake = Wakeups()
    let (kick, failed) = lock.withLock { () -> (Bool, ProviderError?) in
      if let failure { return (false, failure) }
      if hasAllExpected { return (false, Self.enough) }
      if keepsOnlyExpected, received + Int64(count) >= expectedLength {
        // The last bytes wanted: the rest of the body is not read.
        count = Int(expectedLength - received)
        buffer = buffer.getSlice(at: buffer.readerIndex, length: count) ?? ByteBuffer()
        hasAllExpected = true
        ended = true
        wait = eventLoop.makeFailedFuture(Self.enough)
      }
      guard received + Int64(count) <= expectedLength else {
        let tooLong = ProviderError(
          .ioError, "\(server) sent more bytes than the \(expectedLength) it announced; nothing was kept")
        failLocked(tooLong, &wake)
        return (false, tooLong)
      }
      received += Int64(count)
      backlog += count
      toWrite.append(buffer)
      toWriteBytes += count
      if backlog > Self.limit, wait == nil {
        let promise = eventLoop.makePromise(of: Void.self)
        waiter = promise
        wait = promise.futureResult
      }
      guard !writing, toWriteBytes >= Self.batch || ended else { return (false, nil) }
      writing = true
      return (true, nil)
    }
    wake.run()
    if let failed { return eventLoop.makeFailedFuture(failed) }
    if kick { writeQueue.async { self.drainWrites() } }
    return wait ?? eventLoop.makeSucceededVoidFuture()
  }

  /// The body ended: what waits for a batch is written and hashed now.
  func end() {
    var wake = Wakeups()
    let kick = lock.withLock { () -> Bool in
      ended = true
      checkDrainedLocked(&wake)
      guard !writing, !toWrite.isEmpty else { return false }
      writing = true
      return true
    }
    wake.run()
    if kick { writeQueue.async { self.drainWrites() } }
  }

  /// The download failed (the connection, a check): nothing more is written, waiters are released.
  /// Once a sink that keeps only the expected bytes has them all, the connection's end (which it
  /// brought about) is no failure.
  func fail(_ error: ProviderError) {
    var wake = Wakeups()
    lock.withLock { if !hasAllExpected { failLocked(error, &wake) } }
    wake.run()
  }

  /// What the event loop is told once a sink that keeps only the expected bytes has them: the
  /// request fails with it, and AsyncHTTPClient closes the connection.
  static let enough = ProviderError(.cancelled, "the bytes wanted came; the rest of the answer was not read")

  // MARK: Read by the downloader

  /// Waits until every byte received is written and hashed, or the download failed.
  func drained() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = lock.withLock { () -> Bool in
        if isDrained { return true }
        drainedWaiter = continuation
        return false
      }
      if now { continuation.resume() }
    }
  }

  /// The failure, if the download failed; else how many bytes were written.
  var outcome: Result<Int64, ProviderError> {
    lock.withLock { failure.map { .failure($0) } ?? .success(written) }
  }

  /// The SHA-256 of the bytes (after ``drained()``); nil when not hashing.
  func digest() -> SHA256Digest? {
    hashQueue.sync { hasher?.finalize() }
  }

  /// Waits for the queues to let go of the file: after this it may be synced and closed.
  func stop() {
    writeQueue.sync {}
    hashQueue.sync {}
    writeback.finish()
  }

  // MARK: The stages

  private func drainWrites() {
    while true {
      let (batch, stopped) = lock.withLock { () -> ([ByteBuffer], Bool) in
        if failure != nil || toWrite.isEmpty {
          writing = false
          toWrite.removeAll()
          return ([], true)
        }
        let batch = toWrite
        toWrite.removeAll(keepingCapacity: true)
        toWriteBytes = 0
        return (batch, false)
      }
      if stopped { return }
      var bytes = 0
      for buffer in batch {
        guard write(buffer) else {
          let code = errno
          let error = ProviderError(
            .ioError, "cannot write \(TerminalText.escape(path)): \(String(cString: strerror(code)))", underlying: code)
          var wake = Wakeups()
          lock.withLock { failLocked(error, &wake) }
          wake.run()
          return
        }
        bytes += buffer.readableBytes
        // Per buffer, not per batch: a batch can hold the whole of a small file when this queue
        // ran late, and the badge should still move.
        let total = position - start
        if total - reported >= Self.progressStep || total == expectedLength {
          reported = total
          progress(TransferProgress(completedBytes: total, totalBytes: expectedLength))
        }
      }
      writeback.written(upTo: position)
      var wake = Wakeups()
      let kick = lock.withLock { () -> Bool in
        written += Int64(bytes)
        if !hashes {
          release(bytes, &wake)
          return false
        }
        toHash.append(contentsOf: batch)
        guard !hashing else { return false }
        hashing = true
        return true
      }
      wake.run()
      if kick { hashQueue.async { self.drainHashes() } }
    }
  }

  private func write(_ buffer: ByteBuffer) -> Bool {
    let ok = buffer.withUnsafeReadableBytes { raw -> Bool in
      var done = 0
      while done < raw.count {
        let n = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(position) + off_t(done))
        if n < 0 {
          if errno == EINTR { continue }
          return false
        }
        done += n
      }
      return true
    }
    if ok { position += Int64(buffer.readableBytes) }
    return ok
  }

  private func drainHashes() {
    while true {
      var batch = lock.withLock { () -> [ByteBuffer] in
        if failure != nil || toHash.isEmpty {
          hashing = false
          toHash.removeAll()
          return []
        }
        let batch = toHash
        toHash.removeAll(keepingCapacity: true)
        return batch
      }
      if batch.isEmpty { return }
      for index in batch.indices {
        // Taken out of the batch so that its memory goes back as soon as it is hashed.
        let buffer = batch[index]
        batch[index] = ByteBuffer()
        buffer.withUnsafeReadableBytes { hasher?.update(bufferPointer: $0) }
        var wake = Wakeups()
        lock.withLock { release(buffer.readableBytes, &wake) }
        wake.run()
      }
    }
  }

  // MARK: Bookkeeping (under `lock`; whom to wake is collected, and woken after the unlock)

  /// Who waits for the lock's holder: woken after it lets go, since a promise completed on its
  /// event loop runs its callbacks at once, and they may call back into this sink.
  private struct Wakeups {
    var promise: EventLoopPromise<Void>?
    var failure: ProviderError?
    var drained: CheckedContinuation<Void, Never>?

    func run() {
      if let failure { promise?.fail(failure) } else { promise?.succeed(()) }
      drained?.resume()
    }
  }

  /// `count` bytes are done: the loop may read again below half the limit; the end may be reached.
  private func release(_ count: Int, _ wake: inout Wakeups) {
    backlog -= count
    if let promise = waiter, backlog <= Self.limit / 2 {
      waiter = nil
      wake.promise = promise
    }
    checkDrainedLocked(&wake)
  }

  private func failLocked(_ error: ProviderError, _ wake: inout Wakeups) {
    if failure == nil { failure = error }
    toWrite.removeAll()
    toHash.removeAll()
    if let promise = waiter {
      waiter = nil
      wake.promise = promise
      wake.failure = error
    }
    markDrainedLocked(&wake)
  }

  private func checkDrainedLocked(_ wake: inout Wakeups) {
    if ended && backlog == 0 { markDrainedLocked(&wake) }
  }

  private func markDrainedLocked(_ wake: inout Wakeups) {
    guard !isDrained else { return }
    isDrained = true
    wake.drained = drainedWaiter
    drainedWaiter = nil
  }
}
