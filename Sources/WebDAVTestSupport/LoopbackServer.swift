import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A WebDAV server a test started for itself on a loopback port, serving a temporary folder.
public protocol WebDAVTestServer: AnyObject, Sendable {
  /// The served collection, ending in `/`.
  var baseURL: URL { get }
  var user: String { get }
  var password: String { get }
  /// The served folder on disk: what the server stores under `baseURL`.
  var files: String { get }
  /// What the server wrote to its logs, for a failing test's message.
  var log: String { get }
  /// Stops the server and removes its folder (safe to call twice).
  func stop()
}

/// A fixture that could not be set up: a missing program says how to install it.
public struct WebDAVFixtureError: Error, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// The pieces every server fixture shares: a private folder, a free port, a process started and
/// waited for until it accepts connections — polled, not slept for — and stopped by its pid.
enum LoopbackServer {
  /// A new folder under /tmp, readable by all: Apache's children run as `nobody` when the tests run
  /// as root, and must reach the files, the password file and the lock database.
  static func makeFolder(_ prefix: String) throws -> String {
    var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw WebDAVFixtureError("mkdtemp failed: \(String(cString: strerror(errno)))")
    }
    let folder = String(cString: made)
    chmod(folder, 0o755)
    return folder
  }

  /// The first of `candidates` that is an executable file, or an error naming the package.
  static func program(_ candidates: [String], package: String) throws -> String {
    guard let found = candidates.first(where: { access($0, X_OK) == 0 }) else {
      throw WebDAVFixtureError("\(candidates[0]) is not installed: apt-get install \(package) (.ci/run does)")
    }
    return found
  }

  /// A port nothing listens on at the moment (the kernel's choice for a bound-then-closed socket).
  static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard ok else { throw WebDAVFixtureError("no free port") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// Whether something accepts connections on 127.0.0.1:`port`.
  static func isAccepting(_ port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
  }

  /// Starts a server on a free port, retrying on another one when it dies (a port taken in the
  /// meantime) — up to five times.
  ///
  /// - Parameters:
  ///   - launch: Writes the configuration for a port and starts the process.
  ///   - log: The server's output so far, for the error.
  static func start(_ name: String, log: () -> String, launch: (Int) throws -> ServerChild) throws -> (ServerChild, Int) {
    var lastLog = ""
    for _ in 0..<5 {
      let port = try freePort()
      let child = try launch(port)
      // Bounded only so that a server that hangs fails the test instead of holding it forever; the
      // check runs once more after the deadline, so a poll that overslept under load still counts.
      let deadline = Date().addingTimeInterval(60)
      while true {
        let late = Date() >= deadline
        if isAccepting(port) { return (child, port) }
        if !child.isRunning || late { break }
        usleep(10_000)
      }
      child.signal(SIGTERM)
      child.waitForExit()
      lastLog = log()
    }
    throw WebDAVFixtureError("\(name) did not start: \(lastLog)")
  }

  /// Starts a server again on the port it had (a test that killed it brings it back): waited for
  /// until it accepts connections, bounded only as a hang guard.
  static func restart(_ name: String, port: Int, log: () -> String, launch: (Int) throws -> ServerChild) throws -> ServerChild {
    let child = try launch(port)
    let deadline = Date().addingTimeInterval(60)
    while true {
      let late = Date() >= deadline
      if isAccepting(port) { return child }
      if !child.isRunning || late { break }
      usleep(10_000)
    }
    child.signal(SIGKILL)
    child.waitForExit()
    throw WebDAVFixtureError("\(name) did not start again on port \(port): \(log())")
  }

  /// Stops `child`: SIGTERM, and SIGKILL if it is still there after 30 s (a server stuck in its
  /// shutdown must not hold the test's thread forever).
  static func stop(_ child: ServerChild) {
    child.signal(SIGTERM)
    let deadline = Date().addingTimeInterval(30)
    while child.isRunning && Date() < deadline { usleep(10_000) }
    child.signal(SIGKILL)
    child.waitForExit()
  }

  /// Reads a file the server wrote, or "".
  static func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

  /// A password file with one user, made by Apache's `htpasswd` (apache2-utils); nginx reads the
  /// same format.
  static func writePasswordFile(_ path: String, user: String, password: String) throws {
    let htpasswd = try program(["/usr/bin/htpasswd"], package: "apache2-utils")
    let result = try ServerChild.run(htpasswd, ["-b", "-c", path, user, password])
    guard result.status == 0 else { throw WebDAVFixtureError("htpasswd failed: \(result.output)") }
    chmod(path, 0o644)
  }
}

extension LoopbackServer {
  /// A self-signed certificate for 127.0.0.1 (`tls-cert.pem`) and its key (`tls-key.pem`) in
  /// `folder`, made by openssl.
  static func makeCertificate(in folder: String) throws -> String {
    let openssl = try program(["/usr/bin/openssl"], package: "openssl")
    let result = try ServerChild.run(
      openssl,
      [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder + "/tls-key.pem", "-out", folder + "/tls-cert.pem",
        "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
      ])
    guard result.status == 0 else { throw WebDAVFixtureError("openssl could not make a certificate: \(result.output)") }
    return folder + "/tls-cert.pem"
  }
}
