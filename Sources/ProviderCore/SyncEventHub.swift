import Foundation
import Synchronization

/// Fans sync events out to every listener: each `stream()` is its own `AsyncStream`, so the
/// browser, a progress line and a test can all listen without stealing each other's events.
///
/// Sending never blocks: a listener that falls behind keeps the newest 1,000 events (progress
/// events are the bulk, and only the latest percent matters).
public final class SyncEventHub: Sendable {
  private let listeners = Mutex<[UUID: AsyncStream<SyncEvent>.Continuation]>([:])

  public init() {}

  /// A new stream of every event sent from now on; it ends when the listener stops iterating.
  public func stream() -> AsyncStream<SyncEvent> {
    let (stream, continuation) = AsyncStream.makeStream(of: SyncEvent.self, bufferingPolicy: .bufferingNewest(1000))
    let id = UUID()
    listeners.withLock { $0[id] = continuation }
    continuation.onTermination = { [weak self] _ in self?.listeners.withLock { _ = $0.removeValue(forKey: id) } }
    return stream
  }

  public func send(_ event: SyncEvent) {
    let all = listeners.withLock { Array($0.values) }
    for c in all { c.yield(event) }
  }

  /// Ends every stream (the engine is shutting down).
  public func finish() {
    let all = listeners.withLock { l in
      defer { l.removeAll() }
      return Array(l.values)
    }
    for c in all { c.finish() }
  }
}
