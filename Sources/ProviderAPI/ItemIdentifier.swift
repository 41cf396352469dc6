import Foundation

/// A stable, provider-scoped name for an item, independent of its name and path.
///
/// Identifiers may appear in logs and in the index, so providers must not put secrets in them.
/// Three identifiers are reserved, as in the File Provider model: the root container, the trash
/// container and the working set (a synthetic container of everything recently used, tagged,
/// favorited, shared, materialized or trashed).
public struct ItemIdentifier: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
  public let rawValue: String

  public init(_ rawValue: String) { self.rawValue = rawValue }

  public static let root = ItemIdentifier("#root")
  public static let trash = ItemIdentifier("#trash")
  public static let workingSet = ItemIdentifier("#working-set")

  /// True for the three identifiers the system reserves.
  public var isReserved: Bool { self == .root || self == .trash || self == .workingSet }

  public var description: String { rawValue }

  public static func < (a: ItemIdentifier, b: ItemIdentifier) -> Bool { a.rawValue < b.rawValue }

  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(String.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }
}

/// The identifier of a domain: one configured location (the local disk, an account on a server).
///
/// Like File Provider domain identifiers it may not contain `/` or `:`, because `NAME:/path`
/// addresses an item of a domain on the command line.
public struct DomainIdentifier: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
  public let rawValue: String

  /// The local computer's domain, always present.
  public static let local = DomainIdentifier(unchecked: "local")

  public init(_ rawValue: String) throws(ProviderError) {
    guard Self.isValid(rawValue) else {
      throw ProviderError(
        .invalidArgument,
        "invalid domain name '\(TerminalText.escape(rawValue))': use letters, digits, '-', '_' or '.'")
    }
    self.rawValue = rawValue
  }

  public init(unchecked rawValue: String) { self.rawValue = rawValue }

  public static func isValid(_ s: String) -> Bool {
    !s.isEmpty && s.count <= 64
      && s.unicodeScalars.allSatisfy { c in
        (c.isASCII && (c.properties.isAlphabetic || ("0"..."9").contains(c))) || c == "-" || c == "_"
          || c == "."
      }
  }

  public var description: String { rawValue }
  public static func < (a: DomainIdentifier, b: DomainIdentifier) -> Bool { a.rawValue < b.rawValue }

  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(String.self)
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    try c.encode(rawValue)
  }
}
