import Foundation

/// An opaque page token: where the next page of an enumeration starts. At most 500 bytes, as the
/// File Provider system enforces; a provider that makes a larger one gets an error, not a silently
/// truncated token.
public struct Page: Hashable, Sendable {
  public static let maxSize = 500
  public let data: Data

  public init(_ data: Data) throws(ProviderError) {
    guard data.count <= Self.maxSize else {
      throw ProviderError(.tokenTooLarge, "a page token is \(data.count) bytes; at most \(Self.maxSize) are allowed")
    }
    self.data = data
  }
}

/// An opaque sync anchor: a point in a container's change history. At most 500 bytes; an anchor
/// that is larger is treated as expired (File Provider semantics §2).
public struct SyncAnchor: Hashable, Sendable {
  public static let maxSize = 500
  public let data: Data

  public init(_ data: Data) throws(ProviderError) {
    guard data.count <= Self.maxSize else {
      throw ProviderError(.syncAnchorExpired, "a sync anchor is \(data.count) bytes; at most \(Self.maxSize) are allowed")
    }
    self.data = data
  }
}
