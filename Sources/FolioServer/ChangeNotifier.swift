import FolioProtocol
import Foundation

/// Wakes long-polls (`GET /v1/changes/wait`) the moment the change log moves.
///
/// Every commit calls `advance(to:)` with the log's new end; a waiter parked on an older rank is
/// resumed at once. Nothing polls the database: a wait costs one suspended continuation. At
/// shutdown every waiter is answered so a graceful stop is not held up by a 60-second poll.
actor ChangeNotifier {
  private var rank: Int64
  private var waiters: [UUID: (since: Int64, continuation: CheckedContinuation<Void, Never>)] = [:]
  /// Waiters whose timeout fired before they parked: they must not park at all.
  private var abandoned: Set<UUID> = []
  private var closed = false

  init(rank: Int64) { self.rank = rank }

  var current: Int64 { rank }

  /// The long polls parked now (`GET /v1/_faults` says it, so a test knows a poll is waiting).
  var waiting: Int { waiters.count }

  func advance(to newRank: Int64) {
    guard newRank > rank else { return }
    rank = newRank
    for (id, w) in waiters where w.since < newRank {
      waiters[id] = nil
      w.continuation.resume()
    }
  }

  /// Answers every waiter and every later wait at once.
  func close() {
    closed = true
    for (_, w) in waiters { w.continuation.resume() }
    waiters = [:]
  }

  /// Waits until the log passes `since` or `timeout` passes.
  ///
  /// - Returns: the end of the log when it returns; greater than `since` means "changed".
  func wait(since: Int64, timeout: Duration) async -> Int64 {
    if rank > since || closed { return rank }
    let id = UUID()
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.park(id, since: since) }
      group.addTask {
        try? await Task.sleep(for: timeout)
        await self.release(id)
      }
      await group.next()
      group.cancelAll()
    }
    abandoned.remove(id)
    return rank
  }

  private func park(_ id: UUID, since: Int64) async {
    if rank > since || closed || abandoned.remove(id) != nil { return }
    await withCheckedContinuation { c in waiters[id] = (since, c) }
  }

  private func release(_ id: UUID) {
    if let w = waiters.removeValue(forKey: id) {
      w.continuation.resume()
    } else {
      abandoned.insert(id)
    }
  }
}
