import Foundation

/// A folder of a test's own (stores, uploads, download destinations, logs), removed at the end.
final class Scratch {
  let path: String

  init() throws {
    path =
      FileManager.default.temporaryDirectory.appendingPathComponent("folio-ext-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// A path under the scratch folder (nothing is made).
  func path(_ name: String) -> String { path + "/" + name }

  /// A folder under the scratch folder.
  @discardableResult func folder(_ name: String) throws -> String {
    try FileManager.default.createDirectory(atPath: path(name), withIntermediateDirectories: true)
    return path(name)
  }

  /// A file with `bytes`; returns its path.
  @discardableResult func file(_ name: String, _ bytes: Data) throws -> String {
    try bytes.write(to: URL(fileURLWithPath: path(name)))
    return path(name)
  }

  /// A named pipe: an upload or a download a test paces itself, so that a cancel or a kill
  /// lands while the transfer is provably under way.
  func fifo(_ name: String) throws -> String {
    guard mkfifo(path(name), 0o600) == 0 else { throw ExtensionProcess.Failure("mkfifo \(name) failed") }
    return path(name)
  }

  /// The files in a folder under the scratch folder.
  func list(_ name: String) -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: path(name))) ?? [] }

  /// `count` pseudo-random bytes (a fixed pattern: the tests compare hashes, not randomness).
  static func bytes(_ count: Int, seed: UInt64 = 1) -> Data {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    var bytes = [UInt8](repeating: 0, count: count)
    for i in 0..<count {
      state ^= state << 13
      state ^= state >> 7
      state ^= state << 17
      bytes[i] = UInt8(truncatingIfNeeded: state)
    }
    return Data(bytes)
  }
}

extension ExtensionProcess {
  /// `python3 Extensions/folio-ext-sqlite`, initialized over the store folder `root`.
  static func sqlite(_ scratch: Scratch, root: String, initialize: Bool = true) throws -> ExtensionProcess {
    let process = try ExtensionProcess(
      ["python3", repository + "/Extensions/folio-ext-sqlite"], directory: scratch.path,
      stderrPath: scratch.path("sqlite.log"))
    if initialize { try process.initialize(root: root) }
    return process
  }

  /// `sh Extensions/folio-ext-shdir` (dash where it is installed, as Debian's /bin/sh).
  static func shdir(_ scratch: Scratch, root: String, initialize: Bool = true) throws -> ExtensionProcess {
    let shell = FileManager.default.isExecutableFile(atPath: "/bin/dash") ? "/bin/dash" : "sh"
    let process = try ExtensionProcess(
      [shell, repository + "/Extensions/folio-ext-shdir"], directory: scratch.path,
      stderrPath: scratch.path("shdir.log"))
    if initialize { try process.initialize(root: root) }
    return process
  }

  /// `initialize` as the host sends it; returns its result.
  @discardableResult func initialize(root: String) throws -> JSON {
    try result(
      "initialize",
      [
        "protocol": 1, "host": ["name": "folio", "version": "0.14"], "domain": ["id": "store", "name": "My store"],
        "config": ["root": .string(root)], "stagingDir": "/nonexistent/staging", "stateDir": "/nonexistent/state",
      ])
  }

  /// Every item of `container`, page by page (`pageSize` each); fails on a page without the
  /// container as every item's parent.
  func listAll(_ container: String, pageSize: Int = 100) throws -> (items: [JSON], pages: Int) {
    var items: [JSON] = []
    var page: JSON = nil
    var pages = 0
    repeat {
      let result = try self.result(
        "enumerateItems",
        ["container": .string(container), "pageSize": .int(pageSize), "page": page, "includeHidden": true])
      pages += 1
      for item in result["items"].array {
        guard item["parent"] == .string(container) else { throw Failure("\(item) is not in \(container)") }
        items.append(item)
      }
      page = result["nextPage"]
    } while !page.isNull && pages < 10_000
    return (items, pages)
  }
}
