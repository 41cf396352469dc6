import ArgumentParser
import Foundation
import ProviderCore
import Simulation

#if canImport(Glibc)
  import Glibc
#endif

/// `folio-sim`: the deterministic simulation of Folio's sync engine (issue 15, docs/SIMULATION.md).
@main enum FolioSimMain {
  static func main() {
    // Dictionary and Set order must not change between two runs of one seed: Swift seeds its
    // hashing per process unless told not to, which only the environment at start can do.
    if ProcessInfo.processInfo.environment["SWIFT_DETERMINISTIC_HASHING"] == nil {
      setenv("SWIFT_DETERMINISTIC_HASHING", "1", 1)
      let args = CommandLine.arguments
      var argv: [UnsafeMutablePointer<CChar>?] = args.map { strdup($0) } + [nil]
      execv("/proc/self/exe", &argv)
      FileHandle.standardError.write(Data("folio-sim: cannot restart itself with deterministic hashing\n".utf8))
      exit(2)
    }
    SimulationScheduler.install()
    SyncEngine.runFileWorkInline()
    FolioSim.main()
  }
}

struct FolioSim: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "folio-sim",
    abstract: "Run Folio's sync engine in a deterministic simulation and check that nothing is lost.",
    discussion: """
      Each seed draws a storage kind (change feed or path-keyed listing; conditional writes honoured \
      or ignored; a trash or none), two or three machines sharing one simulated server, a fault \
      level, and 30-80 steps: people creating, editing, renaming, moving, deleting, restoring, \
      tagging, pinning and syncing; a remote actor changing the server; latency, lost answers, \
      listings cut short or empty, expired anchors, error pages, a full quota, a changed password, \
      going offline and crashes at any call. The invariants are checked after every step and once \
      every machine has synced. A failing seed is shrunk and printed with the command that replays it.

      Examples:
        folio-sim --seeds 1000              seeds 0..<1000
        folio-sim --seed 42 --trace         one seed, every step printed
        folio-sim --seed 42 --script='…'    replay a shrunk script (as a failure prints it)
      """)

  @Option(help: "Run this one seed.") var seed: UInt64?
  @Option(help: "How many seeds to run, from --first.") var seeds: Int = 100
  @Option(help: "The first seed of --seeds.") var first: UInt64 = 0
  @Option(help: "The storage kind: feed, feed-notrash, feed-ignored, listing, listing-ignored (default: from the seed).")
  var storage: String?
  @Option(help: "How many machines (default: 2 or 3, from the seed).") var machines: Int?
  @Option(help: "How many steps (default: 30-80, from the seed).") var steps: Int?
  @Option(help: "The fault level: 0 is calm, 1 the usual, 2 twice as many (default: from the seed).") var faults: Double?
  @Option(help: "Replay these steps instead of the seed's own, as a failure prints them (--script='…').")
  var script: String?
  @Flag(help: "Print every step of every run.") var trace = false
  @Flag(inversion: .prefixedNo, help: "Shrink a failing run to the fewest steps that still fail.") var shrink = true
  @Flag(help: "Keep the machines' files of runs that passed.") var keep = false
  @Option(help: ArgumentHelp("Plant a bug in the server to see the oracle catch it: lose-files.", visibility: .hidden))
  var sabotage: String?
  @Option(help: "Where the runs keep their files (default: a new folder in /dev/shm, else $TMPDIR).") var scratch: String?

  func validate() throws {
    if let storage, StorageKind(name: storage) == nil {
      throw ValidationError("unknown storage kind '\(storage)': feed, feed-notrash, feed-ignored, listing or listing-ignored")
    }
    if let machines, !(1...6).contains(machines) { throw ValidationError("--machines takes 1 to 6") }
    if script != nil && seed == nil { throw ValidationError("--script replays steps of one --seed") }
    if let script, SimulationDriver.parseScript(script) == nil { throw ValidationError("--script is not a script folio-sim printed") }
    if let sabotage, SimulatedServer.Sabotage(rawValue: sabotage) == nil {
      throw ValidationError("unknown sabotage '\(sabotage)': lose-files")
    }
    if seeds < 1 { throw ValidationError("--seeds takes a positive count") }
  }

  func run() throws {
    if let seed, let given = script.flatMap(SimulationDriver.parseScript) {
      let count = SimulationRun.machineCount(settings(seed, URL(fileURLWithPath: "/")))
      if let bad = given.first(where: { $0.machine < -1 || $0.machine >= count }) {
        FileHandle.standardError.write(
          Data(
            "folio-sim: the script names machine \(bad.machine), and seed \(seed) has \(count) (0 to \(count - 1), -1 the remote actor): replay a script with the seed it was printed for\n"
              .utf8))
        throw ExitCode(64)
      }
    }
    let root: URL
    if let scratch {
      root = URL(fileURLWithPath: scratch)
    } else {
      // Memory, where there is a tmpfs: a run fsyncs at every commit, which proves nothing about
      // a process crash (the files outlive the process either way) and costs most of a run's time.
      let shm = URL(fileURLWithPath: "/dev/shm")
      let base = FileManager.default.isWritableFile(atPath: shm.path) ? shm : FileManager.default.temporaryDirectory
      root = base.appendingPathComponent("folio-sim-\(getpid())")
    }
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let plan = self
    let failures = SimulationScheduler.run { await plan.runAll(root) } ?? -1
    if failures != 0 {
      if failures < 0 { print("folio-sim: the simulation stopped with tasks waiting for ever (a liveness bug)") }
      throw ExitCode(1)
    }
    // With --keep the runs' folders stay, and so does the folder holding them (and says where).
    if keep { print("  files: \(root.path)") } else { try? FileManager.default.removeItem(at: root) }
  }

  func settings(_ seed: UInt64, _ root: URL) -> SimulationRun.Settings {
    var s = SimulationRun.Settings(seed: seed, scratch: root)
    s.kind = storage.flatMap(StorageKind.init(name:))
    s.machines = machines
    s.steps = steps
    s.faultLevel = faults
    s.echo = trace
    s.keepFiles = keep
    s.sabotage = sabotage.flatMap(SimulatedServer.Sabotage.init(rawValue:))
    return s
  }

  /// Runs every seed asked for; returns how many failed.
  func runAll(_ root: URL) async -> Int {
    let seedList: [UInt64] = seed.map { [$0] } ?? (0..<UInt64(seeds)).map { first &+ $0 }
    let given = script.flatMap(SimulationDriver.parseScript)
    let start = ContinuousClock.now
    var failed = 0
    var totals = (steps: 0, calls: 0, faults: 0, crashes: 0, versions: 0)
    var kinds: [String: Int] = [:]
    for s in seedList {
      guard let outcome = await SimulationDriver.run(settings(s, root), steps: given) else {
        print("seed \(s): could not set up the run's machines")
        failed += 1
        continue
      }
      totals.steps += outcome.steps.count
      totals.calls += outcome.calls
      totals.faults += outcome.faults
      totals.crashes += outcome.crashes
      totals.versions += outcome.versions
      kinds[outcome.kind.name, default: 0] += 1
      if outcome.failed {
        failed += 1
        await report(outcome, root)
      } else if seedList.count == 1 {
        print("seed \(s): ok (\(outcome.kind), \(outcome.steps.count) steps, digest \(outcome.digest.prefix(16)))")
      }
    }
    let seconds = Double((ContinuousClock.now - start).components.attoseconds) / 1e18
      + Double((ContinuousClock.now - start).components.seconds)
    let rate = seconds > 0 ? Double(seedList.count) / seconds : 0
    print(
      "folio-sim: \(seedList.count) run(s), \(failed) failed; \(totals.steps) steps, \(totals.calls) calls, "
        + "\(totals.faults) faults injected, \(totals.crashes) crashes, \(totals.versions) versions checked; "
        + String(format: "%.1f runs/s", rate))
    print("  storage kinds: " + kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))
    return failed
  }

  func report(_ outcome: SimulationRun.Outcome, _ root: URL) async {
    print("seed \(outcome.seed): FAILED (\(outcome.kind), \(outcome.machines) machines, fault level \(outcome.faultLevel))")
    for v in outcome.violations.prefix(5) { print("  violation: \(v)") }
    var shown = outcome
    if shrink && script == nil {
      shown = await SimulationDriver.shrink(outcome, settings(outcome.seed, root))
      print("  shrunk from \(outcome.steps.count) to \(shown.steps.count) steps; first violation: \(shown.violations.first ?? "")")
    }
    print("  trace:")
    for line in shown.trace { print("    \(line)") }
    // The options that override what the seed draws must be given again, or the replay draws
    // another storage kind, machine count or fault level.
    var overrides = ""
    if let storage { overrides += " --storage \(storage)" }
    if let machines { overrides += " --machines \(machines)" }
    if let faults { overrides += " --faults \(faults)" }
    if let sabotage { overrides += " --sabotage \(sabotage)" }
    print(
      "  replay: folio-sim --seed \(outcome.seed)\(overrides) --script='\(SimulationDriver.script(shown.steps))' --trace")
    print("  files: \(outcome.folder.path)")
  }
}
