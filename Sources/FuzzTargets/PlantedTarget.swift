/// A target that fails on purpose, so a test can prove the engines find and report a failure.
///
/// Input containing `VIOLATE` breaks its property (a violation value); input containing `TRAP`
/// traps, as a real parser's out-of-range index would. Three mutations or so away from its seed
/// corpus (`VIOLAT`, `TRA`), so a short seeded run reaches both.
enum PlantedTarget {
  static let target = FuzzTarget(
    name: "planted", summary: "the harness's self-test: VIOLATE is a violation, TRAP a trap",
    dictionary: ["E", "P", "VIOLAT", "TRA"]
  ) { bytes in
    if contains(bytes, "TRAP") { trap() }
    if contains(bytes, "VIOLATE") { return FuzzViolation("the planted violation was found") }
    return nil
  }

  static func contains(_ bytes: [UInt8], _ word: String) -> Bool {
    let w = Array(word.utf8)
    guard bytes.count >= w.count else { return false }
    return (0...(bytes.count - w.count)).contains { bytes[$0..<($0 + w.count)].elementsEqual(w) }
  }

  /// An index out of range, like the parser bugs fuzzing finds.
  private static func trap() {
    let empty: [Int] = []
    _ = empty[Int.random(in: 1...2)]
  }
}
