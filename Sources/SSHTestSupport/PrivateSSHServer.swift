import Foundation
import SFTPClient

#if canImport(Glibc)
  import Glibc
#endif

/// A private OpenSSH server on a free loopback port, with keys, configuration and logs in a temporary
/// folder. Nothing outside that folder changes, except `/run/sshd` (sshd's privilege-separation
/// folder), which is created when it is missing and the tests run as root.
///
/// Keys: `user_key` logs in; `banner_key` logs in through a forced command that prints a line
/// before exec'ing sftp-server (a login shell that talks); `bound_key` logs in to an sftp-server
/// bound by permissions, even as root (CI); `stranger_key` is not authorized; `passphrase_key`
/// logs in once its passphrase (``keyPassphrase``) is given — a secret ssh asks for, as it would
/// a password (a password needs a system user's real password; a passphrase is the same question
/// through askpass, and needs nothing outside the folder).
public final class PrivateSSHServer: @unchecked Sendable {
  public let folder: String
  public let port: Int
  private var pid: pid_t
  public private(set) var hostKeyFingerprint: String

  public static let keyPassphrase = "correct horse battery"
  public var passphraseKey: String { folder + "/passphrase_key" }
  public var userKey: String { folder + "/user_key" }
  public var bannerKey: String { folder + "/banner_key" }
  public var strangerKey: String { folder + "/stranger_key" }
  /// Its sftp-server runs without the capabilities that let root pass every permission check
  /// (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH), so a `chmod 000` folder refuses it as it refuses a
  /// user.
  public var boundKey: String { folder + "/bound_key" }
  public var knownHosts: String { folder + "/known_hosts" }
  /// A folder for the tests' files; the server sees the same filesystem, so its absolute path is
  /// also the remote path.
  public var files: String { folder + "/files" }

  /// What the server's sftp-server logged with `logsTransfers`: a line per file it opened, and on
  /// closing it `close "PATH" bytes read N written M` — the server's own count of what a client read.
  public var sftpLog: String { (try? String(contentsOfFile: folder + "/sftp.log", encoding: .utf8)) ?? "" }

  /// - Parameters:
  ///   - sftpBanner: When given, `Subsystem sftp` is a script that writes these bytes and then
  ///     execs `/usr/lib/openssh/sftp-server`: a server whose SFTP command talks before the
  ///     protocol starts (a login banner, a wrapper that greets). Every key gets it.
  ///   - logsTransfers: `Subsystem sftp` is sftp-server at log level INFO, logging to
  ///     ``sftpLog`` (internal-sftp's log goes nowhere a test can read). For the user key only:
  ///     the forced commands of the others run their own. Not with `sftpBanner`.
  public init(sftpBanner: [UInt8]? = nil, logsTransfers: Bool = false) throws {
    var template = Array("/tmp/folio-sshd-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw FixtureError("mkdtemp failed")
    }
    folder = String(cString: made)
    try FileManager.default.createDirectory(atPath: folder + "/files", withIntermediateDirectories: true)
    for key in ["host_key", "user_key", "banner_key", "stranger_key", "bound_key"] {
      try Self.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", key, "-f", folder + "/" + key])
    }
    _ = try Self.run(
      "/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", Self.keyPassphrase, "-C", "passphrase_key", "-f", folder + "/passphrase_key"])
    hostKeyFingerprint = try Self.fingerprint(folder + "/host_key.pub")
    let userPublic = try String(contentsOfFile: folder + "/user_key.pub", encoding: .utf8)
    let bannerPublic = try String(contentsOfFile: folder + "/banner_key.pub", encoding: .utf8)
    let passphrasePublic = try String(contentsOfFile: folder + "/passphrase_key.pub", encoding: .utf8)
    let banner = "command=\"printf 'Today is a fine day\\n'; exec /usr/lib/openssh/sftp-server\" "
    let boundPublic = try String(contentsOfFile: folder + "/bound_key.pub", encoding: .utf8)
    let bound =
      getuid() == 0
      ? "command=\"exec /usr/bin/setpriv --bounding-set -dac_override,-dac_read_search -- /usr/lib/openssh/sftp-server\" "
      : "command=\"exec /usr/lib/openssh/sftp-server\" "
    try (userPublic + banner + bannerPublic + passphrasePublic + bound + boundPublic)
      .write(toFile: folder + "/authorized_keys", atomically: true, encoding: .utf8)

    if getuid() == 0 && !FileManager.default.fileExists(atPath: "/run/sshd") {
      try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
      chmod("/run/sshd", 0o755)
    }

    var subsystem = "internal-sftp"
    if logsTransfers {
      // sshd runs a subsystem's command with the user's shell (`-c`), so the redirection works.
      // Not a script written here: once in a few runs it could not be executed (ssh exit 126),
      // likely ETXTBSY while another test's fork still held the new file open for writing.
      // mkdtemp's folder has no spaces to quote.
      subsystem = "/usr/lib/openssh/sftp-server -e -l INFO 2>>\(folder)/sftp.log"
    }
    if let sftpBanner {
      try Data(sftpBanner).write(to: URL(fileURLWithPath: folder + "/sftp_banner"))
      let script = folder + "/sftp-with-banner"
      try "#!/bin/sh\ncat '\(folder)/sftp_banner'\nexec /usr/lib/openssh/sftp-server\n"
        .write(toFile: script, atomically: true, encoding: .utf8)
      chmod(script, 0o755)
      subsystem = script
    }

    var lastError = ""
    for _ in 0..<5 {
      let port = try Self.freePort()
      let config = """
        Port \(port)
        ListenAddress 127.0.0.1
        HostKey \(folder)/host_key
        PidFile \(folder)/sshd.pid
        AuthorizedKeysFile \(folder)/authorized_keys
        StrictModes no
        UsePAM no
        PubkeyAuthentication yes
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        PermitRootLogin prohibit-password
        Subsystem sftp \(subsystem)
        LogLevel VERBOSE

        """
      try config.write(toFile: folder + "/sshd_config", atomically: true, encoding: .utf8)
      let pid = try ChildProcess.start(
        "/usr/sbin/sshd", ["-D", "-e", "-f", folder + "/sshd_config"], stderrPath: folder + "/sshd.log")
      if Self.waitUntilAccepting(port: port, while: pid) {
        self.port = port
        self.pid = pid
        try "[127.0.0.1]:\(port) \(String(contentsOfFile: folder + "/host_key.pub", encoding: .utf8))"
          .write(toFile: knownHosts, atomically: true, encoding: .utf8)
        return
      }
      kill(pid, SIGTERM)
      _ = ChildProcess.wait(pid)
      lastError = (try? String(contentsOfFile: folder + "/sshd.log", encoding: .utf8)) ?? ""
    }
    throw FixtureError("sshd did not start: \(lastError)")
  }

  /// An ssh_config for this server; `hostKeyChecking` "yes" with the real known_hosts by default.
  ///
  /// - Parameter bytesPerSecond: When given, ssh reaches the server through a ProxyCommand that
  ///   passes at most that many bytes a second each way: a slow link, so that a test can act in
  ///   the middle of a transfer. Writing the same `name` again without it lifts the limit for the
  ///   next connection.
  public func configuration(
    identity: String? = nil, knownHosts: String? = nil, hostKeyChecking: String = "yes", name: String = "client",
    bytesPerSecond: Int? = nil
  ) throws -> SSHConfiguration {
    let user = String(cString: getpwuid(getuid())!.pointee.pw_name)
    let proxy = try bytesPerSecond.map { "ProxyCommand /usr/bin/python3 \(try slowLinkScript()) 127.0.0.1 \(port) \($0)" }
    let text = """
      Host sftp-test
        HostName 127.0.0.1
        Port \(port)
        \(proxy ?? "ProxyCommand none")
        User \(user)
        IdentityFile \(identity ?? userKey)
        IdentitiesOnly yes
        IdentityAgent none
        UserKnownHostsFile \(knownHosts ?? self.knownHosts)
        GlobalKnownHostsFile /dev/null
        StrictHostKeyChecking \(hostKeyChecking)
        UpdateHostKeys no
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        LogLevel ERROR

      """
    let path = folder + "/ssh_config_\(name)"
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    var configuration = SSHConfiguration(host: "sftp-test", configFile: path)
    configuration.askpassProgram = try askpassScript()
    return configuration
  }

  /// A stand-in for `folio askpass`: speaks AskpassWire to the relay (python3, which CI installs).
  public func askpassScript() throws -> String {
    let path = folder + "/askpass"
    let script = """
      #!/usr/bin/env python3
      import os, socket, struct, sys
      hint = {'confirm': 1, 'none': 2}.get(os.environ.get('SSH_ASKPASS_PROMPT', ''), 0)
      prompt = os.fsencode(sys.argv[1]) if len(sys.argv) > 1 else b''
      s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
      s.connect(os.environ['FOLIO_ASKPASS_SOCKET'])
      s.sendall(struct.pack('>BI', hint, len(prompt)) + prompt)
      data = b''
      while True:
          chunk = s.recv(4096)
          if not chunk:
              break
          data += chunk
      status, length = struct.unpack('>BI', data[:5])
      if status != 0:
          sys.exit(1)
      sys.stdout.buffer.write(data[5:5 + length] + b'\\n')

      """
    try script.write(toFile: path, atomically: true, encoding: .utf8)
    chmod(path, 0o755)
    return path
  }

  /// The server gets a new host key (as after a reinstall, or a machine in the middle): sshd is
  /// stopped, the key made again, sshd started on the same port. known_hosts is left as it was,
  /// so ssh now sees a changed key.
  public func changeHostKey() throws {
    killSessions()
    kill(pid, SIGTERM)
    _ = ChildProcess.wait(pid)
    for file in ["host_key", "host_key.pub"] { unlink(folder + "/" + file) }
    _ = try Self.run("/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "host_key", "-f", folder + "/host_key"])
    hostKeyFingerprint = try Self.fingerprint(folder + "/host_key.pub")
    pid = try ChildProcess.start(
      "/usr/sbin/sshd", ["-D", "-e", "-f", folder + "/sshd_config"], stderrPath: folder + "/sshd.log")
    guard Self.waitUntilAccepting(port: port, while: pid) else { throw FixtureError("sshd did not start again: \(log)") }
  }

  private static func fingerprint(_ publicKey: String) throws -> String {
    try run("/usr/bin/ssh-keygen", ["-l", "-f", publicKey]).split(separator: " ")[1].description
  }

  /// A ProxyCommand that relays stdin/stdout to HOST:PORT, sleeping after each chunk so that
  /// neither direction passes more than RATE bytes a second. It ends when either side closes.
  func slowLinkScript() throws -> String {
    let path = folder + "/slow_link.py"
    let script = """
      import os, socket, sys, threading, time
      host, port, rate = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
      s = socket.create_connection((host, port))
      chunk = max(1024, min(16384, rate // 20))
      def up():
          try:
              while True:
                  data = os.read(0, chunk)
                  if not data:
                      break
                  s.sendall(data)
                  time.sleep(len(data) / rate)
          except OSError:
              pass
          try:
              s.shutdown(socket.SHUT_WR)
          except OSError:
              pass
      threading.Thread(target=up, daemon=True).start()
      try:
          while True:
              data = s.recv(chunk)
              if not data:
                  break
              view = memoryview(data)
              while view:
                  view = view[os.write(1, view):]
              time.sleep(len(data) / rate)
      except OSError:
          pass
      os._exit(0)

      """
    try script.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  /// Kills every session process the server forked (a dropped link), keeping the listener.
  public func killSessions() {
    for child in descendants(of: pid) { kill(child, SIGKILL) }
  }

  /// Stops the server and removes its folder (safe to call twice).
  public func stop() {
    stopListening()
    try? FileManager.default.removeItem(atPath: folder)
  }

  /// Stops sshd but keeps its folder (keys, client configuration): a host that went down.
  public func stopListening() {
    guard !stopped else { return }
    stopped = true
    killSessions()
    kill(pid, SIGTERM)
    _ = ChildProcess.wait(pid)
  }
  private var stopped = false

  public var log: String { (try? String(contentsOfFile: folder + "/sshd.log", encoding: .utf8)) ?? "" }

  private func descendants(of root: Int32) -> [Int32] {
    var parents: [Int32: Int32] = [:]
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
      guard let pid = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { continue }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      if fields.count > 1, let parent = Int32(fields[1]) { parents[pid] = parent }
    }
    var found: [Int32] = []
    var frontier = [root]
    while let next = frontier.popLast() {
      for (pid, parent) in parents where parent == next {
        found.append(pid)
        frontier.append(pid)
      }
    }
    return found
  }

  static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard ok else { throw FixtureError("no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  static func waitUntilAccepting(port: Int, while pid: pid_t) -> Bool {
    let deadline = Date(timeIntervalSinceNow: 20)
    var status: Int32 = 0
    while Date() < deadline && waitpid(pid, &status, WNOHANG) == 0 {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      address.sin_port = UInt16(port).bigEndian
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
      }
      close(fd)
      if connected { return true }
      usleep(20_000)
    }
    return false
  }

  public static func run(_ program: String, _ arguments: [String]) throws -> String {
    try ChildProcess.run(program, arguments)
  }
}

public struct FixtureError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// Records prompts and answers them with a fixed policy.
public final class PromptRecorder: @unchecked Sendable {
  private let lock = NSLock()
  private var seen: [SSHPrompt] = []
  public let answer: SSHPromptAnswer

  public init(answer: SSHPromptAnswer) { self.answer = answer }

  public var prompts: [SSHPrompt] {
    lock.lock()
    defer { lock.unlock() }
    return seen
  }

  private func record(_ prompt: SSHPrompt) {
    lock.lock()
    seen.append(prompt)
    lock.unlock()
  }

  public var handler: SSHPromptHandler {
    { prompt in
      self.record(prompt)
      return self.answer
    }
  }
}

/// Byte paths for files with names String cannot hold.
public enum LocalBytes {
  public static func path(_ folder: String, _ name: [UInt8]) -> [UInt8] { Array(folder.utf8) + [UInt8(ascii: "/")] + name }

  public static func create(_ path: [UInt8], contents: [UInt8] = []) throws {
    let fd = (path + [0]).withUnsafeBufferPointer {
      $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
    }
    guard fd >= 0 else { throw FixtureError("create failed: \(String(cString: strerror(errno)))") }
    _ = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
  }
}
