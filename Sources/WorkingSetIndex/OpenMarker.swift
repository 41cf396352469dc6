import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A file next to the database saying "process PID has it open", removed on a clean close.
///
/// A marker whose process is gone means that process died with the index open (a crash, `kill -9`,
/// power loss), so the next open runs `PRAGMA quick_check` before trusting the file. Checking on
/// every open was measured too slow to do unconditionally: 0.28 s warm for a 1,000,000-item index
/// (300 MB) on this machine, paid by every `folio` command. One marker per open (pid plus a random
/// suffix) keeps several processes, and several opens in one process, from clearing each other's.
final class OpenMarker: Sendable {
  let url: URL

  private init(url: URL) { self.url = url }

  deinit { unlink(url.path) }

  /// Creates this open's marker next to `database`.
  static func create(for database: URL) throws -> OpenMarker {
    let name = "\(prefix(for: database))\(getpid()).\(UInt32.random(in: 0...UInt32.max))"
    let url = database.deletingLastPathComponent().appendingPathComponent(name)
    guard FileManager.default.createFile(atPath: url.path, contents: Data()) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
    }
    return OpenMarker(url: url)
  }

  /// Markers left by processes that are no longer running.
  static func stale(for database: URL) -> [URL] {
    let folder = database.deletingLastPathComponent()
    let prefix = prefix(for: database)
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return [] }
    return names.compactMap { name -> URL? in
      guard name.hasPrefix(prefix) else { return nil }
      let rest = name.dropFirst(prefix.count)
      guard let dot = rest.firstIndex(of: "."), let pid = pid_t(rest[..<dot]) else { return nil }
      // kill(pid, 0) probes without signalling; EPERM means alive but someone else's.
      if kill(pid, 0) == 0 || errno == EPERM { return nil }
      return folder.appendingPathComponent(name)
    }
  }

  /// Removes the marker now rather than when the last copy of the index goes away.
  func remove() { unlink(url.path) }

  private static func prefix(for database: URL) -> String { database.lastPathComponent + ".open." }
}
