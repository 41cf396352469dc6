import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A loopback HTTP/1.1 server that answers each request with what a script says, for the answers
/// a real server never gives on demand (S3's `<Error>` inside a 200, a range ignored, a broken
/// listing, a clock-skew refusal), or a double of a server that cannot run here (Nextcloud). It records every request as received (the path exactly as on the wire).
///
/// One thread accepts and serves connections one at a time, each closed after its answer.
public final class ScriptedHTTPServer: @unchecked Sendable {
  public struct Received: Sendable {
    public var method: String
    /// The request target as sent: path and query, still percent-encoded.
    public var target: String
    public var headers: [String: String]
    public var body: [UInt8]
  }

  public let port: Int
  private let listener: Int32
  private let lock = NSLock()
  private var received: [Received] = []
  private let script: @Sendable (Received, Int) -> [UInt8]
  private var stopped = false
  private let ended = DispatchSemaphore(value: 0)

  /// - Parameter script: The raw answer to the n-th request (0-based).
  public init(script: @escaping @Sendable (Received, Int) -> [UInt8]) throws {
    self.script = script
    (listener, port) = try LoopbackListener.open()
    let thread = Thread { [self] in serve() }
    thread.start()
  }

  public var endpoint: String { "http://127.0.0.1:\(port)" }

  public var requests: [Received] { lock.withLock { received } }

  /// Stops accepting and waits for the serving thread to end. The thread closes the listening
  /// socket itself: closed here, its number could be reused by another test's server while the
  /// thread still calls `accept` on it, and that thread would then answer the other test.
  public func stop() {
    let first = lock.withLock { () -> Bool in
      defer { stopped = true }
      return !stopped
    }
    guard first else { return }
    shutdown(listener, Int32(SHUT_RDWR))
    ended.wait()
  }

  /// A whole answer: status line, headers (Content-Length added), body.
  public static func answer(_ status: String, headers: [(String, String)] = [], body: [UInt8] = [], contentLength: Int? = nil)
    -> [UInt8]
  {
    var head = "HTTP/1.1 \(status)\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    head += "Content-Length: \(contentLength ?? body.count)\r\nConnection: close\r\n\r\n"
    return Array(head.utf8) + body
  }

  public static func answer(_ status: String, headers: [(String, String)] = [], xml: String) -> [UInt8] {
    answer(status, headers: headers + [("Content-Type", "application/xml")], body: Array(xml.utf8))
  }

  private func serve() {
    defer {
      close(listener)
      ended.signal()
    }
    var count = 0
    while true {
      let connection = accept(listener, nil, nil)
      if lock.withLock({ stopped }) {
        if connection >= 0 { close(connection) }
        return
      }
      if connection < 0 { continue }
      if let request = read(connection) {
        let index = count
        count += 1
        lock.withLock { received.append(request) }
        let reply = script(request, index)
        reply.withUnsafeBytes { raw in
          var done = 0
          while done < raw.count {
            let n = send(connection, raw.baseAddress! + done, raw.count - done, Int32(MSG_NOSIGNAL))
            if n <= 0 { break }
            done += n
          }
        }
      }
      shutdown(connection, Int32(SHUT_WR))
      // Wait for the client to close its side, but not for ever: one connection at a time is
      // served, and a client that keeps an answered connection open (a request it gave up on)
      // must not hold every later request in the backlog until its deadline.
      var patience = timeval(tv_sec: 2, tv_usec: 0)
      setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &patience, socklen_t(MemoryLayout<timeval>.size))
      var sink = [UInt8](repeating: 0, count: 4096)
      while recv(connection, &sink, sink.count, 0) > 0 {}
      close(connection)
    }
  }

  private func read(_ connection: Int32) -> Received? {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    var headerEnd: Int?
    while headerEnd == nil {
      let n = recv(connection, &chunk, chunk.count, 0)
      if n <= 0 { return nil }
      bytes += chunk[0..<n]
      headerEnd = Self.find([13, 10, 13, 10], in: bytes)
    }
    let head = String(decoding: bytes[..<headerEnd!], as: UTF8.self)
    var lines = head.components(separatedBy: "\r\n")
    let requestLine = lines.removeFirst().split(separator: " ")
    var headers: [String: String] = [:]
    for line in lines {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    var body = Array(bytes[(headerEnd! + 4)...])
    let length = headers["content-length"].flatMap { Int($0) } ?? 0
    while body.count < length {
      let n = recv(connection, &chunk, chunk.count, 0)
      if n <= 0 { break }
      body += chunk[0..<n]
    }
    return Received(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
  }

  private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle)
    {
      return start
    }
    return nil
  }
}
