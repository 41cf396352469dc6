import Foundation

/// How `folio ext test` was asked to run.
public struct ConformanceOptions: Sendable {
  /// The extension's argv (argv[0] searched on PATH).
  public var command: [String]
  /// `initialize.params.config`.
  public var config: [String: String] = [:]
  /// Settings under which the storage cannot be reached; nil skips the unavailable group.
  public var unavailable: [String: String]?
  /// Print every line sent and received.
  public var trace = false
  /// Run only these groups (all when empty).
  public var only: Set<String> = []
  /// For a read-only extension: the path, from the location's root, of a folder prepared as
  /// docs/EXTENSIONS.md §6 describes (``FixtureLayout``).
  public var fixture: String?
  /// The size of the big file of the concurrency, cancel and kill checks.
  public var bigSize = 64 << 20
  /// Multiplies the deadline of every answer (10 s for the handshake, 30 s a call, …): the tests
  /// of the kit's own deadlines shorten them; the command line keeps the protocol's.
  public var deadlineScale = 1.0

  public init(command: [String]) { self.command = command }

  /// The groups, in the order they run: docs/EXTENSIONS.md §6 and the design brief's §6.
  public static let groups = [
    "handshake", "purity", "items", "paging", "changes", "content", "writes", "names", "unavailable", "concurrency",
    "capabilities",
  ]
}

/// The folder a read-only extension's author prepares so that the kit can check paging and
/// content without writing (docs/EXTENSIONS.md §6, "Testing"); `folio ext test --make-fixture DIR`
/// writes it for an extension that serves a local folder.
public enum FixtureLayout {
  /// A folder of exactly 250 empty files, `f000` … `f249`.
  public static let pagingFolder = "paging"
  public static let pagingCount = 250
  /// A file of 3 MiB + 17 bytes whose byte at offset i is `i % 251`.
  public static let contentFile = "content.bin"
  public static let contentSize = 3 * 1_048_576 + 17

  public static func contentBytes(count: Int = contentSize) -> [UInt8] {
    (0..<count).map { UInt8($0 % 251) }
  }

  /// Writes the fixture into `directory` (made when missing).
  public static func write(to directory: String) throws {
    let fm = FileManager.default
    let paging = directory + "/" + pagingFolder
    try fm.createDirectory(atPath: paging, withIntermediateDirectories: true)
    for i in 0..<pagingCount {
      let path = paging + "/" + String(format: "f%03d", i)
      if !fm.fileExists(atPath: path) { fm.createFile(atPath: path, contents: Data()) }
    }
    try Data(contentBytes()).write(to: URL(fileURLWithPath: directory + "/" + contentFile))
  }
}
