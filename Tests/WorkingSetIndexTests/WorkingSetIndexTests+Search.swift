import Foundation
import ProviderAPI
import Testing

@testable import WorkingSetIndex

/// Full-text search over names and tags.
@Suite struct WorkingSetIndexSearchTests {
  private func populated() throws -> WorkingSetIndex {
    let index = try WorkingSetIndex.inMemory()
    try index.upsert(
      [
        Fixture.file("r", "/docs/Quarterly Report-2024.pdf"),
        Fixture.file("c", "/docs/Café menu.odt"),
        Fixture.file("n", "/docs/notes.txt"),
        Fixture.file("j", "/pics/日本語の写真.png"),
      ], domain: Fixture.local, insertNew: true)
    try index.upsert([Fixture.file("s", "/remote/report draft.md")], domain: Fixture.server, insertNew: true)
    try index.setTags(["Important", "Été"], of: Fixture.file("n", "/docs/notes.txt"), domain: Fixture.local)
    return index
  }

  @Test(arguments: [
    ("report", ["r", "s"]),
    ("REP", ["r", "s"]),
    ("rep 2024", ["r"]),
    ("quart", ["r"]),
    ("cafe", ["c"]),
    ("CAFÉ", ["c"]),
    ("men caf", ["c"]),
    ("import", ["n"]),
    ("ete", ["n"]),
    ("日本語", ["j"]),
    ("notes.txt", ["n"]),
    ("zzz", []),
  ])
  func searchFindsNamesAndTagsByPrefix(query: String, expected: [String]) throws {
    let found = try populated().search(query, limit: 10)
    #expect(Set(Fixture.ids(found)) == Set(expected), "query \(query)")
    #expect(found.count == expected.count)
  }

  @Test(arguments: [
    "", "   ", "!!!", "\"", "*", "(", ")", "AND", "OR NOT", "NEAR(", "a:", ":", "^", "—", "«»", "-", "\u{0}",
  ])
  func anyTextIsASafeQuery(query: String) throws {
    let index = try populated()
    // Punctuation-only text finds nothing; FTS5 keywords are plain words; nothing throws.
    _ = try index.search(query, limit: 10)
    if !query.contains(where: \.isLetter) { #expect(try index.search(query, limit: 10).isEmpty) }
  }

  @Test func searchFollowsRenamesTagsAndDeletions() throws {
    let index = try populated()
    let notes = Fixture.file("n", "/docs/notes.txt")
    try index.recordMoved(
      identifier: notes.identifier, to: Fixture.moved(notes, to: "/docs/minutes.txt"), domain: Fixture.local)
    #expect(try Fixture.ids(index.search("minutes", limit: 5)) == ["n"])
    #expect(try index.search("notes", limit: 5).isEmpty)
    #expect(try Fixture.ids(index.search("important", limit: 5)) == ["n"])

    try index.setTags([], of: notes, domain: Fixture.local)
    #expect(try index.search("important", limit: 5).isEmpty)

    try index.recordDeleted(identifiers: [notes.identifier], domain: Fixture.local)
    #expect(try index.search("minutes", limit: 5).isEmpty)
  }

  @Test func theLimitHolds() throws {
    let index = try WorkingSetIndex.inMemory()
    let items = (0..<20).map { Fixture.file("f\($0)", "/f/plain \($0).txt") }
    try index.upsert(items, domain: Fixture.local, insertNew: true)
    #expect(try index.search("plain", limit: 5).count == 5)
    #expect(try index.search("plain", limit: 50).count == 20)
  }

  @Test func itemsInsideATrashedFolderAreNotFound() throws {
    let index = try WorkingSetIndex.inMemory()
    let child = Fixture.file("c", "/a/b/unique.txt", parent: "b")
    try index.recordUse(of: child, domain: Fixture.local)
    try index.recordTrashed(
      Fixture.moved(Fixture.folder("b", "/a/b"), to: "/trash/b", parent: "#trash"), originalPath: ItemPath("/a/b"),
      domain: Fixture.local)
    #expect(try index.search("unique", limit: 5).isEmpty)
  }
}
