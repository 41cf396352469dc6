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
    (listener, port) = try LoopbackListener.open(backlog: 64)
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
