import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The few Unix-domain socket calls the askpass relay and its helper need.
enum UnixSocket {
  static func address(_ path: String) -> sockaddr_un? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    return address
  }

  static func makeSocket() -> Int32 {
    #if canImport(Glibc)
      socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    #else
      socket(AF_UNIX, SOCK_STREAM, 0)
    #endif
  }

  static func listen(at path: String) -> Int32? {
    guard var address = address(path) else { return nil }
    let fd = makeSocket()
    guard fd >= 0 else { return nil }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0, Glibc.listen(fd, 16) == 0 else {
      close(fd)
      return nil
    }
    return fd
  }

  static func connect(to path: String) -> Int32? {
    guard var address = address(path) else { return nil }
    let fd = makeSocket()
    guard fd >= 0 else { return nil }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
      }
    }
    guard connected == 0 else {
      close(fd)
      return nil
    }
    return fd
  }

  static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
      if sent < 0 && errno == EINTR { continue }
      if sent <= 0 { return false }
      offset += sent
    }
    return true
  }

  /// Reads one askpass frame (5-byte header, then its length), at most `limit` bytes.
  static func readFrame(_ fd: Int32, limit: Int = 65536) -> [UInt8]? {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      if bytes.count >= 5 {
        let count = Int(bytes[1]) << 24 | Int(bytes[2]) << 16 | Int(bytes[3]) << 8 | Int(bytes[4])
        if count > limit { return nil }
        if bytes.count >= 5 + count { return Array(bytes[0..<5 + count]) }
      }
      let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if got < 0 && errno == EINTR { continue }
      if got <= 0 { return nil }
      bytes.append(contentsOf: chunk[0..<got])
    }
  }
}
