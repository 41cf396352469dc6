/// What the user may do with an item. It gates the UI only (File Provider semantics §1): changes
/// that arrive anyway must still be handled. Not inherited by children.
public struct ItemCapabilities: OptionSet, Hashable, Sendable, Codable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  public static let reading = ItemCapabilities(rawValue: 1 << 0)
  public static let writing = ItemCapabilities(rawValue: 1 << 1)
  public static let reparenting = ItemCapabilities(rawValue: 1 << 2)
  public static let renaming = ItemCapabilities(rawValue: 1 << 3)
  public static let trashing = ItemCapabilities(rawValue: 1 << 4)
  public static let deleting = ItemCapabilities(rawValue: 1 << 5)
  public static let evicting = ItemCapabilities(rawValue: 1 << 6)
  public static let excludingFromSync = ItemCapabilities(rawValue: 1 << 7)

  /// On a folder, reading means its children may be enumerated; writing that items may be added.
  public static let contentEnumerating = reading
  public static let addingSubItems = writing

  public static let all: ItemCapabilities = [
    .reading, .writing, .reparenting, .renaming, .trashing, .deleting, .evicting, .excludingFromSync,
  ]

  static let names: [(ItemCapabilities, String)] = [
    (.reading, "reading"), (.writing, "writing"), (.reparenting, "reparenting"), (.renaming, "renaming"),
    (.trashing, "trashing"), (.deleting, "deleting"), (.evicting, "evicting"),
    (.excludingFromSync, "excludingFromSync"),
  ]

  /// The names of the capabilities present, for rules, Info and JSON.
  public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
}

/// Which fields of an item a modification changes (NSFileProviderItemFields).
public struct ItemFields: OptionSet, Hashable, Sendable, Codable {
  public let rawValue: UInt32
  public init(rawValue: UInt32) { self.rawValue = rawValue }

  public static let contents = ItemFields(rawValue: 1 << 0)
  public static let filename = ItemFields(rawValue: 1 << 1)
  public static let parentItemIdentifier = ItemFields(rawValue: 1 << 2)
  public static let lastUsedDate = ItemFields(rawValue: 1 << 3)
  public static let tagData = ItemFields(rawValue: 1 << 4)
  public static let favoriteRank = ItemFields(rawValue: 1 << 5)
  public static let creationDate = ItemFields(rawValue: 1 << 6)
  public static let contentModificationDate = ItemFields(rawValue: 1 << 7)
  public static let fileSystemFlags = ItemFields(rawValue: 1 << 8)
  public static let extendedAttributes = ItemFields(rawValue: 1 << 9)
  public static let typeAndCreator = ItemFields(rawValue: 1 << 10)
}
