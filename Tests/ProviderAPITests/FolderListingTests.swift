import Foundation
import Testing

@testable import ProviderAPI

/// The order a folder read whole is paged in: folders first when asked, the key, then the name
/// as people read it (numbers by value, case set aside) — the same for S3 and WebDAV.
struct FolderListingTests {
  struct Entry: FolderListingEntry, Equatable {
    var name: [UInt8]
    var isFolder: Bool
    var size: Int64
    var lastModified: Date?
  }

  static func entry(_ name: String, folder: Bool = false, size: Int64 = 0, at seconds: Double? = nil) -> Entry {
    Entry(name: Array(name.utf8), isFolder: folder, size: size, lastModified: seconds.map { Date(timeIntervalSince1970: $0) })
  }

  static let entries = [
    entry("b10.txt", size: 5, at: 30), entry("Docs", folder: true, size: 999, at: 10), entry("b2.txt", size: 5, at: 20),
    entry("a.png", size: 100, at: 40), entry("archive", folder: true, at: 50), entry("c.txt", size: 1),
  ]

  func names(_ sort: ItemSort) -> [String] {
    FolderListing<Entry>.sorted(Self.entries, by: sort).map { String(decoding: $0.name, as: UTF8.self) }
  }

  @Test func everyKeyInBothDirections() {
    #expect(names(.default) == ["archive", "Docs", "a.png", "b2.txt", "b10.txt", "c.txt"])
    #expect(names(ItemSort(key: .name, ascending: false)) == ["Docs", "archive", "c.txt", "b10.txt", "b2.txt", "a.png"])
    #expect(names(ItemSort(key: .name, foldersFirst: false)) == ["a.png", "archive", "b2.txt", "b10.txt", "c.txt", "Docs"])
    // Size: folders count as 0; equal sizes by name.
    #expect(names(ItemSort(key: .size, foldersFirst: false)) == ["archive", "Docs", "c.txt", "b2.txt", "b10.txt", "a.png"])
    // Date: none is the oldest; descending puts the newest first.
    #expect(names(ItemSort(key: .date, ascending: false, foldersFirst: false)) == ["archive", "a.png", "b10.txt", "b2.txt", "Docs", "c.txt"])
    // Kind: by its description ("plain text" before "png image"), then the name.
    #expect(names(ItemSort(key: .kind)) == ["archive", "Docs", "b2.txt", "b10.txt", "c.txt", "a.png"])
  }
}
