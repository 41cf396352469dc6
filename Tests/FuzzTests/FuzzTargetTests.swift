import Foundation
import FuzzTargets
import Testing

/// Every fuzz target over its corpus (`Fuzz/corpus/<target>/`) and a fixed count of seeded
/// mutations, asserting the target's property: the CI share of the fuzzing (docs/FUZZING.md).
/// Bounded by count, not time: the same inputs on every run, whatever the machine's load.
@Suite struct FuzzTargetTests {
  /// Mutations per target on every test run; the long runs are `folio-fuzz` and `scripts/fuzz`.
  static let runs: UInt64 = 3000

  static let corpusRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fuzz/corpus")

  @Test(arguments: FuzzCatalogue.all.map(\.name))
  func targetKeepsItsPropertyOverCorpusAndMutations(_ name: String) throws {
    let target = try #require(FuzzCatalogue.target(named: name))
    let corpus = FuzzCorpus.load(target: name, from: Self.corpusRoot)
    #expect(corpus.count >= 3, "Fuzz/corpus/\(name) should hold seeds from real answers")
    let finding = FuzzLoop.run(target, corpus: corpus, seed: 20_261_128, runs: Self.runs)
    #expect(finding == nil, "\(name): \(finding.map { "run \($0.run.map(String.init) ?? "corpus"): \($0.violation)" } ?? "")")
  }

  @Test func everyTargetHasACorpusFolder() {
    for target in FuzzCatalogue.all {
      let folder = Self.corpusRoot.appendingPathComponent(target.name).path
      #expect(FileManager.default.fileExists(atPath: folder), "missing \(folder)")
    }
  }
}
