import FolioProtocol
import Foundation
import ProviderAPI
import TestSupport
import Testing

/// Keyset paging: every item present from start to end is listed exactly once, in order, even
/// while items are added between pages.
@Suite struct PagingTests {
  /// A folder with `count` files (1 byte each) and a few subfolders, made with `parallel` requests.
  static func fill(_ client: TestClient, count: Int) async throws -> WireItem {
    let folder = try await client.mkdir("big")
    try await withThrowingTaskGroup(of: Void.self) { group in
      for worker in 0..<8 {
        group.addTask {
          for i in stride(from: worker, to: count, by: 8) {
            // Names with mixed case and digits so code-point order differs from a natural order.
            _ = try await client.upload(String(format: "f%05d-%@", (i * 7919) % count, i % 3 == 0 ? "A" : "b"), [UInt8(i & 0xFF)], in: folder.id)
          }
        }
      }
      try await group.waitForAll()
    }
    for name in ["dirB", "dirA", "Zdir"] { _ = try await client.mkdir(name, in: folder.id) }
    return folder
  }

  @Test func pagesNeverRepeatOrSkipWhileItemsAreAdded() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let folder = try await Self.fill(ana, count: 1050)
    for (sort, order) in [("name", "asc"), ("name", "desc"), ("date", "asc"), ("date", "desc"), ("size", "desc")] {
      try await Self.checkPaging(ana, folder: folder.id, sort: sort, order: order)
    }
    // Folders first: pages cross from the folders to the files (a page of 97 holds the three
    // folders and the first files), in each key's order.
    for (sort, order) in [("name", "asc"), ("date", "desc"), ("size", "asc")] {
      try await Self.checkPaging(ana, folder: folder.id, sort: sort, order: order, foldersFirst: true)
    }
  }

  static func checkPaging(
    _ ana: TestClient, folder: String, sort: String, order: String, foldersFirst: Bool = false
  ) async throws {
    let kinds = foldersFirst ? "&foldersFirst=1" : ""
    let before = try await ana.allChildren(folder, query: "sort=\(sort)&order=\(order)&limit=1000" + kinds)
    #expect(before.count >= 1053)
    var seen: [WireItem] = []
    var page: String? = nil
    var added = 0
    repeat {
      let p = try await ana.children(
        folder, query: "sort=\(sort)&order=\(order)&limit=97" + kinds + (page.map { "&page=\(TestClient.encode($0))" } ?? ""))
      #expect(p.items.count <= 97)
      if let next = p.nextPage { #expect(next.utf8.count <= 500) }
      seen += p.items
      page = p.nextPage
      // Someone else adds items between pages: some sort before the cursor, some after.
      _ = try await ana.upload("added-\(sort)-\(order)\(kinds)-\(added)", [UInt8](repeating: 1, count: added % 5), in: folder)
      _ = try await ana.upload("0-first-\(sort)-\(order)\(kinds)-\(added)", [], in: folder)
      added += 1
    } while page != nil
    let ids = seen.map(\.id)
    #expect(Set(ids).count == ids.count, "\(sort) \(order): an item was listed twice")
    #expect(Set(before.map(\.id)).isSubset(of: Set(ids)), "\(sort) \(order): an item present all along was skipped")
    // The order is the one asked for: the sort key, then the id.
    func precedes(_ a: WireItem, _ b: WireItem) -> Bool {
      switch sort {
      // The natural order of every location (NameOrdering), then the id.
      case "name":
        NameOrdering.compare(Array(a.name.utf8), Array(b.name.utf8)) < 0
          || (a.name.utf8.elementsEqual(b.name.utf8) && a.id < b.id)
      case "date": (a.modified ?? 0) < (b.modified ?? 0) || ((a.modified ?? 0) == (b.modified ?? 0) && a.id < b.id)
      default: (a.size ?? 0) < (b.size ?? 0) || ((a.size ?? 0) == (b.size ?? 0) && a.id < b.id)
      }
    }
    for (a, b) in zip(seen, seen.dropFirst()) {
      let aFolder = a.kind == "folder"
      let bFolder = b.kind == "folder"
      let ordered =
        foldersFirst && aFolder != bFolder ? aFolder : order == "asc" ? precedes(a, b) : precedes(b, a)
      #expect(ordered, "\(sort) \(order): \(a.name) then \(b.name)")
      if !ordered { break }
    }
  }

  /// Names in the natural order of every location (NameCollation): numbers as numbers, letters
  /// case-insensitive, then bytes ("B" before "b"), non-ASCII after ASCII.
  @Test func foldersFirstAndNaturalNameOrder() async throws {
    let server = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    for name in ["b", "B", "a", "é", "Z", "10", "9"] { _ = try await ana.upload(name, [1]) }
    for name in ["zfolder", "Afolder"] { _ = try await ana.mkdir(name) }
    let plain = try await ana.allChildren("root", query: "sort=name")
    #expect(plain.map(\.name) == ["9", "10", "a", "Afolder", "B", "b", "Z", "zfolder", "é"])
    let folders = try await ana.allChildren("root", query: "sort=name&foldersFirst=1&limit=2")
    #expect(folders.map(\.name) == ["Afolder", "zfolder", "9", "10", "a", "B", "b", "Z", "é"])
    let desc = try await ana.allChildren("root", query: "sort=name&order=desc&foldersFirst=1&limit=3")
    #expect(desc.map(\.name) == ["zfolder", "Afolder", "é", "Z", "b", "B", "a", "10", "9"])
    let page = try await ana.children("root", query: "limit=4")
    #expect(page.total == 9)
    #expect(page.items.count == 4)
  }

  @Test func foreignOrDamagedTokensArePageExpired() async throws {
    let server = try await ServerProcess()
    let other = try await ServerProcess()
    let ana = try await TestClient.signedIn(server)
    let elsewhere = try await TestClient.signedIn(other)
    for i in 0..<5 { _ = try await ana.upload("f\(i)", [1]); _ = try await elsewhere.upload("f\(i)", [1]) }
    let token = try #require(try await elsewhere.children("root", query: "limit=2").nextPage)
    let foreign = try await ana.send("GET", "/v1/items/root/children?limit=2&page=\(TestClient.encode(token))")
    #expect(foreign.status == 410)
    #expect(foreign.errorCode == "pageExpired")
    let mine = try #require(try await ana.children("root", query: "limit=2").nextPage)
    // The same token with another sort is not this listing's.
    #expect(try await ana.send("GET", "/v1/items/root/children?sort=date&limit=2&page=\(TestClient.encode(mine))").errorCode == "pageExpired")
    for bad in ["x", "AAAA", String(mine.dropLast(3)), String(repeating: "A", count: 600)] {
      #expect(try await ana.send("GET", "/v1/items/root/children?page=\(TestClient.encode(bad))").errorCode == "pageExpired")
    }
  }
}
