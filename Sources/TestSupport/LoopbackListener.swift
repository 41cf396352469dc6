import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A listening TCP socket on 127.0.0.1 on a port the kernel chooses: what the loopback test
/// servers (``ScriptedHTTPServer``, ``CountingProxy``, ``SilentServer``) accept on.
enum LoopbackListener {
  /// The socket and its port.
  static func open(backlog: Int32 = 16) throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard fd >= 0, bound, listen(fd, backlog) == 0 else {
      if fd >= 0 { close(fd) }
      throw POSIXError(.EADDRINUSE)
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
  }
}
