import Foundation
import FuzzTargets
import TestExecution
import Testing

/// The harness itself: a fuzzer that cannot find a planted failure proves nothing when it finds
/// none. The planted target (`PlantedTarget`) fails on purpose a few mutations from its seeds.
@Suite struct FuzzHarnessTests {
  static let plantedCorpus: [[UInt8]] = [Array("VIOLAT".utf8), Array("TRA".utf8), Array("hello".utf8)]

  @Test func theLoopFindsAPlantedViolationAndItsRunReplaysTheSameInput() throws {
    let planted = FuzzCatalogue.planted
    // Only the violation half: a TRAP input would end this process (the child-process test below).
    let target = FuzzTarget(name: "planted-violation", summary: "", dictionary: ["E", "VIOLAT"]) { bytes in
      PlantedTargetProbe.containsTrap(bytes) ? nil : planted.check(bytes)
    }
    let finding = try #require(FuzzLoop.run(target, corpus: Self.plantedCorpus, seed: 7, runs: 20_000))
    let run = try #require(finding.run)
    #expect(finding.violation.message.contains("planted"))
    let mutator = FuzzMutator(dictionary: target.dictionary, corpus: Self.plantedCorpus)
    #expect(mutator.input(seed: 7, run: run) == finding.input)
  }

  @Test func theMutatorIsDeterministicPerSeedAndRun() {
    let mutator = FuzzMutator(dictionary: [Array("<a>".utf8)], corpus: [Array("<x>hello</x>".utf8)])
    let a = (0..<200).map { mutator.input(seed: 42, run: $0) }
    let b = (0..<200).map { mutator.input(seed: 42, run: $0) }
    let c = (0..<200).map { mutator.input(seed: 43, run: $0) }
    #expect(a == b)
    #expect(a != c)
    #expect(Set(a).count > 150)
  }

  /// folio-fuzz runs targets in a child process: a trap is reported and its input saved, and
  /// the run goes on after it (the violation is found too).
  @Test(.offThePool) func folioFuzzReportsATrapAndAViolationWithTheirInputs() throws {
    let binary = try #require(Self.folioFuzz, "build folio-fuzz first (swift build)")
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("folio-fuzz-test-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: root) }
    let corpus = root.appendingPathComponent("corpus/planted")
    try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
    for (i, input) in Self.plantedCorpus.enumerated() {
      try Data(input).write(to: corpus.appendingPathComponent("seed-\(i)"))
    }
    let crashes = root.appendingPathComponent("crashes")
    let p = Process()
    p.executableURL = URL(fileURLWithPath: binary)
    p.arguments = [
      "--target", "planted", "--seed", "3", "--runs", "4000", "--corpus", root.appendingPathComponent("corpus").path,
      "--crashes", crashes.path,
    ]
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    p.waitUntilExit()
    #expect(p.terminationStatus == 1, "\(text)")
    #expect(text.contains("crashed (signal"), "\(text)")
    #expect(text.contains("planted violation"), "\(text)")
    #expect(text.contains("replay: folio-fuzz --target planted --replay"), "\(text)")
    let saved = try FileManager.default.contentsOfDirectory(atPath: crashes.appendingPathComponent("planted").path)
    let inputs = try saved.map { try Data(contentsOf: crashes.appendingPathComponent("planted/\($0)")) }
    #expect(inputs.contains { PlantedTargetProbe.containsTrap([UInt8]($0)) })
    #expect(inputs.contains { String(decoding: $0, as: UTF8.self).contains("VIOLATE") })
  }

  /// The built `folio-fuzz`: next to the test bundle, else `.build/debug/`.
  static let folioFuzz: String? = {
    var candidates: [String] = []
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("folio-fuzz").path)
    }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    candidates.append(root.appendingPathComponent(".build/debug/folio-fuzz").path)
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
  }()
}

enum PlantedTargetProbe {
  static func containsTrap(_ bytes: [UInt8]) -> Bool {
    let w = Array("TRAP".utf8)
    guard bytes.count >= w.count else { return false }
    return (0...(bytes.count - w.count)).contains { bytes[$0..<($0 + w.count)].elementsEqual(w) }
  }
}
