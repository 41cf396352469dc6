/// The simulation's one source of randomness: SplitMix64 (Steele, Lea and Flood, "Fast splittable
/// pseudorandom number generators", 2014). Seeded, the same sequence on every machine and Swift
/// version — the standard library's generator cannot be seeded, and a seed must replay a run
/// exactly (test-plan.md I8).
public struct SimulationRandom: RandomNumberGenerator, Sendable {
  private var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A generator for one part of the run (a step, a machine's faults), so removing a step while
  /// shrinking leaves the others' choices as they were.
  public func derived(_ salt: UInt64) -> SimulationRandom {
    var copy = SimulationRandom(seed: state ^ (salt &* 0xD6E8_FEB8_6659_FD93))
    _ = copy.next()
    return copy
  }

  /// True with probability `p`.
  public mutating func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }

  /// One of `options`, uniformly.
  public mutating func pick<T>(_ options: [T]) -> T { options[Int(next() % UInt64(options.count))] }
}
