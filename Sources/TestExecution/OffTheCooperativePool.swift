import Dispatch
import Foundation
import Testing

/// Runs a test, or every test of a suite, off Swift's cooperative thread pool.
///
/// The end-to-end tests block their thread on purpose: they wait for a `folio` process, poll a tmux
/// pane, wait for a server's "listening" line. Swift Testing runs every test on the cooperative
/// pool, which has one thread per core: two on CI. Two blocking tests at once stopped every other
/// test of the process. The in-process ones (the browser harness, the sync engine) then made no
/// progress for as long as the tmux suite ran, ~60 s, and one timed out waiting for a folder of
/// three files to load. With this trait, a test's own code and its structured child tasks run on
/// threads of their own (``BlockingWorkExecutor``), and the pool stays free for the others.
public struct OffTheCooperativePool: TestTrait, SuiteTrait, TestScoping {
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await withTaskExecutorPreference(BlockingWorkExecutor.shared) { try await function() }
  }

  /// Whether the caller runs on the trait's queue (for the trait's own tests).
  public static var isCurrentThreadOffThePool: Bool { DispatchQueue.getSpecific(key: BlockingWorkExecutor.key) != nil }
}

extension Trait where Self == OffTheCooperativePool {
  /// See ``OffTheCooperativePool``.
  public static var offThePool: Self { Self() }
}

/// A task executor with a few threads of its own, taken from no pool.
///
/// Bounded: the blocking suites ran two at a time on the pool, and running every one of them at
/// once (dozens of `folio` processes and servers on two cores) made them slower, not faster.
/// A job that blocks holds a slot; it blocks only on other processes, never on a job queued here.
final class BlockingWorkExecutor: TaskExecutor {
  static let shared = BlockingWorkExecutor()
  static let key = DispatchSpecificKey<Bool>()
  /// One more than the cores: a tmux test holds one slot for a minute, the rest share the others.
  static let width = ProcessInfo.processInfo.activeProcessorCount + 1

  private let queue: OperationQueue = {
    let queue = OperationQueue()
    queue.name = "folio.tests.blocking-work"
    queue.maxConcurrentOperationCount = width
    queue.underlyingQueue = {
      let q = DispatchQueue(label: "folio.tests.blocking-work", attributes: .concurrent)
      q.setSpecific(key: key, value: true)
      return q
    }()
    return queue
  }()

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    queue.addOperation { job.runSynchronously(on: executor) }
  }
}
