import Foundation

/// Bytes that name something on a filesystem: a file name or a path.
///
/// Linux names are bytes, not text. Decoding them to `String` is lossy (invalid UTF-8 becomes
/// U+FFFD) and `String ==` merges NFC/NFD twins, so identity and every filesystem operation use the
/// bytes; `String` is only for display and search.
public protocol ByteString: Hashable, Sendable, Comparable, CustomStringConvertible {
  var bytes: [UInt8] { get }
  init(bytes: [UInt8])
}

extension ByteString {
  public init(_ string: String) { self.init(bytes: Array(string.utf8)) }

  /// The bytes decoded as UTF-8, or nil when they are not valid UTF-8.
  public var utf8String: String? {
    var decoded = ""
    var it = bytes.makeIterator()
    var decoder = UTF8()
    while true {
      switch decoder.decode(&it) {
      case .scalarValue(let s): decoded.unicodeScalars.append(s)
      case .emptyInput: return decoded
      case .error: return nil
      }
    }
  }

  public var isValidUTF8: Bool { utf8String != nil }

  /// A lossy decoding for search and sorting hints; never use it to name a file.
  public var lossyString: String { String(decoding: bytes, as: UTF8.self) }

  /// The name as it may be shown on a terminal: control characters, bidi controls and invalid bytes
  /// escaped visibly and reversibly (see ``TerminalText``).
  public var displayString: String { TerminalText.escape(bytes: bytes) }

  public var description: String { displayString }

  public static func < (a: Self, b: Self) -> Bool { a.bytes.lexicographicallyPrecedes(b.bytes) }

  /// The exact bytes, base64-encoded, for JSON output of names that are not valid UTF-8.
  public var base64: String { Data(bytes).base64EncodedString() }

  /// Calls `body` with a NUL-terminated C string of the bytes.
  public func withCString<R>(_ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
    var z = bytes.map { CChar(bitPattern: $0) }
    z.append(0)
    return try z.withUnsafeBufferPointer { try body($0.baseAddress!) }
  }
}

/// The last component of a path, as bytes. Never empty, never contains `/` or NUL.
public struct ItemName: ByteString, Codable {
  public let bytes: [UInt8]
  public init(bytes: [UInt8]) { self.bytes = bytes }

  /// Validates a name received from a user or a server: not empty, not `.` or `..`, no `/` or NUL,
  /// at most 255 bytes (NAME_MAX).
  public static func validated(_ bytes: [UInt8]) throws(ProviderError) -> ItemName {
    if bytes.isEmpty { throw ProviderError(.invalidArgument, "a name cannot be empty") }
    if bytes == [0x2E] || bytes == [0x2E, 0x2E] {
      throw ProviderError(.invalidArgument, "'.' and '..' are not valid names")
    }
    if bytes.contains(0x2F) { throw ProviderError(.invalidArgument, "a name cannot contain '/'") }
    if bytes.contains(0) { throw ProviderError(.invalidArgument, "a name cannot contain a NUL byte") }
    if bytes.count > 255 {
      throw ProviderError(.invalidArgument, "a name can be at most 255 bytes (this one is \(bytes.count))")
    }
    return ItemName(bytes: bytes)
  }

  public static func validated(_ s: String) throws(ProviderError) -> ItemName {
    try validated(Array(s.utf8))
  }

  /// The extension after the last dot, lowercased ASCII, or "" (".bashrc" has none).
  public var pathExtension: String {
    guard let dot = bytes.lastIndex(of: 0x2E), dot > 0, dot < bytes.count - 1 else { return "" }
    return String(decoding: bytes[(dot + 1)...], as: UTF8.self).lowercased()
  }

  public var isHidden: Bool { bytes.first == 0x2E }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    bytes = Array(try c.decode(Data.self))
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(Data(bytes))
  }
}

/// A full path, as bytes. For the local provider an absolute filesystem path; for a remote one the
/// path inside the domain, starting at `/`.
public struct ItemPath: ByteString, Codable {
  public let bytes: [UInt8]
  public init(bytes: [UInt8]) { self.bytes = bytes }

  public static let root = ItemPath(bytes: [0x2F])

  /// The path with `name` appended.
  public func appending(_ name: ItemName) -> ItemPath {
    var b = bytes
    if b.last != 0x2F { b.append(0x2F) }
    b.append(contentsOf: name.bytes)
    return ItemPath(bytes: b)
  }

  /// The last component, or nil for `/`.
  public var lastComponent: ItemName? {
    var end = bytes.count
    while end > 1 && bytes[end - 1] == 0x2F { end -= 1 }
    let slice = bytes[..<end]
    guard let slash = slice.lastIndex(of: 0x2F) else { return slice.isEmpty ? nil : ItemName(bytes: Array(slice)) }
    let name = Array(slice[(slash + 1)...])
    return name.isEmpty ? nil : ItemName(bytes: name)
  }

  /// The containing folder's path (`/` for top-level items and for `/` itself).
  public var parent: ItemPath {
    var end = bytes.count
    while end > 1 && bytes[end - 1] == 0x2F { end -= 1 }
    guard let slash = bytes[..<end].lastIndex(of: 0x2F) else { return ItemPath(bytes: Array(".".utf8)) }
    return slash == 0 ? .root : ItemPath(bytes: Array(bytes[..<slash]))
  }

  public var isAbsolute: Bool { bytes.first == 0x2F }

  public init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    bytes = Array(try c.decode(Data.self))
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(Data(bytes))
  }
}
