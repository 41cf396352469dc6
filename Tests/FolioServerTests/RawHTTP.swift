import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// HTTP/1.1 over a plain socket, for what a well-behaved client library will not do: send fewer
/// bytes than the Content-Length it promised, or read exactly what a truncating server sent before
/// it closed the connection.
enum RawHTTP {
  struct Exchange {
    /// Everything the server sent before closing (or before the read timeout).
    var received: [UInt8]
    var head: String {
      guard let end = received.firstRange(of: Array("\r\n\r\n".utf8)) else { return String(decoding: received, as: UTF8.self) }
      return String(decoding: received[..<end.lowerBound], as: UTF8.self)
    }
    var body: [UInt8] {
      guard let end = received.firstRange(of: Array("\r\n\r\n".utf8)) else { return [] }
      return Array(received[end.upperBound...])
    }
    var status: Int? {
      let parts = head.split(separator: " ", maxSplits: 2)
      return parts.count > 1 ? Int(parts[1]) : nil
    }
    func header(_ name: String) -> String? {
      for line in head.split(separator: "\r\n").dropFirst() {
        let kv = line.split(separator: ":", maxSplits: 1)
        if kv.count == 2, kv[0].lowercased() == name.lowercased() {
          return kv[1].trimmingCharacters(in: .whitespaces)
        }
      }
      return nil
    }
  }

  /// Connects to 127.0.0.1:`port`, writes `request`, optionally half-closes, and reads until the
  /// server closes or `readTimeout` passes without data, or, with `hangUpAfter`, until that many
  /// bytes arrived: then it closes the connection in the middle of the answer.
  static func exchange(
    port: Int, request: [UInt8], shutdownWrite: Bool = false, readTimeout: Double = 5, hangUpAfter: Int? = nil
  ) throws -> Exchange {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = in_port_t(UInt16(port).bigEndian)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    let ok = withUnsafePointer(to: &addr) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard ok == 0 else { throw POSIXError(.ECONNREFUSED) }
    var tv = timeval(tv_sec: Int(readTimeout), tv_usec: Int((readTimeout - Double(Int(readTimeout))) * 1e6))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    var sent = 0
    while sent < request.count {
      let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if n <= 0 { break }
      sent += n
    }
    if shutdownWrite { shutdown(fd, Int32(SHUT_WR)) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if n <= 0 { break }
      received += buffer[0..<n]
      if let limit = hangUpAfter, received.count >= limit { break }
    }
    return Exchange(received: received)
  }

  /// A request head plus body bytes, with the headers given (Content-Length is not added).
  static func request(_ method: String, _ path: String, headers: [(String, String)], body: [UInt8] = []) -> [UInt8] {
    var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    for (k, v) in headers { head += "\(k): \(v)\r\n" }
    head += "\r\n"
    return Array(head.utf8) + body
  }
}
