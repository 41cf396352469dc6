import Foundation
import ProviderAPI
import ProviderCore
import Synchronization
import TestSupport
import WorkingSetIndex

/// One computer running Folio against the simulated server: its own folder (the index and the
/// content cache, real SQLite and real files) and the real engine — `SyncEngine`, `ItemService`,
/// `TransferQueue`, `WorkingSetSync` and, on storage without a feed, `ListingPoller` — reaching the
/// server only through its ``SimulatedLink``.
///
/// A crash throws the process away and keeps the folder: ``restart()`` builds a new engine on the
/// same files with a new process id, as a new `folio` would after `kill -9`, and runs its recovery.
public final class SimulatedMachine: @unchecked Sendable {
  public let name: String
  public let number: Int
  public let folder: URL
  let server: SimulatedServer
  let seed: SimulationRandom
  let faults: SimulatedLink.Faults
  public private(set) var incarnation = 0
  /// True while ``restart()`` builds the new process (its index is not ``index`` yet).
  public private(set) var restarting = false
  public private(set) var link: SimulatedLink
  public private(set) var index: WorkingSetIndex
  public private(set) var engine: SyncEngine
  public private(set) var items: ItemService
  public private(set) var domain: Domain
  /// The engines of crashed runs, kept so nothing of theirs is torn down while their calls hang.
  private var graveyard: [AnyObject] = []
  /// The indexes of crashed runs, closed when the machine shuts down.
  private var oldIndexes: [WorkingSetIndex] = []

  public var indexURL: URL { folder.appendingPathComponent("state/index.sqlite") }
  var contentRoot: URL { folder.appendingPathComponent("cache/content", isDirectory: true) }
  public var pid: Int32 { Self.pid(machine: number, incarnation: incarnation) }

  /// The simulated process a task belongs to (its pid): set around every call into a machine's
  /// engine, and inherited by every task the engine starts from there. A crashed process's tasks
  /// that still run (a backoff's sleep ending) carry the old pid, and their durable steps are
  /// refused like its index's writes: a dead process touches nothing on disk.
  @TaskLocal public static var process: Int32?

  /// Process ids no real process has (above Linux's pid_max), one per machine and run.
  static func pid(machine: Int, incarnation: Int) -> Int32 { Int32(1_500_000_000 + machine * 100_000 + incarnation) }

  init(name: String, number: Int, folder: URL, server: SimulatedServer, random: SimulationRandom, faults: SimulatedLink.Faults)
    throws
  {
    self.name = name
    self.number = number
    self.folder = folder
    self.server = server
    self.seed = random
    self.faults = faults
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("state"), withIntermediateDirectories: true)
    let parts = try Self.build(
      name: name, number: number, incarnation: 0, folder: folder, server: server, random: random, faults: faults)
    (link, index, engine, items, domain) = parts
    ProcessLiveness.simulated.withLock { $0 = ($0 ?? []).union([pid]) }
  }

  static func build(
    name: String, number: Int, incarnation: Int, folder: URL, server: SimulatedServer, random: SimulationRandom,
    faults: SimulatedLink.Faults
  ) throws -> (SimulatedLink, WorkingSetIndex, SyncEngine, ItemService, Domain) {
    let linkRandom = random.derived(UInt64(incarnation) &+ 1)
    let link: SimulatedLink =
      server.kind.changes == .listing
      ? SimulatedPathLink(server: server, machine: name, random: linkRandom, faults: faults)
      : SimulatedLink(server: server, machine: name, random: linkRandom, faults: faults)
    let index = try WorkingSetIndex.open(at: folder.appendingPathComponent("state/index.sqlite"))
    let domain = Domain(identifier: SimulatedServer.domain, displayName: "Sim", provider: link, localRoot: nil)
    var registry = DomainRegistry(
      local: Domain(
        identifier: .local, displayName: "This Computer", provider: InMemoryProvider(traits: .localFilesystem),
        localRoot: .root))
    try registry.add(domain)
    var jitter = random.derived(0xBAC0FF &+ UInt64(incarnation))
    let jitterBox = JitterSource(jitter.next())
    let engine = SyncEngine(
      registry: registry, index: index, contentRoot: folder.appendingPathComponent("cache/content", isDirectory: true),
      cacheBudget: 64 << 10, pid: pid(machine: number, incarnation: incarnation), jitter: { jitterBox.next() },
      clock: { SimulationClock.now })
    let items = ItemService(registry: registry, index: index, contentRoot: folder.appendingPathComponent("cache/content"))
    return (link, index, engine, items, domain)
  }

  /// Closes every index this machine opened (its crashed runs' too): a long batch of seeds
  /// otherwise ran out of file descriptors after about 1,300 runs, and every later run failed
  /// to start. A dead run's hung tasks never touch them again, and a closed index refuses.
  func shutDown() {
    for old in oldIndexes { try? old.close() }
    try? index.close()
    graveyard = []
    oldIndexes = []
  }

  /// A new process on the same files after a crash: the old one's calls hang for ever.
  public func restart() async throws {
    graveyard.append(engine)
    graveyard.append(link)
    oldIndexes.append(index)
    ProcessLiveness.simulated.withLock { $0?.remove(pid) }
    incarnation += 1
    restarting = true
    defer { restarting = false }
    let parts = try Self.build(
      name: name, number: number, incarnation: incarnation, folder: folder, server: server, random: seed, faults: faults)
    (link, index, engine, items, domain) = parts
    restarting = false
    ProcessLiveness.simulated.withLock { $0 = ($0 ?? []).union([pid]) }
    await Self.$process.withValue(pid) { await engine.recover() }
  }
}

/// The backoff's jitter, from the run's seed.
final class JitterSource: @unchecked Sendable {
  private var random: SimulationRandom
  private let lock = NSLock()
  init(_ seed: UInt64) { random = SimulationRandom(seed: seed) }
  func next() -> Double {
    lock.lock()
    defer { lock.unlock() }
    return Double(random.next() >> 11) / Double(1 << 53)
  }
}

/// The simulation's wall clock: a fixed epoch plus the executor's virtual time, so journal dates
/// and backoffs are the same in every replay of a seed.
public enum SimulationClock {
  public static let epoch = Date(timeIntervalSince1970: 1_800_000_000)
  private static let runStart = Mutex<Duration>(.zero)

  /// Each run's clock starts at the epoch, so a seed alone and the same seed in a batch see the
  /// same dates.
  static func startRun() { runStart.withLock { $0 = SimulationScheduler.now } }

  public static var now: Date {
    let (s, atto) = (SimulationScheduler.now - runStart.withLock { $0 }).components
    return epoch.addingTimeInterval(Double(s) + Double(atto) / 1e18)
  }
}
