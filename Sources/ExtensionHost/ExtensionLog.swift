import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// An extension's log: its stderr, and what the host noted about it (stdout noise, a refused
/// item, a crash), in `$XDG_STATE_HOME/folio/extensions/<domain>.log`.
///
/// Rotated at 1 MiB with one old file (`.log.1`), so a chatty extension never fills the disk. The
/// last lines are also kept in memory, for Info when the location is offline; they are shown
/// through TerminalText, never raw.
public final class ExtensionLog: @unchecked Sendable {
  public static let rotateAt = 1 << 20
  public static let keptLines = 20

  public let file: URL
  private let lock = NSLock()
  private var handle: FileHandle?
  private var written = 0
  private var tail: [String] = []

  public init(file: URL) {
    self.file = file
    try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    open()
  }

  private func open() {
    if !FileManager.default.fileExists(atPath: file.path) {
      FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
    }
    handle = try? FileHandle(forWritingTo: file)
    written = Int((try? handle?.seekToEnd()) ?? 0)
  }

  /// The last lines (at most ``keptLines``), oldest first, as the extension wrote them.
  public var lastLines: [String] {
    lock.lock()
    defer { lock.unlock() }
    return tail
  }

  /// One line of the extension's stderr.
  func extensionLine(_ bytes: ArraySlice<UInt8>) {
    append(String(decoding: bytes, as: UTF8.self), remember: true)
  }

  /// A line the host writes about the extension (kept in the tail too: it is why it stopped).
  public func note(_ text: String) {
    append("folio: " + text, remember: true)
  }

  private func append(_ line: String, remember: Bool) {
    lock.lock()
    defer { lock.unlock() }
    if remember {
      tail.append(line)
      if tail.count > Self.keptLines { tail.removeFirst(tail.count - Self.keptLines) }
    }
    let data = Data((line + "\n").utf8)
    if written + data.count > Self.rotateAt {
      try? handle?.close()
      let old = file.appendingPathExtension("1")
      _ = rename(file.path, old.path)
      open()
    }
    try? handle?.write(contentsOf: data)
    written += data.count
  }

  /// Waits (at most `seconds`) until every stream followed so far reached EOF: a crashed
  /// extension's last words are in the tail before the crash is reported.
  func waitForEnd(upTo seconds: TimeInterval) {
    ended.lock()
    defer { ended.unlock() }
    let deadline = Date(timeIntervalSinceNow: seconds)
    while following > 0 && ended.wait(until: deadline) {}
  }
  private let ended = NSCondition()
  private var following = 0

  /// Reads `fd` (the extension's stderr) line by line on a thread of its own until EOF, then
  /// closes it.
  func follow(_ fd: Int32, name: String) {
    ended.lock()
    following += 1
    ended.unlock()
    let thread = Thread { [self] in
      var buffer = [UInt8](repeating: 0, count: 16384)
      var pending: [UInt8] = []
      while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        pending += buffer[0..<n]
        var start = 0
        while let nl = pending[start...].firstIndex(of: 0x0A) {
          extensionLine(pending[start..<nl])
          start = nl + 1
        }
        pending.removeFirst(start)
        // A line without an end, too long to keep whole: logged in pieces.
        if pending.count > 65536 {
          extensionLine(pending[...])
          pending.removeAll()
        }
      }
      if !pending.isEmpty { extensionLine(pending[...]) }
      Glibc.close(fd)
      ended.lock()
      following -= 1
      ended.broadcast()
      ended.unlock()
    }
    thread.name = "extension stderr: \(name)"
    thread.start()
  }
}
