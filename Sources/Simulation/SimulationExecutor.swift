@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency
import Foundation

/// Every task of `folio-sim` runs here: on one thread, in the order the jobs were enqueued, with a
/// virtual clock. So a run is a function of its seed (test-plan.md I8): the engine's actors, child
/// tasks and sleeps interleave the same way each time, and a five-minute backoff takes no time.
///
/// It is installed as the process's default and main executor (Swift 6.3's experimental executor
/// factory, `_createExecutors`) before any task exists, so nothing reaches Dispatch's pool. Sleeps
/// (`Task.sleep`, clocks) land in a timer list; when no job is ready the clock jumps to the
/// earliest timer. A job enqueued from another thread would make the order depend on timing: they
/// are counted (``strayEnqueues``) and a run that saw one is reported, never trusted silently.
///
/// Written here rather than taken from a library: swift-concurrency-extras' serial executor routes
/// jobs to the main queue but leaves sleeps on Dispatch's real clock (docs/DECISIONS.md).
final class SimulationExecutor: TaskExecutor, SchedulingExecutor, MainExecutor, @unchecked Sendable {
  static let shared = SimulationExecutor()

  private let lock = NSLock()
  private var ready: [UnownedJob] = []
  private var readyHead = 0
  private var timers = SimulationTimers()
  private var timerOrder: UInt64 = 0
  private var nowNanos: UInt64 = 0
  private var stray = 0
  private let owner = pthread_self()
  private var jobsRun: UInt64 = 0

  /// The virtual time since the executor was installed.
  var now: Duration {
    lock.lock()
    defer { lock.unlock() }
    return .nanoseconds(Int64(nowNanos))
  }

  /// Jobs enqueued from a thread other than the simulation's: each one is a possible difference
  /// between two runs of one seed.
  var strayEnqueues: Int {
    lock.lock()
    defer { lock.unlock() }
    return stray
  }

  /// How many jobs have run: the simulation's own measure of work.
  var jobCount: UInt64 {
    lock.lock()
    defer { lock.unlock() }
    return jobsRun
  }

  /// Installs the executor for the whole process. Call once, first thing in a synchronous `main`.
  static func install() {
    if #available(macOS 26.4, *) { _createExecutors(factory: Factory.self) }
  }

  struct Factory: ExecutorFactory {
    static var mainExecutor: any MainExecutor { SimulationExecutor.shared }
    static var defaultExecutor: any TaskExecutor { SimulationExecutor.shared }
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let unowned = UnownedJob(job)
    lock.lock()
    if pthread_equal(pthread_self(), owner) == 0 { stray += 1 }
    ready.append(unowned)
    lock.unlock()
  }

  func enqueue<C: Clock>(
    _ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C
  ) {
    let unowned = UnownedJob(job)
    // Rounded to whole microseconds: a sleep computed from the real clock (a deadline minus
    // "now") differs by nanoseconds between runs, which must not reorder two timers.
    var nanos: UInt64 = 0
    if let d = delay as? Duration, d > .zero {
      let (s, atto) = d.components
      nanos = UInt64(s) * 1_000_000_000 + UInt64(atto / 1_000_000_000)
      nanos = (nanos + 500) / 1000 * 1000
    }
    lock.lock()
    if pthread_equal(pthread_self(), owner) == 0 { stray += 1 }
    timerOrder += 1
    timers.insert(SimulationTimers.Timer(due: nowNanos &+ nanos, order: timerOrder, job: unowned))
    lock.unlock()
  }

  /// Runs jobs until `condition` holds or nothing is left to run (every task is waiting on
  /// something that will never come: a crashed machine's calls, or a deadlock).
  func runUntil(_ condition: () -> Bool) throws {
    while !condition() {
      guard let job = next() else { return }
      job.runSynchronously(on: asUnownedSerialExecutor())
    }
  }

  func run() throws { try runUntil { false } }
  func stop() {}

  private func next() -> UnownedJob? {
    lock.lock()
    defer { lock.unlock() }
    if readyHead < ready.count {
      let job = ready[readyHead]
      readyHead += 1
      if readyHead > 4096 && readyHead * 2 > ready.count {
        ready.removeFirst(readyHead)
        readyHead = 0
      }
      jobsRun += 1
      return job
    }
    guard let timer = timers.popFirst() else { return nil }
    nowNanos = max(nowNanos, timer.due)
    jobsRun += 1
    return timer.job
  }

  /// Runs `body` as the simulation's one top-level task and returns its result once it ends.
  /// Returns nil when every task stopped waiting for something that never comes (a liveness bug).
  func run<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T? {
    let box = ResultBox<T>()
    _ = Task.detached { box.value = await body() }
    try? runUntil { box.value != nil }
    return box.value
  }

  final class ResultBox<T>: @unchecked Sendable { var value: T? }
}

/// What `folio-sim` and its tests see of the ``SimulationExecutor``.
public enum SimulationScheduler {
  /// Installs the simulation's executor for the whole process: first thing in a synchronous `main`,
  /// before any task exists.
  public static func install() { SimulationExecutor.install() }

  /// Runs `body` as the one top-level task, every job on this thread; nil when every task ended
  /// up waiting for something that never comes.
  public static func run<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T? { SimulationExecutor.shared.run(body) }

  /// The virtual time since the executor was installed.
  public static var now: Duration { SimulationExecutor.shared.now }

  /// Jobs enqueued from another thread so far (each a way two runs of one seed could differ).
  public static var strayEnqueues: Int { SimulationExecutor.shared.strayEnqueues }

  /// Jobs run so far.
  public static var jobCount: UInt64 { SimulationExecutor.shared.jobCount }
}
