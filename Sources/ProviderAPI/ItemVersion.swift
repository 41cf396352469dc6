import Foundation

/// The version of an item: content and metadata parts, each opaque and at most 128 bytes.
///
/// A changed content version means the bytes changed (re-download, drop previews); the metadata
/// version is stored and compared for conflicts on metadata edits.
public struct ItemVersion: Hashable, Sendable, Codable {
  public let content: Data
  public let metadata: Data

  public static let maxComponentSize = 128

  public init(content: Data, metadata: Data) throws(ProviderError) {
    guard content.count <= Self.maxComponentSize, metadata.count <= Self.maxComponentSize else {
      throw ProviderError(.tokenTooLarge, "an item version component is larger than 128 bytes")
    }
    self.content = content
    self.metadata = metadata
  }

  /// A version built from text, for providers whose versions are etags or counters.
  public init(content: String, metadata: String) throws(ProviderError) {
    try self.init(content: Data(content.utf8), metadata: Data(metadata.utf8))
  }

  public static let empty = try! ItemVersion(content: Data(), metadata: Data())

  /// A short printable form (hex when not text), for Info and JSON.
  public var displayString: String {
    func show(_ d: Data) -> String {
      if let s = String(data: d, encoding: .utf8), s.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 }) {
        return s
      }
      return d.map { String(format: "%02x", $0) }.joined()
    }
    // A storage that versions only the content (an ETag) has an empty metadata version: not shown.
    return metadata.isEmpty ? "content \(show(content))" : "content \(show(content)), metadata \(show(metadata))"
  }
}
