import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `rclone serve webdav` on a free loopback port: Go's x/net/webdav over rclone's VFS. It ignores
/// conditional headers on PUT and writes into the file in place (`O_TRUNC`), so a reader sees a
/// half-written file while an upload runs. Its VFS caches what it listed (`--dir-cache-time`, 5 min
/// by default, and the local backend sends no change notices): a file another program writes in
/// the served folder on disk is not in its listings until that cache expires.
public final class RcloneDAVServer: WebDAVTestServer, @unchecked Sendable {
  public let folder: String
  public let port: Int
  public let baseURL: URL
  public let user = "alice"
  public let password = "wonderland"
  private let lock = NSLock()
  private var child: ServerChild
  private var stopped = false
  private let launch: @Sendable (Int) throws -> ServerChild

  public var files: String { folder + "/files" }
  public var log: String { LoopbackServer.read(folder + "/rclone.log") }

  /// - Parameters:
  ///   - bytesPerSecond: rclone's `--bwlimit` in bytes (with the `B` suffix: a bare number is KiB/s): a slow link, so that a test can act while an upload
  ///     is still under way.
  ///   - dirCacheSeconds: rclone's `--dir-cache-time`: how long a listing is served from its cache
  ///     (what another program wrote on disk meanwhile is not seen).
  public init(bytesPerSecond: Int? = nil, dirCacheSeconds: Int? = nil) throws {
    let program = try LoopbackServer.program(["/usr/bin/rclone", "/usr/local/bin/rclone"], package: "rclone")
    folder = try LoopbackServer.makeFolder("folio-rclone-dav")
    let folder = self.folder
    try FileManager.default.createDirectory(atPath: folder + "/files", withIntermediateDirectories: true)
    let (user, password) = (self.user, self.password)
    let launcher: @Sendable (Int) throws -> ServerChild = { port in
      try ServerChild(
        program,
        [
          "serve", "webdav", "--addr", "127.0.0.1:\(port)", "--user", user, "--pass", password, "--config", "/dev/null",
          "--cache-dir", folder + "/cache", folder + "/files",
        ] + (bytesPerSecond.map { ["--bwlimit", "\($0)B"] } ?? [])
          + (dirCacheSeconds.map { ["--dir-cache-time", "\($0)s"] } ?? []), output: folder + "/rclone.log")
    }
    launch = launcher
    (child, port) = try LoopbackServer.start("rclone serve webdav", log: { LoopbackServer.read(folder + "/rclone.log") }, launch: launcher)
    baseURL = URL(string: "http://127.0.0.1:\(port)/")!
  }

  /// The server dies (SIGKILL): connections are refused until ``restart()``; its files stay.
  public func kill() {
    let current = lock.withLock { child }
    current.signal(SIGKILL)
    current.waitForExit()
  }

  /// The server comes back on the same port, serving the same files.
  public func restart() throws {
    let folder = self.folder
    let started = try LoopbackServer.restart(
      "rclone serve webdav", port: port, log: { LoopbackServer.read(folder + "/rclone.log") }, launch: launch)
    lock.withLock { child = started }
  }

  public func stop() {
    let current = lock.withLock { () -> ServerChild? in
      guard !stopped else { return nil }
      stopped = true
      return child
    }
    guard let current else { return }
    LoopbackServer.stop(current)
    try? FileManager.default.removeItem(atPath: folder)
  }

  deinit { stop() }
}
