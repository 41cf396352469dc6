import Foundation

/// The identifiers of a path-keyed provider (SFTP, S3, WebDAV without file ids): a scheme prefix
/// and the base64url of the item's path bytes in the domain (`.root` for `/`). Stable while the
/// item stays where it is, reversible without I/O, bytes end to end. One implementation for every
/// such provider, so a path that could reach outside the domain (`/../x`) is refused the same way
/// everywhere.
public struct PathIdentifiers: Sendable {
  /// "s:" for SFTP, "k:" for S3, "w:" for WebDAV: identifiers of two kinds never collide.
  public let scheme: String

  public init(scheme: String) { self.scheme = scheme }

  public func identifier(for path: ItemPath) -> ItemIdentifier {
    path == .root || path.bytes.isEmpty ? .root : ItemIdentifier(scheme + Base64URL.encode(path.bytes))
  }

  public func path(for identifier: ItemIdentifier) -> ItemPath? {
    if identifier == .root { return .root }
    guard identifier.rawValue.hasPrefix(scheme), let bytes = Base64URL.decode(identifier.rawValue.dropFirst(scheme.count)),
      Self.isInside(ItemPath(bytes: bytes))
    else { return nil }
    return ItemPath(bytes: bytes)
  }

  /// Whether a domain path stays inside the domain: absolute, no empty, `.` or `..` component,
  /// no NUL (`/../etc` would reach above the folder the domain shows).
  public static func isInside(_ path: ItemPath) -> Bool {
    let bytes = path.bytes
    guard bytes.first == 0x2F, bytes.count > 1, !bytes.contains(0) else { return false }
    return bytes.dropFirst().split(separator: 0x2F, omittingEmptySubsequences: false).allSatisfy {
      !$0.isEmpty && !$0.elementsEqual([0x2E]) && !$0.elementsEqual([0x2E, 0x2E])
    }
  }
}

/// base64url without padding (RFC 4648 §5): identifiers stay printable and free of `/`.
public enum Base64URL {
  public static func encode(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }

  public static func decode(_ text: Substring) -> [UInt8]? {
    guard text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
    var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while s.count % 4 != 0 { s += "=" }
    return Data(base64Encoded: s).map { [UInt8]($0) }
  }
}

/// The name a provider gives the copy it keeps when an upload met a newer version on the server:
/// "stem (conflict, DATE).ext", numbered when taken — the sync engine's own naming, so a person
/// sees one convention whichever storage kept the copy.
public enum ConflictCopyName {
  public static func name(for original: ItemName, at date: Date, attempt n: Int = 1) -> ItemName {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.dateFormat = "yyyy-MM-dd HH.mm"
    let (stem, ext) = split(original)
    let number = n == 1 ? "" : " \(n)"
    return ItemName(bytes: stem + Array(" (conflict, \(f.string(from: date)))\(number)".utf8) + ext)
  }

  static func split(_ name: ItemName) -> (stem: [UInt8], ext: [UInt8]) {
    let b = name.bytes
    guard let dot = b.lastIndex(of: 0x2E), dot > 0, dot < b.count - 1 else { return (b, []) }
    return (Array(b[..<dot]), Array(b[dot...]))
  }
}
