import FolioProtocol
import Foundation
import ProviderAPI
import TestSupport
import Testing

/// A Folio server lists names as every other location sorts them (NameCollation): case-insensitive
/// and natural ("file2" before "file10"), page after page, in both directions and folders first.
@Suite struct NaturalOrderTests {
  static let names = ["file10.txt", "File2.txt", "file1.txt", "Zeta", "alpha", "Beta", "file02b", "file2a", "img100", "img9"]
  static let natural = ["alpha", "Beta", "file1.txt", "File2.txt", "file2a", "file02b", "file10.txt", "img9", "img100", "Zeta"]

  @Test func namesPageInNaturalOrder() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let folder = try await ana.mkdir("mixed")
    for n in Self.names { _ = try await ana.upload(n, [1], in: folder.id) }
    #expect(Self.natural.sorted { NameOrdering.compare(Array($0.utf8), Array($1.utf8)) < 0 } == Self.natural)
    // Pages of 3: the keyset token carries the collated key across pages.
    for (order, expected) in [("asc", Self.natural), ("desc", Array(Self.natural.reversed()))] {
      var seen: [String] = []
      var page: String? = nil
      repeat {
        let p = try await ana.children(
          folder.id, query: "sort=name&order=\(order)&limit=3" + (page.map { "&page=\(TestClient.encode($0))" } ?? ""))
        seen += p.items.map(\.name)
        page = p.nextPage
      } while page != nil
      #expect(seen == expected, "\(order)")
    }
    // Folders first: each kind in natural order.
    for n in ["dir10", "Dir9", "dir1"] { _ = try await ana.mkdir(n, in: folder.id) }
    let all = try await ana.allChildren(folder.id, query: "sort=name&order=asc&foldersFirst=1&limit=4")
    #expect(all.prefix(3).map(\.name) == ["dir1", "Dir9", "dir10"])
  }
}
