import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A loopback port that accepts connections and never answers, nor closes them: a hung server
/// (a stuck process, a machine gone behind a proxy), which a closed port cannot stand for — a
/// refused connection fails at once, this one waits for a timeout.
public final class SilentServer: @unchecked Sendable {
  public let port: Int
  private let listener: Int32
  private let lock = NSLock()
  private var held: [Int32] = []
  private var stopped = false

  public init() throws {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    self.listener = listener
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, length) == 0 && getsockname(listener, $0, &length) == 0
      }
    }
    guard bound, listen(listener, 64) == 0 else {
      close(listener)
      throw POSIXError(.EADDRINUSE)
    }
    port = Int(UInt16(bigEndian: address.sin_port))
    Thread { [self] in accepting() }.start()
  }

  public var endpoint: String { "http://127.0.0.1:\(port)" }

  /// How many connections it has taken so far.
  public var accepted: Int { lock.withLock { held.count } }

  private func accepting() {
    while true {
      var ready = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
      let n = poll(&ready, 1, 100)
      if lock.withLock({ stopped }) { break }
      guard n > 0 else { continue }
      let fd = accept(listener, nil, nil)
      if fd >= 0 { lock.withLock { held.append(fd) } }
    }
    close(listener)
  }

  /// Closes every connection taken and stops accepting.
  public func stop() {
    let fds = lock.withLock { () -> [Int32] in
      stopped = true
      defer { held = [] }
      return held
    }
    for fd in fds { close(fd) }
  }
}
