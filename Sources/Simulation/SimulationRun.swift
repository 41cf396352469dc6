import Foundation
import ProviderAPI
import ProviderCore
import Synchronization
import WorkingSetIndex

/// One run of `folio-sim`: a seed, the storage kind and machines it draws, its steps, the
/// invariants checked after every step and at quiescence, and what it found.
public final class SimulationRun: @unchecked Sendable {
  public struct Settings: Sendable {
    public var seed: UInt64
    public var kind: StorageKind?
    public var machines: Int?
    public var steps: Int?
    public var faultLevel: Double?
    /// Where the run's machines keep their files (a folder of its own is made inside).
    public var scratch: URL
    /// Prints each step as it runs.
    public var echo = false
    /// Keeps the machines' files of a run that passed.
    public var keepFiles = false
    /// A bug planted in the server, to show the oracle catches it.
    public var sabotage: SimulatedServer.Sabotage?

    public init(seed: UInt64, scratch: URL) {
      self.seed = seed
      self.scratch = scratch
    }
  }

  public struct Outcome: Sendable {
    public var seed: UInt64
    public var kind: StorageKind
    public var machines: Int
    public var faultLevel: Double
    public var steps: [SimulationStep]
    public var trace: [String]
    public var violations: [String]
    /// A digest of the trace and the server's final state: equal for two runs of one seed.
    public var digest: String
    public var calls: Int
    public var faults: Int
    public var crashes: Int
    public var versions: Int
    public var stray: Int
    public var folder: URL
    public var failed: Bool { !violations.isEmpty }
  }

  public static func machineName(_ n: Int) -> String { String(UnicodeScalar(UInt8(65 + n))) }

  /// How long a step may take in simulated time before it counts as stuck.
  static let stepDeadline: Int64 = 86_400
  static let stuck = "\u{0}stuck"

  let settings: Settings
  public let kind: StorageKind
  let faultLevel: Double
  let ledger = SimulationLedger()
  let server: SimulatedServer
  var machines: [SimulatedMachine] = []
  var trace: [String] = []
  var crashes = 0
  /// Durable steps refused to tasks of crashed processes (the trace says which).
  var zombieSteps = 0
  var counter = 0
  let folder: URL
  /// Per machine, the last tags and favorite it set on an item (by the server's own identifier),
  /// and the items it opened: what must survive renames and moves (issue 15 §2).
  var expectedTags: [Int: [ItemIdentifier: [String]]] = [:]
  var lastTagger: [ItemIdentifier: Int] = [:]
  var expectedFavorites: [Int: [ItemIdentifier: Bool]] = [:]
  var lastFavoriter: [ItemIdentifier: Int] = [:]
  var opened: [Int: Set<ItemIdentifier>] = [:]
  /// Per machine, the files its last sync held as ambiguous renames (path-keyed storage).
  var ambiguousMoves: [Int: Set<ItemIdentifier>] = [:]
  /// Who renamed or moved each item, or a folder above it (machine numbers; -1 the remote actor):
  /// on storage without a feed another actor's move reads as a delete to a machine that does not
  /// list where it went (docs/DECISIONS.md), so what a machine noted survives only its own moves.
  var movers: [ItemIdentifier: Set<Int>] = [:]

  /// How many machines a run of these settings has: the seed's first draws, made as ``init`` makes
  /// them (a script naming a machine the seed lacks is refused before it runs, not cut short).
  public static func machineCount(_ settings: Settings) -> Int {
    var random = SimulationRandom(seed: settings.seed)
    _ = settings.kind ?? random.pick(StorageKind.all)
    return settings.machines ?? (random.chance(0.5) ? 2 : 3)
  }

  public init(_ settings: Settings, steps given: [SimulationStep]? = nil) throws {
    self.settings = settings
    var random = SimulationRandom(seed: settings.seed)
    kind = settings.kind ?? random.pick(StorageKind.all)
    let machineCount = settings.machines ?? (random.chance(0.5) ? 2 : 3)
    faultLevel = settings.faultLevel ?? random.pick([0, 0.5, 1, 1, 2])
    let stepCount = settings.steps ?? Int(30 + random.next() % 50)
    let generated = SimulationStep.generate(&random, machines: machineCount, steps: stepCount)
    self.steps = (given ?? generated).filter { $0.machine < machineCount }
    folder = settings.scratch.appendingPathComponent("seed-\(settings.seed)-\(UUID().uuidString.prefix(8))")
    server = SimulatedServer(kind: kind, ledger: ledger)
    server.sabotage = settings.sabotage
    ProcessLiveness.simulated.withLock { $0 = [] }
    SimulationClock.startRun()
    SimulatedLink.echoCalls = settings.echo
    for n in 0..<machineCount {
      machines.append(
        try SimulatedMachine(
          name: Self.machineName(n), number: n, folder: folder.appendingPathComponent(Self.machineName(n)), server: server,
          random: random.derived(UInt64(n) &+ 100), faults: .level(faultLevel)))
    }
    installDurableSteps()
  }

  public let steps: [SimulationStep]

  /// The run whose machines the durable-step seam serves (runs of a batch follow one another).
  nonisolated(unsafe) static var current: SimulationRun?

  func installDurableSteps() {
    Self.current = self
    guard DurableSteps.willWrite == nil else { return }
    DurableSteps.willWrite = { path, writer throws(ProviderError) in try SimulationRun.current?.durableStep(path, writer) }
  }

  /// Before each durable step of any machine: a crashed process writes nothing (a task of it the
  /// simulation could not stop, its index's writes included), and a process in a step that may
  /// crash can die just before the step (issue 15 §1: "a crash at any durable step").
  func durableStep(_ path: String, _ writer: ObjectIdentifier?) throws(ProviderError) {
    guard let m = machines.first(where: { path.hasPrefix($0.folder.path + "/") }), !m.restarting else { return }
    let dead = ProviderError(.ioError, "\(m.name)'s process is dead (folio-sim)")
    if let writer, writer != m.index.writerIdentity { throw dead }
    if let process = SimulatedMachine.process, process != m.pid, process / 100_000 == m.pid / 100_000 {
      zombieSteps += 1
      if settings.echo { print("      · a task of \(m.name)'s dead process \(process) is refused \(path.dropFirst(m.folder.path.count))") }
      throw dead
    }
    if m.link.crashed { throw dead }
    if m.link.diesBeforeDurableStep() {
      if settings.echo { print("      · \(m.name) dies before writing \(path.dropFirst(m.folder.path.count))") }
      throw dead
    }
  }

  func log(_ line: String) {
    trace.append(line)
    if settings.echo { print(line) }
  }

  /// Runs every step, then brings the machines to quiescence and checks the end state.
  public func run() async -> Outcome {
    log("seed \(settings.seed): \(kind), \(machines.count) machines, fault level \(faultLevel), \(steps.count) steps")
    for (i, step) in steps.enumerated() {
      await perform(step, number: i + 1)
      await checkAfterStep(i + 1)
      if !ledger.violations.isEmpty { break }
    }
    if ledger.violations.isEmpty {
      await quiesce()
      await checkAtQuiescence()
    }
    return await outcome()
  }

  func outcome() async -> Outcome {
    var digestInput = trace.joined(separator: "\n")
    for e in await server.entries() {
      digestInput += "\n\(e.trashed ? "T" : "L") \(e.item.path.displayString) \(e.content.map(SimulationLedger.hash) ?? "dir")"
    }
    let stray = SimulationScheduler.strayEnqueues
    var violations = ledger.violations
    if stray > 0 {
      violations.append("\(stray) job(s) were enqueued from another thread: this run may not replay the same")
    }
    return Outcome(
      seed: settings.seed, kind: kind, machines: machines.count, faultLevel: faultLevel, steps: steps, trace: trace,
      violations: violations, digest: SimulationLedger.hash(Data(digestInput.utf8)),
      calls: machines.reduce(0) { $0 + $1.link.callCount }, faults: machines.reduce(0) { $0 + $1.link.faultCount },
      crashes: crashes, versions: ledger.savedCount, stray: stray, folder: folder)
  }

  /// Removes the run's files (a failing run keeps them, for a look).
  public func removeFiles() { try? FileManager.default.removeItem(at: folder) }

  /// Closes what the run's machines opened; called once the run has ended.
  public func shutDown() { for m in machines { m.shutDown() } }
}
