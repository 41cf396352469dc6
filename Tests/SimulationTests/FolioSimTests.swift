import Foundation
import Testing

@testable import TestExecution

/// `folio-sim` as CI runs it (issue 15 §1, §4): a fixed budget of seeds over every storage kind,
/// the replay of a seed, the regression scripts of the bugs it found, and proof that its oracle
/// fails a run where the server loses a file. The simulator installs its own executor at start, so
/// it runs as its own process (the built binary), never inside the test runner.
@Suite(.offThePool) struct FolioSimTests {
  static let binary: String? = {
    var candidates: [String] = []
    // scripts/test builds it optimised and names it here (the debug build's is 4× slower).
    if let given = ProcessInfo.processInfo.environment["FOLIO_SIM_BINARY"], !given.isEmpty { candidates.append(given) }
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("folio-sim").path)
    }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    candidates.append(root.appendingPathComponent(".build/debug/folio-sim").path)
    return candidates.first { access($0, X_OK) == 0 }
  }()

  struct Result {
    var status: Int32
    var out: String
  }

  static func sim(_ args: [String]) throws -> Result {
    let path = try #require(binary, "folio-sim is missing: run `swift build` before `swift test`")
    let p = Process()
    p.executableURL = URL(fileURLWithPath: path)
    p.arguments = args
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return Result(status: p.terminationStatus, out: String(decoding: data, as: UTF8.self))
  }

  /// CI's budget: seeds 0..<N in two processes (two cores), every one passing: 2 × 2,500 from
  /// scripts/test (`FOLIO_SIM_SEEDS`, with the optimised build), 2 × 300 when run by hand on the
  /// debug build. A failure prints the seed, the shrunk trace and the command that replays it.
  @Test(arguments: [0, 1]) func aFixedBudgetOfSeedsPasses(half: Int) throws {
    let perHalf = Int(ProcessInfo.processInfo.environment["FOLIO_SIM_SEEDS"] ?? "") ?? 300
    let r = try Self.sim(["--seeds", String(perHalf), "--first", String(half * perHalf)])
    #expect(r.status == 0, "\(r.out)")
    #expect(r.out.contains("\(perHalf) run(s), 0 failed"), "\(r.out)")
  }

  /// A seed replays exactly: the same trace and end state (test-plan.md I8), also when its steps
  /// are given back as the script a failure prints.
  @Test func aSeedReplaysTheSame() throws {
    let first = try Self.sim(["--seed", "1234"])
    let again = try Self.sim(["--seed", "1234"])
    #expect(first.status == 0, "\(first.out)")
    let digest = first.out.split(separator: "\n").first { $0.hasPrefix("seed 1234: ok") }
    #expect(digest != nil && digest == again.out.split(separator: "\n").first { $0.hasPrefix("seed 1234: ok") }, "\(first.out)\n\(again.out)")
    let other = try Self.sim(["--seed", "1235"])
    #expect(other.out.split(separator: "\n").first { $0.hasPrefix("seed 1235: ok") } != digest, "two seeds, one run")
  }

  /// The oracle can fail: with a server that silently loses a file it was sent, runs fail, name
  /// the lost version and print a replay.
  @Test func aServerThatLosesFilesIsCaught() throws {
    let r = try Self.sim(["--seeds", "20", "--sabotage", "lose-files", "--no-shrink"])
    #expect(r.status == 1, "\(r.out)")
    #expect(r.out.contains("FAILED") && r.out.contains("replay: folio-sim --seed"), "\(r.out)")
    #expect(r.out.contains("is not on the server") || r.out.contains("is nowhere"), "\(r.out)")
  }

  /// Each bug folio-sim found, as the shrunk script that showed it (docs/SIMULATION.md lists them).
  @Test(arguments: SimulationRegressions.all) func aBugItFoundStaysFixed(_ regression: SimulationRegressions.Case) throws {
    let script = regression.script.map { ["--script=" + $0] } ?? []
    let r = try Self.sim(["--seed", String(regression.seed)] + script + ["--trace", "--no-shrink"])
    #expect(r.status == 0, "\(regression.bug)\n\(r.out)")
  }

  @Test func badArgumentsAreRefusedWithAMessage() throws {
    let r = try Self.sim(["--storage", "floppy"])
    #expect(r.status != 0 && r.out.contains("unknown storage kind 'floppy'"), "\(r.out)")
    let help = try Self.sim(["--help"])
    #expect(help.status == 0 && help.out.contains("--seeds") && help.out.contains("--script"), "\(help.out)")
    // A script of another seed's machines: refused, not cut short to the machines there are.
    let absent = try Self.sim(["--seed", "1", "--machines", "2", "--script=5:edit:12"])
    #expect(absent.status == 64 && absent.out.contains("names machine 5"), "\(absent.out)")
  }
}
