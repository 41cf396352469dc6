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
  public static var isCurrentThreadOffThePool: Bool { BlockingWorkExecutor.isCurrentThreadOneOfOurs }
}

extension Trait where Self == OffTheCooperativePool {
  /// See ``OffTheCooperativePool``.
  public static var offThePool: Self { Self() }
}

/// A task executor with a few threads of its own, taken from no pool: a concurrent dispatch queue
/// would run on libdispatch's shared workers, which Swift's global executor uses too.
///
/// Bounded: the blocking suites ran two at a time on the pool, and running every one of them at
/// once (dozens of `folio` processes and servers on two cores) made them slower, not faster.
/// A job that blocks holds a thread; it blocks only on other processes, never on a job queued here.
final class BlockingWorkExecutor: TaskExecutor, @unchecked Sendable {
  /// Threads for work that mostly waits (tmux polling, waitpid, sshd, a transfer held at a gate),
  /// not for CPU: a tmux test holds one for a minute. Cores + 1 (3 here) starved a download's
  /// own tasks behind three such holders under two CPU burners; eight that mostly sleep cost
  /// nothing.
  static let shared = BlockingWorkExecutor(threads: max(8, ProcessInfo.processInfo.activeProcessorCount * 4))
  static let threadKey = "folio.tests.blocking-work"

  private let condition = NSCondition()
  /// Jobs not yet taken, oldest first (guarded by `condition`).
  private var jobs: [UnownedJob] = []
  private var next = 0

  private init(threads: Int) {
    for n in 0..<threads {
      let thread = Thread { [unowned self] in self.work() }
      thread.name = "\(Self.threadKey) \(n)"
      thread.stackSize = 8 << 20  // as a main thread's: tests run deep call chains
      thread.start()
    }
  }

  static var isCurrentThreadOneOfOurs: Bool { Thread.current.threadDictionary[threadKey] as? Bool == true }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.lock()
    jobs.append(job)
    condition.signal()
    condition.unlock()
  }

  private func work() {
    Thread.current.threadDictionary[Self.threadKey] = true
    let executor = asUnownedTaskExecutor()
    while true {
      condition.lock()
      while next == jobs.count { condition.wait() }
      let job = jobs[next]
      next += 1
      if next == jobs.count {
        jobs.removeAll(keepingCapacity: true)
        next = 0
      }
      condition.unlock()
      job.runSynchronously(on: executor)
    }
  }
}

/// Runs a test, or every test of a suite, while no other test in any process uses `resource`: a
/// lock file in /tmp, taken without blocking a thread. The topmost-folder trash of /dev/shm is one
/// for every test that lists or empties all trashes: `folio trash empty` in one suite emptied the
/// entry another suite had just put there.
public struct ExclusiveUse: TestTrait, SuiteTrait, TestScoping {
  public let resource: String
  public var isRecursive: Bool { true }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    guard testCase != nil else { return try await function() }
    let fd = open("/tmp/folio-test-\(resource).lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
    guard fd >= 0 else { return try await function() }
    defer { close(fd) }
    while flock(fd, LOCK_EX | LOCK_NB) != 0 { try await Task.sleep(for: .milliseconds(20)) }
    defer { _ = flock(fd, LOCK_UN) }
    try await function()
  }
}

extension Trait where Self == ExclusiveUse {
  /// See ``ExclusiveUse``.
  public static func exclusive(_ resource: String) -> Self { Self(resource: resource) }
}
