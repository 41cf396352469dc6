import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Whether a URL's host is this machine, so that plain http to it crosses no network.
///
/// Only what can be told without asking a resolver: a loopback literal (127.0.0.0/8, ::1),
/// `localhost`, this host's own name, or a literal address of one of its interfaces. A name that
/// some DNS answers with a local address does not count: the answer could change.
enum LocalHost {
  static func isThisMachine(_ rawHost: String) -> Bool {
    var host = rawHost.lowercased()
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    if host == "localhost" || host == "localhost." || host == "::1" { return true }
    var v4 = in_addr()
    if inet_pton(AF_INET, host, &v4) == 1 {
      if UInt32(bigEndian: v4.s_addr) >> 24 == 127 { return true }
      return interfaceAddresses().contains(host)
    }
    var v6 = in6_addr()
    if inet_pton(AF_INET6, host, &v6) == 1 {
      return interfaceAddresses().contains(canonicalV6(v6))
    }
    var name = [CChar](repeating: 0, count: 256)
    if gethostname(&name, name.count) == 0 {
      let own = String(cString: name).lowercased()
      if !own.isEmpty && (host == own || host == own + ".") { return true }
    }
    return false
  }

  /// The numeric addresses of this machine's interfaces (IPv6 in canonical form).
  private static func interfaceAddresses() -> Set<String> {
    var found: Set<String> = []
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0 else { return found }
    defer { freeifaddrs(list) }
    var cursor = list
    while let entry = cursor {
      defer { cursor = entry.pointee.ifa_next }
      guard let address = entry.pointee.ifa_addr else { continue }
      switch Int32(address.pointee.sa_family) {
      case AF_INET:
        var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
        var a = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
        if inet_ntop(AF_INET, &a, &text, socklen_t(text.count)) != nil { found.insert(String(cString: text)) }
      case AF_INET6:
        let a = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
        found.insert(canonicalV6(a))
      default:
        break
      }
    }
    return found
  }

  private static func canonicalV6(_ address: in6_addr) -> String {
    var a = address
    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
    guard inet_ntop(AF_INET6, &a, &text, socklen_t(text.count)) != nil else { return "" }
    return String(cString: text)
  }
}
