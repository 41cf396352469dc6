import Foundation
import ProviderAPI

/// Groups 3 and 4: items as they are described, and a folder read in pages.
extension ConformanceKit {
  func runItems() {
    check("root-is-a-folder") {
      let s = try session()
      let root = try item(s, "#root")
      try expect(root.id == "#root", "item #root answered id \(root.id)")
      try expect(root.parent == "#root", "the root's parent is \(root.parent), expected #root")
      try expect(root.kind == "folder", "the root is a \(root.kind)")
      try expect(!root.name.isEmpty, "the root has an empty name")
    }
    check("ids-stable-across-calls") {
      let s = try session()
      let first = try enumerateAll(s, "#root").items
      let second = try enumerateAll(s, "#root").items
      let a = Dictionary(first.map { ($0.nameBytes, $0.id) }, uniquingKeysWith: { x, _ in x })
      let b = Dictionary(second.map { ($0.nameBytes, $0.id) }, uniquingKeysWith: { x, _ in x })
      try expect(a == b, "two listings of the root gave different ids for the same names")
      for child in first.prefix(20) {
        let again = try item(s, child.id)
        try expect(again.id == child.id, "item \(child.id) answered id \(again.id)")
        try expect(again.nameBytes == child.nameBytes, "item \(child.id) is named \(again.name) but listed as \(child.name)")
      }
    }
    check("names-valid") {
      let s = try session()
      var seen = try enumerateAll(s, "#root").items
      for folder in seen.filter({ $0.kind == "folder" }).prefix(5) { seen += try enumerateAll(s, folder.id).items }
      for child in seen {
        do {
          _ = try ItemName.validated(child.nameBytes)
        } catch {
          throw CheckFailure("item \(child.id): \(error) (\(child.name))")
        }
        if child.raw["nameBytes"] != nil {
          try expect(caps.byteNames, "item \(child.id) has nameBytes without byteNames declared")
        }
      }
    }
    check("id-version-and-token-sizes") {
      let s = try session()
      var all = try enumerateAll(s, "#root").items
      all.append(try item(s, "#root"))
      for i in all {
        try expect(i.id.utf8.count <= 1024, "an id of \(i.id.utf8.count) bytes (at most 1 KiB)")
        try expect(i.content.utf8.count <= 128 && i.metadata.utf8.count <= 128, "item \(i.id): a version component over 128 bytes")
      }
      if caps.feed {
        let anchor = try expectResult(s.call("currentSyncAnchor", ["container": "#working-set"]), "currentSyncAnchor")
        guard let text = anchor["anchor"]?.string else { throw CheckFailure("currentSyncAnchor: no anchor string") }
        try expect(text.utf8.count <= 500, "an anchor of \(text.utf8.count) bytes (at most 500)")
      }
    }
    check("unknown-item-is-1005") {
      let s = try session()
      try expectError(s.call("item", ["id": "folio-kit-no-such-item-7f3a"]), [-1005], "item of an unknown id")
    }
  }

  func runPaging() {
    var container: String?
    var expected: Set<[UInt8]> = []
    check("prepare-250-children") {
      let s = try session()
      if caps.create {
        let folder = try create(s, parent: try scratch(s), name: "paging", bytes: nil)
        let empty = try stage([])
        for i in 0..<250 {
          let name = Array(String(format: "f%03d", i).utf8)
          let id = sendCreate(s, parent: folder.id, name: name, contents: empty)
          _ = try expectResult(s.wait(id, timeout: 30), "createItem f\(i)")
          expected.insert(name)
        }
        container = folder.id
      } else if let folder = try fixtureItem(s, FixtureLayout.pagingFolder) {
        container = folder.id
        for i in 0..<FixtureLayout.pagingCount { expected.insert(Array(String(format: "f%03d", i).utf8)) }
      } else {
        throw CheckSkip("read-only: needs --fixture PATH with \(FixtureLayout.pagingFolder)/ (docs/EXTENSIONS.md §6)")
      }
    }
    func needContainer() throws -> (ExtensionSession, String) {
      guard let container else { throw CheckSkip("no folder of 250 children") }
      return (try session(), container)
    }
    check("each-child-exactly-once-in-pages-of-100") {
      let (s, c) = try needContainer()
      let (items, pages) = try enumerateAll(s, c, pageSize: 100)
      var ids = Set<String>()
      for i in items { try expect(ids.insert(i.id).inserted, "\(i.id) (\(i.name)) appears twice in one enumeration") }
      let names = Set(items.map(\.nameBytes))
      let missing = expected.subtracting(names)
      try expect(missing.isEmpty, "\(missing.count) children missing, e.g. \(missing.first.map { String(decoding: $0, as: UTF8.self) } ?? "")")
      try expect(items.count == expected.count, "\(items.count) items listed, expected \(expected.count)")
      transcript.record("!!", "\(items.count) items in \(pages) page(s)")
    }
    check("parent-is-the-container") {
      let (s, c) = try needContainer()
      for i in try enumerateAll(s, c).items {
        try expect(i.parent == c, "\(i.id) listed in \(c) has parent \(i.parent)")
      }
    }
    check("next-page-null-at-the-end") {
      let (s, c) = try needContainer()
      // enumerateAll stops only at a null nextPage; a last page must also not repeat the first.
      let (items, pages) = try enumerateAll(s, c, pageSize: 100)
      try expect(pages <= items.count / 100 * 100 + 100, "\(pages) pages for \(items.count) items")
    }
    check("garbage-page-token-is-1002") {
      let (s, c) = try needContainer()
      try expectError(
        s.call("enumerateItems", ["container": .string(c), "pageSize": 100, "page": "folio-kit-garbage-token", "includeHidden": true]),
        [-1002], "enumerateItems with a page token never given")
    }
  }
}
