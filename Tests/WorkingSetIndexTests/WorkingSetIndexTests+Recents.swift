import Foundation
import GRDB
import ProviderAPI
import Testing

@testable import WorkingSetIndex

/// Recents: order, paging, tag filter, the query plan and the observation.
@Suite struct WorkingSetIndexRecentsTests {
  /// a (used at 1), b (at 3), c (at 2, another domain), d (tagged, never used), e (known only).
  private func populated() throws -> WorkingSetIndex {
    let index = try WorkingSetIndex.inMemory()
    try index.recordUse(of: Fixture.file("a", "/a.txt"), domain: Fixture.local, at: Fixture.date(1))
    try index.recordUse(of: Fixture.file("b", "/b.txt"), domain: Fixture.local, at: Fixture.date(3))
    try index.recordUse(of: Fixture.file("c", "/c.txt"), domain: Fixture.server, at: Fixture.date(2))
    try index.setTags(["Red"], of: Fixture.file("d", "/d.txt"), domain: Fixture.local)
    try index.upsert([Fixture.file("e", "/e.txt")], domain: Fixture.local, insertNew: true)
    return index
  }

  @Test func recentsAreMostRecentlyUsedFirstAndNeverUsedLast() throws {
    let index = try populated()
    #expect(try Fixture.ids(index.recents(limit: 10)) == ["b", "c", "a", "d"])
    #expect(try Fixture.ids(index.recents(limit: 2)) == ["b", "c"])
    #expect(try Fixture.ids(index.recents(limit: 2, offset: 2)) == ["a", "d"])
    #expect(try index.recents(limit: 2, offset: 4).isEmpty)
  }

  @Test func aNewUseMovesAnItemToTheTop() throws {
    let index = try populated()
    try index.recordUse(of: Fixture.file("a", "/a.txt"), domain: Fixture.local, at: Fixture.date(9))
    #expect(try Fixture.ids(index.recents(limit: 10)) == ["a", "b", "c", "d"])
  }

  @Test func recentsFilterByTag() throws {
    let index = try populated()
    try index.setTags(["Red", "Work"], of: Fixture.file("a", "/a.txt"), domain: Fixture.local)
    try index.setTags(["Work"], of: Fixture.file("c", "/c.txt"), domain: Fixture.server)
    #expect(try Fixture.ids(index.recents(limit: 10, tag: "Red")) == ["a", "d"])
    #expect(try Fixture.ids(index.recents(limit: 10, tag: "Work")) == ["c", "a"])
    #expect(try Fixture.ids(index.recents(limit: 1, offset: 1, tag: "Work")) == ["a"])
    // Tags are one whatever their case (issue 13; they were exact before).
    #expect(try Fixture.ids(index.recents(limit: 10, tag: "red")) == ["a", "d"])
    #expect(try index.recents(limit: 10, tag: "Nope").isEmpty)
  }

  @Test func theRecentsPageIsReadFromTheRecentsIndex() throws {
    let plan = try queryPlan(.all)
    #expect(plan.contains { $0.contains("USING INDEX item_recents") }, "\(plan)")
    #expect(!plan.contains { $0.contains("TEMP B-TREE") }, "\(plan)")
    let common = try queryPlan(.scanForTag)
    #expect(common.contains { $0.contains("USING INDEX item_recents") }, "\(common)")
    #expect(!common.contains { $0.contains("TEMP B-TREE") }, "\(common)")
    let rare = try queryPlan(.lookUpTag)
    #expect(rare.first?.contains("tag_name") == true, "\(rare)")
  }

  @Test func aCommonTagIsFilteredByScanningTheWorkingSet() throws {
    let index = try WorkingSetIndex.inMemory()
    let count = WorkingSetIndex.rareTagLimit + 5
    let items = (0..<count).map { Fixture.file("f\($0)", "/f\($0)", lastUsed: Fixture.date($0), tags: ["Many"]) }
    try index.upsert(items, domain: Fixture.local, insertNew: true)
    try index.setTags(["Few"], of: items[3], domain: Fixture.local)
    try index.setTags(["Few", "Many"], of: items[7], domain: Fixture.local)
    let expected = (count - 3..<count).reversed().map { "f\($0)" }
    #expect(try Fixture.ids(index.recents(limit: 3, tag: "Many")) == expected)
    // f3 lost "Many": the last page skips it.
    #expect(try Fixture.ids(index.recents(limit: 3, offset: count - 4, tag: "Many")) == ["f2", "f1", "f0"])
    #expect(try Fixture.ids(index.recents(limit: 3, tag: "Few")) == ["f7", "f3"])
  }

  private func queryPlan(_ plan: WorkingSetIndex.RecentsPlan) throws -> [String] {
    try populated().writer.read { db in
      try Row.fetchAll(
        db, sql: "EXPLAIN QUERY PLAN " + WorkingSetIndex.recentsSQL(plan),
        arguments: ["limit": 50, "offset": 0, "tag": "Red"]
      ).map { $0["detail"] as String }
    }
  }

  @Test(.timeLimit(.minutes(5)))
  func theObservationStreamsANewUse() async throws {
    let index = try populated()
    var values = index.recentsObservation(limit: 3).makeAsyncIterator()
    let first = try await values.next()
    #expect(first.map(Fixture.ids) == ["b", "c", "a"])

    try index.recordUse(of: Fixture.file("z", "/z.txt"), domain: Fixture.local, at: Fixture.date(10))
    let second = try await values.next()
    #expect(second.map(Fixture.ids) == ["z", "b", "c"])
  }

  @Test(.timeLimit(.minutes(5)))
  func theObservationWorksOnAWALFile() async throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("WorkingSetIndexTests-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dir) }
    let index = try WorkingSetIndex.open(at: dir.appendingPathComponent("index.sqlite"))
    #expect(index.journalMode == "wal")
    var values = index.recentsObservation(limit: 3).makeAsyncIterator()
    #expect(try await values.next() == [])
    try index.recordUse(of: Fixture.file("a", "/a.txt"), domain: Fixture.local, at: Fixture.date(1))
    #expect(try await values.next().map(Fixture.ids) == ["a"])
    try index.recordUse(of: Fixture.file("b", "/b.txt"), domain: Fixture.local, at: Fixture.date(2))
    #expect(try await values.next().map(Fixture.ids) == ["b", "a"])
    try index.close()
  }

  /// Two opens of one file stand for two `folio` processes: each sees the other's commits in its
  /// version, never its own.
  @Test func theVersionOfOtherWritersMovesOnlyForTheOtherConnection() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("WorkingSetIndexTests-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: dir) }
    let url = dir.appendingPathComponent("index.sqlite")
    let browser = try WorkingSetIndex.open(at: url)
    let other = try WorkingSetIndex.open(at: url)
    let start = try browser.versionOfOtherWriters()
    try browser.setTags(["Red"], of: Fixture.file("a", "/a.txt"), domain: Fixture.local)
    #expect(try browser.versionOfOtherWriters() == start, "its own write")
    try other.setTags(["Blue"], of: Fixture.file("b", "/b.txt"), domain: Fixture.local)
    let afterOther = try browser.versionOfOtherWriters()
    #expect(afterOther != start, "the other process's write")
    #expect(try browser.versionOfOtherWriters() == afterOther, "nothing new since")
    #expect(try browser.allTags().map(\.name) == ["Blue", "Red"])
    try other.close()
    try browser.close()
  }

  @Test(.timeLimit(.minutes(5)))
  func aTaggedObservationSeesTagChanges() async throws {
    let index = try populated()
    var values = index.recentsObservation(limit: 10, tag: "Blue").makeAsyncIterator()
    #expect(try await values.next() == [])
    try index.setTags(["Blue"], of: Fixture.file("a", "/a.txt"), domain: Fixture.local)
    #expect(try await values.next().map(Fixture.ids) == ["a"])
  }
}
