import Foundation

/// An item as FolioServer sends it (docs/PROTOCOL.md, "Items").
///
/// Identifiers are opaque strings chosen by the server; `root` and `trash` are reserved. Dates are
/// seconds since 1970 (Double) so no date-format quirk can lose precision. Per-user fields (tags,
/// favoriteRank, lastUsed) are those of the signed-in user.
public struct WireItem: Codable, Sendable, Equatable {
  public var id: String
  public var parent: String
  public var name: String
  /// "file" or "folder".
  public var kind: String
  /// The item's path from the root ("/Documents/a.txt"); for trashed items, where it is now
  /// ("/a.txt" under the trash).
  public var path: String
  public var size: Int64?
  public var childCount: Int?
  public var created: Double?
  public var modified: Double?
  public var version: WireVersion
  /// Lowercase hex SHA-256 of the current content (files only).
  public var sha256: String?
  public var tags: [String]
  public var favoriteRank: UInt64?
  public var lastUsed: Double?
  /// The user who created the item.
  public var owner: String
  public var mostRecentEditor: String?
  /// Shared with the signed-in user by somebody else (the owner is not the signed-in user).
  public var shared: Bool
  public var trashed: Double?
  public var originalParent: String?
  public var originalPath: String?
  public var userInfo: [String: WireValue]
  public var decorations: [String]

  public init(
    id: String, parent: String, name: String, kind: String, path: String, size: Int64? = nil,
    childCount: Int? = nil, created: Double? = nil, modified: Double? = nil, version: WireVersion,
    sha256: String? = nil, tags: [String] = [], favoriteRank: UInt64? = nil, lastUsed: Double? = nil,
    owner: String, mostRecentEditor: String? = nil, shared: Bool = false, trashed: Double? = nil,
    originalParent: String? = nil, originalPath: String? = nil, userInfo: [String: WireValue] = [:],
    decorations: [String] = []
  ) {
    self.id = id
    self.parent = parent
    self.name = name
    self.kind = kind
    self.path = path
    self.size = size
    self.childCount = childCount
    self.created = created
    self.modified = modified
    self.version = version
    self.sha256 = sha256
    self.tags = tags
    self.favoriteRank = favoriteRank
    self.lastUsed = lastUsed
    self.owner = owner
    self.mostRecentEditor = mostRecentEditor
    self.shared = shared
    self.trashed = trashed
    self.originalParent = originalParent
    self.originalPath = originalPath
    self.userInfo = userInfo
    self.decorations = decorations
  }

  public static let rootID = "root"
  public static let trashID = "trash"
}

/// Content and metadata revisions: counters that only grow. A content upload states the content
/// revision it was based on; a stale one becomes a conflict copy on the server.
public struct WireVersion: Codable, Sendable, Hashable {
  public var content: Int64
  public var metadata: Int64
  public init(content: Int64, metadata: Int64) {
    self.content = content
    self.metadata = metadata
  }
}

/// A userInfo value: string, number or boolean (what activation rules compare).
public enum WireValue: Codable, Sendable, Equatable {
  case string(String)
  case number(Double)
  case bool(Bool)

  public init(from decoder: any Decoder) throws {
    let c = try decoder.singleValueContainer()
    if let b = try? c.decode(Bool.self) {
      self = .bool(b)
    } else if let n = try? c.decode(Double.self) {
      self = .number(n)
    } else {
      self = .string(try c.decode(String.self))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var c = encoder.singleValueContainer()
    switch self {
    case .string(let s): try c.encode(s)
    case .number(let n): try c.encode(n)
    case .bool(let b): try c.encode(b)
    }
  }
}
