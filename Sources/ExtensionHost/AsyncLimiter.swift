import Foundation

/// At most `limit` holders at once, the rest waiting in order: the `concurrency` an extension
/// declared for a class of calls.
final class AsyncLimiter: @unchecked Sendable {
  private let lock = NSLock()
  private var limit: Int
  private var held = 0
  private var waiters: [CheckedContinuation<Void, Never>] = []

  init(limit: Int) { self.limit = max(1, limit) }

  func acquire() async {
    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
      lock.lock()
      if held < limit {
        held += 1
        lock.unlock()
        c.resume()
      } else {
        waiters.append(c)
        lock.unlock()
      }
    }
  }

  func release() {
    lock.lock()
    if waiters.isEmpty {
      held -= 1
      lock.unlock()
    } else {
      let next = waiters.removeFirst()
      lock.unlock()
      next.resume()
    }
  }
}
