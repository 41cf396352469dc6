import Foundation
import ProviderAPI

@testable import WorkingSetIndex

/// Items, dates and folders for the index tests.
enum Fixture {
  static let local = DomainIdentifier.local
  static let server = DomainIdentifier(unchecked: "server")

  /// Whole seconds, so dates survive the REAL-seconds-since-1970 column exactly.
  static func date(_ offset: Int) -> Date { Date(timeIntervalSince1970: 1_700_000_000 + Double(offset)) }

  static func file(
    _ id: String, _ path: String, parent: String = "parent", lastUsed: Date? = nil, tags: [String] = [],
    size: Int64? = 10
  ) -> Item {
    item(id, pathBytes: Array(path.utf8), parent: parent, type: .plainText, lastUsed: lastUsed, tags: tags, size: size)
  }

  static func folder(_ id: String, _ path: String, parent: String = "parent") -> Item {
    item(id, pathBytes: Array(path.utf8), parent: parent, type: .folder, size: nil)
  }

  /// An item whose path (and so its name) is arbitrary bytes.
  static func item(
    _ id: String, pathBytes: [UInt8], parent: String = "parent", type: ContentType = .data, lastUsed: Date? = nil,
    tags: [String] = [], size: Int64? = 10
  ) -> Item {
    let path = ItemPath(bytes: pathBytes)
    return Item(
      identifier: ItemIdentifier(id), parentIdentifier: ItemIdentifier(parent),
      filename: path.lastComponent ?? ItemName("?"), path: path, contentType: type, documentSize: size,
      lastUsedDate: lastUsed, tags: tags)
  }

  /// The item moved to `path` (same identifier unless `id` is given).
  static func moved(_ item: Item, to path: String, id: String? = nil, parent: String? = nil) -> Item {
    var moved = item
    moved.identifier = id.map(ItemIdentifier.init) ?? item.identifier
    moved.path = ItemPath(path)
    moved.filename = moved.path.lastComponent!
    if let parent { moved.parentIdentifier = ItemIdentifier(parent) }
    return moved
  }

  /// A fresh folder under the system temporary directory, removed after `body`.
  static func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("WorkingSetIndexTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
  }

  static func paths(_ items: [IndexedItem]) -> [String] { items.map { $0.path.lossyString } }
  static func ids(_ items: [IndexedItem]) -> [String] { items.map(\.identifier.rawValue) }
}
