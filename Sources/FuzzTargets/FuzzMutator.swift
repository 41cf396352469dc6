/// The seeded mutational engine's mutations: no coverage feedback, every choice drawn from one
/// generator, so `(seed, run)` names one input exactly (docs/FUZZING.md).
///
/// Mutations in the style of AFL's and libFuzzer's: bit flips, byte sets to interesting values,
/// inserted and deleted bytes and runs, a block copied within the input, a splice with another
/// corpus input, and a dictionary token inserted or written over (for XML tags, JSON keys, TOML
/// keys and escape sequences, which random bytes almost never spell).
public struct FuzzMutator: Sendable {
  public let dictionary: [[UInt8]]
  public let corpus: [[UInt8]]
  /// Inputs grow to at most this many bytes.
  public let maxLength: Int

  public init(dictionary: [[UInt8]], corpus: [[UInt8]], maxLength: Int = 64 * 1024) {
    self.dictionary = dictionary
    self.corpus = corpus.isEmpty ? [[]] : corpus
    self.maxLength = maxLength
  }

  /// The input of run `run` under `seed`: a corpus input and 1–8 stacked mutations.
  public func input(seed: UInt64, run: UInt64) -> [UInt8] {
    var rng = SplitMix64(seed: seed ^ (run &* 0x9E37_79B9_7F4A_7C15))
    var bytes = corpus[rng.below(corpus.count)]
    for _ in 0..<(1 + rng.below(8)) { mutate(&bytes, &rng) }
    if bytes.count > maxLength { bytes.removeLast(bytes.count - maxLength) }
    return bytes
  }

  private static let interesting: [UInt8] = [0, 1, 0x7F, 0x80, 0xFF, 0x1B, 0x0A, 0x0D, 0x22, 0x27, 0x3C, 0x3E, 0x26, 0x25, 0x5C, 0x2F, 0x2E]

  private func mutate(_ b: inout [UInt8], _ rng: inout SplitMix64) {
    switch rng.below(10) {
    case 0 where !b.isEmpty:
      b[rng.below(b.count)] ^= UInt8(1) << UInt8(rng.below(8))
    case 1 where !b.isEmpty:
      b[rng.below(b.count)] = Self.interesting[rng.below(Self.interesting.count)]
    case 2:
      b.insert(UInt8(truncatingIfNeeded: rng.next()), at: rng.below(b.count + 1))
    case 3 where !b.isEmpty:
      let start = rng.below(b.count)
      b.removeSubrange(start..<min(b.count, start + 1 + rng.below(16)))
    case 4 where !b.isEmpty:
      let start = rng.below(b.count)
      let block = Array(b[start..<min(b.count, start + 1 + rng.below(64))])
      b.insert(contentsOf: block, at: rng.below(b.count + 1))
    case 5:
      let other = corpus[rng.below(corpus.count)]
      guard !other.isEmpty else { return }
      let cut = rng.below(b.count + 1)
      let from = rng.below(other.count)
      b = Array(b[..<cut]) + Array(other[from...])
    case 6, 7 where !dictionary.isEmpty:
      let token = dictionary[rng.below(dictionary.count)]
      let at = rng.below(b.count + 1)
      if rng.below(2) == 0 || at + token.count > b.count {
        b.insert(contentsOf: token, at: at)
      } else {
        b.replaceSubrange(at..<(at + token.count), with: token)
      }
    case 8 where !b.isEmpty:
      // A 4-byte length or count set to an edge (SFTP's u32s, lengths in binary tokens).
      let at = rng.below(b.count)
      let edges: [UInt32] = [0, 1, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF, UInt32(b.count), UInt32(b.count) &+ 1]
      let v = edges[rng.below(edges.count)]
      for k in 0..<4 where at + k < b.count { b[at + k] = UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt32(k))) }
    default:
      // A digit run replaced by a large or negative number (sizes, offsets, counts in text).
      let numbers = ["-1", "0", "4294967296", "9223372036854775807", "-9223372036854775808", "1e309", "99999999999999999999"]
      b.insert(contentsOf: Array(numbers[rng.below(numbers.count)].utf8), at: rng.below(b.count + 1))
    }
  }
}

/// A small, fast, seedable generator (Steele, Lea and Flood's SplitMix64): the same seed gives the
/// same runs on every machine, which `SystemRandomNumberGenerator` does not.
public struct SplitMix64: RandomNumberGenerator, Sendable {
  private var state: UInt64

  public init(seed: UInt64) { state = seed }

  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A number in 0..<n (n > 0).
  mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(1, n))) }
}
