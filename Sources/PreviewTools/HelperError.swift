/// Why a helper could not be run at all (as opposed to a helper that ran and failed, which is a
/// ``HelperResult`` with its exit status).
///
/// A struct with a code, as `ProviderError` is, so a new code does not break a caller's switch.
public struct HelperError: Error, Sendable, Equatable, CustomStringConvertible {
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    init(_ name: String) { self.name = name }
    public var description: String { name }

    /// The program is not an executable file on the search path.
    public static let notFound = Code("notFound")
    /// fork, exec or the child's setup (setsid, a limit, the cache folder as cwd) failed.
    public static let spawnFailed = Code("spawnFailed")
    /// An argument holds a NUL byte: it cannot be passed to exec.
    public static let invalidArgument = Code("invalidArgument")
    /// The private cache folder cannot be made, or is not ours alone.
    public static let cacheUnusable = Code("cacheUnusable")
  }

  public let code: Code
  /// One line, safe to show (names are escaped by whoever made it).
  public let message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "\(code): \(message)" }
}
