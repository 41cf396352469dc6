import FolioProtocol
import Foundation

/// The names the server accepts (docs/PROTOCOL.md, "Items").
///
/// A name becomes a path component on every client and, through clients, a file on their disks:
/// anything that could climb out of a folder (`..`, `/`), end a C string early (NUL), or is not text
/// at all is refused here, before it is stored, so no client ever has to receive it.
package enum NameRules {
  static let maxBytes = 255

  /// Validates `bytes` as a name and returns it as a String.
  ///
  /// - Throws: `invalidArgument` naming the rule broken.
  package static func validate(bytes: [UInt8]) throws(ServerError) -> String {
    if bytes.isEmpty { throw .invalid("a name cannot be empty") }
    if bytes.count > maxBytes { throw .invalid("a name is at most \(maxBytes) bytes") }
    if bytes.contains(0) { throw .invalid("a name cannot contain NUL") }
    if bytes.contains(UInt8(ascii: "/")) { throw .invalid("a name cannot contain /") }
    if bytes == [UInt8(ascii: ".")] || bytes == [UInt8(ascii: "."), UInt8(ascii: ".")] {
      throw .invalid("a name cannot be . or ..")
    }
    guard let s = String(validating: bytes, as: UTF8.self) else {
      throw .invalid("a name must be valid UTF-8")
    }
    return s
  }

  /// Validates a name that arrived as a Swift String (a JSON body). JSON decoding has already
  /// replaced nothing: an invalid byte sequence fails the decode itself.
  static func validate(_ name: String) throws(ServerError) -> String {
    try validate(bytes: Array(name.utf8))
  }
}
