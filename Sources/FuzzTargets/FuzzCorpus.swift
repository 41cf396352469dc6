import Foundation

/// A target's corpus on disk: `Fuzz/corpus/<target>/`, one input per file, read in name order so
/// a seed means the same inputs on every machine.
public enum FuzzCorpus {
  /// The inputs in `directory/<target>/`, sorted by file name; empty when there is none.
  public static func load(target: String, from directory: URL) -> [[UInt8]] {
    let folder = directory.appendingPathComponent(target, isDirectory: true)
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.sorted().compactMap { name -> [UInt8]? in
      guard !name.hasPrefix(".") else { return nil }
      return (try? Data(contentsOf: folder.appendingPathComponent(name))).map { [UInt8]($0) }
    }
  }

  /// A file name for an input: its FNV-1a hash in hex, so the same input is one file.
  public static func fileName(for input: [UInt8]) -> String {
    let h = input.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    return String(h, radix: 16)
  }
}

/// The in-process loop: the corpus as it is, then `runs` seeded mutations. A violation stops it;
/// a trap ends the process (`folio-fuzz` runs this in a child process for that reason).
public enum FuzzLoop {
  public struct Finding: Sendable, Equatable {
    /// The run that found it: nil for a corpus input.
    public var run: UInt64?
    public var input: [UInt8]
    public var violation: FuzzViolation
  }

  /// Runs `target` over `corpus` and then over runs `first..<first+runs` of `seed`.
  ///
  /// - Parameter before: Called with each input before it runs (the child process records it
  ///   there, so a trap names its input).
  /// - Returns: The first violation, or nil.
  public static func run(
    _ target: FuzzTarget, corpus: [[UInt8]], seed: UInt64, first: UInt64 = 0, runs: UInt64,
    before: (UInt64?, [UInt8]) -> Void = { _, _ in }
  ) -> Finding? {
    if first == 0 {
      for input in corpus {
        before(nil, input)
        if let v = target.check(input) { return Finding(run: nil, input: input, violation: v) }
      }
    }
    let mutator = FuzzMutator(dictionary: target.dictionary, corpus: corpus)
    var run = first
    while run < first + runs {
      let input = mutator.input(seed: seed, run: run)
      before(run, input)
      if let v = target.check(input) { return Finding(run: run, input: input, violation: v) }
      run += 1
    }
    return nil
  }
}
