import ProviderAPI

/// A path below the configured base URL, as bytes: names joined by `/`, with no leading or trailing
/// slash. The empty path is the base collection itself.
///
/// Bytes, not a String: names are bytes end to end (test-plan I10), and a server stores whatever
/// bytes a request's percent-escapes spell. A path never holds an empty name, `.`, `..` or NUL:
/// those would name another item than the one meant, so they are refused rather than sent.
public struct WebDAVPath: Hashable, Sendable, CustomStringConvertible {
  public let bytes: [UInt8]

  /// The base collection.
  public static let root = WebDAVPath(unchecked: [])

  /// - Throws: `nameNotAddressable` when a name is empty, `.`, `..` or holds NUL (a `/` separates
  ///   names).
  public init(_ bytes: [UInt8]) throws(WebDAVError) {
    for name in bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false) where !bytes.isEmpty {
      try Self.check(Array(name))
    }
    self.bytes = bytes
  }

  /// The UTF-8 of `string`.
  public init(_ string: String) throws(WebDAVError) { try self.init(Array(string.utf8)) }

  init(unchecked bytes: [UInt8]) { self.bytes = bytes }

  /// The names from the top down; none for the root.
  public var names: [[UInt8]] {
    bytes.isEmpty ? [] : bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(Array.init)
  }

  /// The last name; empty for the root.
  public var name: [UInt8] { names.last ?? [] }

  /// The collection that holds it; nil for the root.
  public var parent: WebDAVPath? {
    guard !bytes.isEmpty else { return nil }
    guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return .root }
    return WebDAVPath(unchecked: Array(bytes[..<slash]))
  }

  public var isRoot: Bool { bytes.isEmpty }

  /// This path with `name` below it.
  ///
  /// - Throws: `nameNotAddressable` for an empty name, `.`, `..`, or one holding `/` or NUL.
  public func appending(_ name: [UInt8]) throws(WebDAVError) -> WebDAVPath {
    try Self.check(name)
    if name.contains(UInt8(ascii: "/")) {
      throw WebDAVError(.nameNotAddressable, "a name cannot hold '/': \(TerminalText.escape(bytes: name))")
    }
    return WebDAVPath(unchecked: bytes.isEmpty ? name : bytes + [UInt8(ascii: "/")] + name)
  }

  /// Whether `self` is `other` or below it.
  public func isWithin(_ other: WebDAVPath) -> Bool {
    other.bytes.isEmpty || bytes == other.bytes
      || (bytes.count > other.bytes.count && bytes.starts(with: other.bytes) && bytes[other.bytes.count] == UInt8(ascii: "/"))
  }

  /// Escaped for display.
  public var description: String { "/" + TerminalText.escape(bytes: bytes) }

  /// The path's bytes percent-encoded for a request URI, with no leading slash: every byte but the
  /// unreserved ones (RFC 3986 §2.3) and the separating slashes is escaped, so `%`, `#`, `?`, `;`
  /// and `+` in a name stay part of the name at every server.
  var percentEncoded: String { Self.percentEncode(bytes, keepingSlashes: true) }

  static func percentEncode(_ bytes: [UInt8], keepingSlashes: Bool) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    for byte in bytes {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
        UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
        out.append(byte)
      case UInt8(ascii: "/") where keepingSlashes:
        out.append(byte)
      default:
        out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func check(_ name: [UInt8]) throws(WebDAVError) {
    if name.isEmpty || name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] {
      throw WebDAVError(.nameNotAddressable, "not a usable name in a path: \"\(TerminalText.escape(bytes: name))\"")
    }
    if name.contains(0) {
      throw WebDAVError(.nameNotAddressable, "a name cannot hold a NUL byte: \(TerminalText.escape(bytes: name))")
    }
  }
}
