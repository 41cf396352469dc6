import Foundation
import SSHTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Ports on 127.0.0.1 for test servers: a free one, and waiting (by polling, never a fixed sleep)
/// until a server accepts on it.
public enum Loopback {
  /// A port nothing listens on now (the kernel's choice for a bound, closed socket).
  public static func freePort() throws -> Int {
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

  /// True once a connection to `port` succeeds; false when `pid` exits first or after 60 s (moto
  /// imports for a few seconds on a loaded machine).
  public static func waitUntilAccepting(port: Int, while pid: pid_t) -> Bool {
    let deadline = Date(timeIntervalSinceNow: 60)
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

  /// Whether `line` appears in the file at `path` while `pid` runs (60 s at most); false when the
  /// process ended first (reaped here) or the line never came.
  public static func waitForLine(_ line: String, in path: String, while pid: pid_t) -> Bool {
    let deadline = Date(timeIntervalSinceNow: 60)
    var status: Int32 = 0
    while Date() < deadline {
      if let text = try? String(contentsOfFile: path, encoding: .utf8), text.contains(line) {
        return waitpid(pid, &status, WNOHANG) == 0
      }
      if waitpid(pid, &status, WNOHANG) != 0 { return false }
      usleep(20_000)
    }
    return false
  }
}
