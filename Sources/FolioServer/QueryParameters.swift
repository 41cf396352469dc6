import FolioProtocol
import Foundation

/// The query string of a request, decoded byte-exactly.
///
/// Hummingbird's `queryParameters` falls back to the raw text when a value is not valid UTF-8
/// after percent-decoding, which would turn the hostile name `%FF` into the harmless-looking
/// name "%FF". Names travel in queries (`POST /v1/uploads?name=…`), so they are decoded here to
/// bytes and validated by `NameRules`. `+` is a literal plus: clients encode a space as `%20`.
struct QueryParameters: Sendable {
  private var values: [String: [UInt8]] = [:]

  init(_ query: String?) {
    guard let query, !query.isEmpty else { return }
    for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let key = String(decoding: Self.decode(parts[0]), as: UTF8.self)
      let value = parts.count > 1 ? Self.decode(parts[1]) : []
      if values[key] == nil { values[key] = value }
    }
  }

  /// The raw bytes of a parameter, nil when absent.
  func bytes(_ key: String) -> [UInt8]? { values[key] }

  /// A parameter as text; a value that is not UTF-8 is refused rather than repaired.
  func string(_ key: String) throws(ServerError) -> String? {
    guard let b = values[key] else { return nil }
    guard let s = String(validating: b, as: UTF8.self) else { throw .invalid("\(key) is not UTF-8") }
    return s
  }

  func require(_ key: String) throws(ServerError) -> String {
    guard let s = try string(key) else { throw .invalid("\(key) is missing") }
    return s
  }

  func int(_ key: String) throws(ServerError) -> Int64? {
    guard let s = try string(key) else { return nil }
    guard let n = Int64(s) else { throw .invalid("\(key) must be a number") }
    return n
  }

  private static func decode(_ s: Substring) -> [UInt8] {
    var out: [UInt8] = []
    let u = Array(s.utf8)
    var i = 0
    while i < u.count {
      if u[i] == UInt8(ascii: "%"), i + 2 < u.count,
        let hi = hexValue(u[i + 1]), let lo = hexValue(u[i + 2])
      {
        out.append(hi << 4 | lo)
        i += 3
      } else {
        out.append(u[i])
        i += 1
      }
    }
    return out
  }

  private static func hexValue(_ c: UInt8) -> UInt8? {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
