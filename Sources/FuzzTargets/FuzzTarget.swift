/// One parser that reads untrusted bytes, and the property its output must keep.
///
/// A target feeds the bytes to the real parser (the function the provider or the server calls)
/// and checks more than "it did not crash": what the target's own promise is (nothing unsafe
/// reaches a terminal, an href never leaves the listed folder, a parsed rule parses again, an
/// error is a value with a message). Both engines run the same targets: `folio-fuzz` (seeded
/// mutations, one child process per batch) and libFuzzer (`scripts/fuzz`), and FuzzTests runs
/// them over their corpora on every test run (docs/FUZZING.md).
public struct FuzzTarget: Sendable {
  /// The target's name, also its corpus folder (`Fuzz/corpus/<name>/`).
  public let name: String
  /// One line: which parser, which property.
  public let summary: String
  /// Tokens the mutator splices in (XML tags, JSON keys, TOML keys, escape sequences).
  public let dictionary: [[UInt8]]
  /// Runs the parser; a violation of the property, or nil. A crash is a crash (a trap).
  public let check: @Sendable ([UInt8]) -> FuzzViolation?

  public init(
    name: String, summary: String, dictionary: [String] = [], check: @escaping @Sendable ([UInt8]) -> FuzzViolation?
  ) {
    self.name = name
    self.summary = summary
    self.dictionary = dictionary.map { Array($0.utf8) }
    self.check = check
  }
}

/// A broken property: what the target promised and what the input made the parser do instead.
public struct FuzzViolation: Error, Sendable, Equatable, CustomStringConvertible {
  public let message: String

  public init(_ message: String) { self.message = message }

  public var description: String { message }
}
