import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `rclone serve webdav` on a free loopback port: Go's x/net/webdav over rclone's VFS. It ignores
/// conditional headers on PUT and writes into the file in place (`O_TRUNC`), so a reader sees a
/// half-written file while an upload runs.
public final class RcloneDAVServer: WebDAVTestServer, @unchecked Sendable {
  public let folder: String
  public let port: Int
  public let baseURL: URL
  public let user = "alice"
  public let password = "wonderland"
  private let child: ServerChild
  private var stopped = false

  public var files: String { folder + "/files" }
  public var log: String { LoopbackServer.read(folder + "/rclone.log") }

  /// - Parameter bytesPerSecond: rclone's `--bwlimit`: a slow link, so that a test can act while
  ///   an upload is still under way.
  public init(bytesPerSecond: Int? = nil) throws {
    let program = try LoopbackServer.program(["/usr/bin/rclone", "/usr/local/bin/rclone"], package: "rclone")
    folder = try LoopbackServer.makeFolder("folio-rclone-dav")
    let folder = self.folder
    try FileManager.default.createDirectory(atPath: folder + "/files", withIntermediateDirectories: true)
    let (user, password) = (self.user, self.password)
    (child, port) = try LoopbackServer.start("rclone serve webdav", log: { LoopbackServer.read(folder + "/rclone.log") }) { port in
      try ServerChild(
        program,
        [
          "serve", "webdav", "--addr", "127.0.0.1:\(port)", "--user", user, "--pass", password, "--config", "/dev/null",
          "--cache-dir", folder + "/cache", folder + "/files",
        ] + (bytesPerSecond.map { ["--bwlimit", "\($0)"] } ?? []), output: folder + "/rclone.log")
    }
    baseURL = URL(string: "http://127.0.0.1:\(port)/")!
  }

  public func stop() {
    guard !stopped else { return }
    stopped = true
    LoopbackServer.stop(child)
    try? FileManager.default.removeItem(atPath: folder)
  }

  deinit { stop() }
}
