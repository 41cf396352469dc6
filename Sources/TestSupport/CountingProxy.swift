import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A loopback TCP relay in front of a real server, for tests that must know what a client asked
/// for and how much the server sent it: the requests' heads (method, target, headers, parsed from
/// what the client wrote) and the bytes relayed to the client.
///
/// Why not the servers' own logs: `folio serve` logs no byte counts, moto none, Apache only with
/// mod_log_config set up, and none of them says that a client closed a connection in the middle
/// of a body. A relay says both, the same way for every HTTP server (and counts an SSH stream too).
///
/// With `holdAfter`, each connection passes only that many bytes to the client; the rest waits
/// until ``release()``, ``stop()`` or the client closes. A client that stops reading after what
/// it needs returns while the rest is held; one that waits for the whole body cannot.
///
/// Each connection gets two threads (one each way); a test's connections are few. ``stop()`` ends
/// them and the accepting thread (which holds the relay until then).
public final class CountingProxy: @unchecked Sendable {
  /// A request head as the client sent it.
  public struct Request: Sendable, CustomStringConvertible {
    public var method: String
    /// Path and query as on the wire.
    public var target: String
    /// Header names in lower case.
    public var headers: [String: String]
    public var description: String { "\(method) \(target) \(headers["range"].map { "Range: \($0)" } ?? "")" }
  }

  public let port: Int
  private let upstreamPort: Int
  private let holdAfter: Int?
  private let listener: Int32
  private let condition = NSCondition()
  // Guarded by `condition`.
  private var received: [Request] = []
  private var relayed = 0
  private var released = false
  private var stopped = false
  private var open = 0
  private var sockets: Set<Int32> = []
  private let ended = DispatchSemaphore(value: 0)

  /// - Parameters:
  ///   - upstreamPort: The server's port on 127.0.0.1.
  ///   - holdAfter: Bytes each connection passes to the client before the rest is held.
  public init(upstreamPort: Int, holdAfter: Int? = nil) throws {
    self.upstreamPort = upstreamPort
    self.holdAfter = holdAfter
    (listener, port) = try LoopbackListener.open()
    Thread { [self] in accepting() }.start()
  }

  /// The requests received so far, in order.
  public var requests: [Request] { condition.withLock { received } }

  /// Bytes passed from the server to the client so far, every connection together.
  public var bytesToClient: Int { condition.withLock { relayed } }

  /// Connections whose client has not closed yet.
  public var openConnections: Int { condition.withLock { open } }

  /// Forgets the requests and the count (after a test's setup went through the relay).
  public func reset() {
    condition.withLock {
      received = []
      relayed = 0
    }
  }

  /// Held bytes flow again, and no more are held.
  public func release() {
    condition.withLock {
      released = true
      condition.broadcast()
    }
  }

  /// Stops accepting and closes every connection (by shutting its sockets down: their threads
  /// close them). Safe to call twice.
  public func stop() {
    let first = condition.withLock { () -> Bool in
      defer { stopped = true }
      if !stopped {
        for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
        condition.broadcast()
      }
      return !stopped
    }
    guard first else { return }
    shutdown(listener, Int32(SHUT_RDWR))
    ended.wait()
  }

  // MARK: Relaying

  private func accepting() {
    defer {
      close(listener)
      ended.signal()
    }
    while true {
      let client = accept(listener, nil, nil)
      if condition.withLock({ stopped }) {
        if client >= 0 { close(client) }
        return
      }
      if client < 0 { continue }
      let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = Self.loopback(port: upstreamPort)
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
      }
      guard connected else {
        close(server)
        close(client)
        continue
      }
      let connection = Connection()
      condition.withLock {
        open += 1
        sockets.formUnion([client, server])
      }
      Thread { [self] in toServer(client, server, connection) }.start()
      Thread { [self] in toClient(server, client, connection) }.start()
    }
  }

  /// The two directions of one connection; the last to finish closes both sockets.
  private final class Connection: @unchecked Sendable {
    var clientClosed = false
    var finished = 0
  }

  private func toServer(_ client: Int32, _ server: Int32, _ connection: Connection) {
    var parser = RequestParser()
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = recv(client, &chunk, chunk.count, 0)
      if n <= 0 { break }
      let heads = parser.feed(chunk[0..<n])
      if !heads.isEmpty { condition.withLock { received += heads } }
      guard sendAll(server, chunk[0..<n]) else { break }
    }
    shutdown(server, Int32(SHUT_WR))
    condition.withLock {
      connection.clientClosed = true
      open -= 1
      condition.broadcast()
    }
    finish(client, server, connection)
  }

  private func toClient(_ server: Int32, _ client: Int32, _ connection: Connection) {
    var passed = 0
    var chunk = [UInt8](repeating: 0, count: 65536)
    relaying: while true {
      let n = recv(server, &chunk, chunk.count, 0)
      if n <= 0 { break }
      var part = chunk[0..<n]
      if let holdAfter {
        let allowed = condition.withLock { released } ? part.count : max(0, holdAfter - passed)
        if allowed < part.count {
          let now = part.prefix(allowed)
          guard sendAll(client, now) else { break }
          count(now.count)
          passed += now.count
          part = part.dropFirst(allowed)
          // Held: until released, stopped, or the client is gone.
          let go = condition.withLock { () -> Bool in
            while !released && !stopped && !connection.clientClosed { condition.wait() }
            return released && !stopped && !connection.clientClosed
          }
          guard go else { break relaying }
        }
      }
      guard sendAll(client, part) else { break }
      count(part.count)
      passed += part.count
    }
    shutdown(client, Int32(SHUT_RDWR))
    shutdown(server, Int32(SHUT_RDWR))
    finish(client, server, connection)
  }

  private func count(_ n: Int) { condition.withLock { relayed += n } }

  private func finish(_ client: Int32, _ server: Int32, _ connection: Connection) {
    let last = condition.withLock { () -> Bool in
      connection.finished += 1
      guard connection.finished == 2 else { return false }
      sockets.subtract([client, server])
      return true
    }
    if last {
      close(client)
      close(server)
    }
  }

  private func sendAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
    bytes.withUnsafeBytes { raw in
      var done = 0
      while done < raw.count {
        let n = send(fd, raw.baseAddress! + done, raw.count - done, Int32(MSG_NOSIGNAL))
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return false }
        done += n
      }
      return true
    }
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return address
  }
}

/// HTTP/1.1 request heads out of a client's byte stream: a head, then as many body bytes as its
/// `Content-Length` says, then the next head. A stream it cannot follow (chunked bodies, not HTTP)
/// yields nothing more.
struct RequestParser {
  private var buffer: [UInt8] = []
  private var bodyLeft = 0
  private var lost = false

  mutating func feed(_ bytes: ArraySlice<UInt8>) -> [CountingProxy.Request] {
    guard !lost else { return [] }
    buffer += bytes
    var out: [CountingProxy.Request] = []
    while true {
      if bodyLeft > 0 {
        let skip = min(bodyLeft, buffer.count)
        buffer.removeFirst(skip)
        bodyLeft -= skip
        if bodyLeft > 0 { return out }
      }
      guard let end = Self.headEnd(buffer) else { return out }
      let text = String(decoding: buffer[..<end], as: UTF8.self)
      buffer.removeFirst(end + 4)
      var lines = text.components(separatedBy: "\r\n")
      let first = lines.removeFirst().split(separator: " ")
      guard first.count == 3 else {
        lost = true
        return out
      }
      var headers: [String: String] = [:]
      for line in lines {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      }
      if headers["transfer-encoding"] != nil { lost = true }
      bodyLeft = headers["content-length"].flatMap { Int($0) } ?? 0
      out.append(CountingProxy.Request(method: String(first[0]), target: String(first[1]), headers: headers))
      if lost { return out }
    }
  }

  private static func headEnd(_ bytes: [UInt8]) -> Int? {
    guard bytes.count >= 4 else { return nil }
    for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
      return i
    }
    return nil
  }
}
