import Foundation
import SFTPClient

#if canImport(Glibc)
  import Glibc
#endif

/// `rclone serve sftp` on a free loopback port: a second SFTP implementation (Go's, not OpenSSH's)
/// serving a temporary folder, with its own host key and one authorized user key. It has none of
/// OpenSSH's extensions (no posix-rename, no limits), which is the point.
public final class RcloneSFTPServer: @unchecked Sendable {
  public let folder: String
  public let port: Int
  private let pid: pid_t
  private var stopped = false

  public var userKey: String { folder + "/user_key" }
  public var knownHosts: String { folder + "/known_hosts" }
  /// The served folder; rclone's paths are relative to it ("/" is this folder).
  public var files: String { folder + "/files" }

  /// rclone's path, or nil when it is not installed (`apt-get install rclone`; .ci/run does).
  public static var program: String? {
    ["/usr/bin/rclone", "/usr/local/bin/rclone"].first { access($0, X_OK) == 0 }
  }

  public init() throws {
    guard let program = Self.program else { throw FixtureError("rclone is not installed (apt-get install rclone)") }
    var template = Array("/tmp/folio-rclone-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw FixtureError("mkdtemp failed")
    }
    folder = String(cString: made)
    let files = folder + "/files"
    try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
    for key in ["host_key", "user_key"] {
      try PrivateSSHServer.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", key, "-f", folder + "/" + key])
    }
    try FileManager.default.copyItem(atPath: folder + "/user_key.pub", toPath: folder + "/authorized_keys")
    var lastError = ""
    for _ in 0..<5 {
      let port = try PrivateSSHServer.freePort()
      let pid = try ChildProcess.start(
        program,
        [
          "serve", "sftp", "--addr", "127.0.0.1:\(port)", "--key", folder + "/host_key", "--authorized-keys",
          folder + "/authorized_keys", "--config", "/dev/null", "--cache-dir", folder + "/cache",
          // Without a write cache rclone's pkg/sftp hands pipelined WRITEs to its VFS out of order
          // and waits only 1 s (--vfs-write-wait) for the missing one before failing with "Illegal
          // seek" (seen on this loaded machine; a longer wait stalled the upload). With the write
          // cache, rclone's documented mode for "all normal file system operations", a file reaches
          // `files` when it is closed (at once: no write-back delay).
          "--vfs-cache-mode", "writes", "--vfs-write-back", "0s", files,
        ], stderrPath: folder + "/rclone.log")
      if PrivateSSHServer.waitUntilAccepting(port: port, while: pid) {
        self.port = port
        self.pid = pid
        try "[127.0.0.1]:\(port) \(String(contentsOfFile: folder + "/host_key.pub", encoding: .utf8))"
          .write(toFile: knownHosts, atomically: true, encoding: .utf8)
        return
      }
      kill(pid, SIGTERM)
      _ = ChildProcess.wait(pid)
      lastError = (try? String(contentsOfFile: folder + "/rclone.log", encoding: .utf8)) ?? ""
    }
    throw FixtureError("rclone serve sftp did not start: \(lastError)")
  }

  /// An ssh_config naming this server `rclone-test`.
  public func configuration(name: String = "client") throws -> SSHConfiguration {
    let user = String(cString: getpwuid(getuid())!.pointee.pw_name)
    let text = """
      Host rclone-test
        HostName 127.0.0.1
        Port \(port)
        User \(user)
        IdentityFile \(userKey)
        IdentitiesOnly yes
        IdentityAgent none
        UserKnownHostsFile \(knownHosts)
        GlobalKnownHostsFile /dev/null
        StrictHostKeyChecking yes
        UpdateHostKeys no
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        LogLevel ERROR

      """
    let path = folder + "/ssh_config_\(name)"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return SSHConfiguration(host: "rclone-test", configFile: path)
  }

  public var log: String { (try? String(contentsOfFile: folder + "/rclone.log", encoding: .utf8)) ?? "" }

  /// Stops rclone and removes its folder (safe to call twice).
  public func stop() {
    guard !stopped else { return }
    stopped = true
    kill(pid, SIGTERM)
    _ = ChildProcess.wait(pid)
    try? FileManager.default.removeItem(atPath: folder)
  }
}
