import Crypto
import Dispatch
import Foundation
import NIOCore

/// The SHA-256 of a stream of buffers, computed on a serial queue of its own so that hashing one
/// buffer overlaps with writing the next (``ContentDownload``).
///
/// Why: verifying a 1 GiB download's hash on the receive loop was a quarter of the client's CPU,
/// serialised with the writes (docs/BENCHMARKS.md, "Remote storage"). Buffers are handed over as
/// they are (`ByteBuffer` is reference-counted, so nothing is copied), and at most `limit` bytes
/// wait for the hasher: `update` suspends beyond that until half has been hashed, so memory stays
/// flat however fast the network is. The queue drains whatever has accumulated in one go, so a
/// fast producer costs one wakeup per batch, not one per buffer.
final class StreamingDigest: @unchecked Sendable {
  private let queue = DispatchQueue(label: "folio.download.sha256")
  private let limit: Int
  private let lock = NSLock()
  // Guarded by `lock`.
  private var pending: [ByteBuffer] = []
  private var pendingBytes = 0
  private var draining = false
  private var abandoned = false
  private var waiter: CheckedContinuation<Void, Never>?
  // Touched only on `queue`.
  private var hasher = SHA256()

  init(limit: Int = 2 << 20) { self.limit = limit }

  /// Queues `buffer` for hashing; returns at once unless more than `limit` bytes are waiting.
  func update(_ buffer: ByteBuffer) async {
    let count = buffer.readableBytes
    if count == 0 { return }
    let (start, full) = lock.withLock { () -> (Bool, Bool) in
      pending.append(buffer)
      pendingBytes += count
      let start = !draining
      draining = true
      return (start, pendingBytes > limit)
    }
    if start { queue.async { self.drain() } }
    if full {
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow = lock.withLock { () -> Bool in
          if pendingBytes <= limit / 2 { return true }
          waiter = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    }
  }

  /// The digest of everything passed to `update`, once the queue has hashed it all.
  func finalize() async -> SHA256Digest {
    await withCheckedContinuation { continuation in
      // The queue is serial: any drain already scheduled runs first, and a drain only ends when
      // nothing is pending, so everything `update` accepted is in the hash.
      queue.async { continuation.resume(returning: self.hasher.finalize()) }
    }
  }

  /// Stops hashing (the download failed): buffers still queued are released unhashed.
  func abandon() {
    lock.withLock { abandoned = true }
  }

  private func drain() {
    while true {
      var (batch, skip) = lock.withLock { () -> ([ByteBuffer], Bool) in
        if pending.isEmpty {
          draining = false
          return ([], abandoned)
        }
        let batch = pending
        pending.removeAll(keepingCapacity: true)
        return (batch, abandoned)
      }
      if batch.isEmpty { return }
      for index in batch.indices {
        // Taken out of the batch so that its memory goes back as soon as it is hashed.
        let buffer = batch[index]
        batch[index] = ByteBuffer()
        if !skip { buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) } }
        let count = buffer.readableBytes
        let resume = lock.withLock { () -> CheckedContinuation<Void, Never>? in
          pendingBytes -= count
          guard let waiting = waiter, pendingBytes <= limit / 2 else { return nil }
          waiter = nil
          return waiting
        }
        resume?.resume()
      }
    }
  }
}
