import Foundation
import ProviderAPI
import Testing

@testable import ProviderCore
@testable import TestSupport

/// Performing a bulk rename through ItemService: on real files, and on a remote-like provider
/// that refuses a rename part-way.
@Suite("BulkRenamer")
struct BulkRenamerTests {
  /// Counts the provider's renames and refuses the `n`th (from 1).
  actor RefuseNth {
    let n: Int
    var seen = 0
    init(_ n: Int) { self.n = n }
    func next() -> Bool {
      seen += 1
      return seen == n
    }
  }

  static func names(in memory: InMemoryProvider) async throws -> Set<String> {
    let page = try await memory.enumerate(
      EnumerationRequest(container: .root, includeHidden: true, suggestedPageSize: 100), page: nil, progress: { _ in })
    return Set(page.items.map(\.filename.lossyString))
  }

  static func plan(_ items: [Item], _ lines: [String], outside: [String] = []) throws -> BulkRenamePlan {
    try BulkRenamePlan.make(
      names: items.map(\.filename), text: Array(lines.map { $0 + "\n" }.joined().utf8), outside: outside.map { ItemName($0) })
  }

  @Test("A swap of two real files with hostile names exchanges them and leaves no temporary name")
  func swapOnDisk() async throws {
    let f = try LocalFixture()
    let a = f.tmp.makeFile("a name", content: "A")
    let b = f.tmp.makeFile("-b $(x)", content: "B")
    let items = [try await f.item(a), try await f.item(b)]
    let plan = try Self.plan(items, ["-b $(x)", "a name"])
    let outcome = await BulkRenamer.run(plan, items: items, service: f.service, domain: f.domain)
    #expect(outcome.failure == nil)
    #expect(outcome.renamed == [0, 1])
    #expect(outcome.message(names: items.map(\.filename)) == "Renamed 2 items")
    #expect(ScratchFolder.read(a) == Array("B".utf8))
    #expect(ScratchFolder.read(b) == Array("A".utf8))
    let left = try FileManager.default.contentsOfDirectory(atPath: f.tmp.path.lossyString).filter { $0.hasPrefix(".folio-rename") }
    #expect(left.isEmpty)
  }

  @Test("A refusal inside a swap undoes its temporary step: both keep their names")
  func failureInsideASwap() async throws {
    let memory = InMemoryProvider()
    let f = try MemoryFixture(memory: memory)
    let a = await memory.add(ItemName("a"))
    let b = await memory.add(ItemName("b"))
    let refuse = RefuseNth(2)  // a → temporary passes; b → a is refused
    await memory.setHook { call throws(ProviderError) in
      if call == .modify, await refuse.next() { throw ProviderError(.noPermission, "refused by the server") }
    }
    let plan = try Self.plan([a, b], ["b", "a"])
    let outcome = await BulkRenamer.run(plan, items: [a, b], service: f.service, domain: f.domain)
    #expect(outcome.failure?.error.code == .noPermission)
    #expect(outcome.renamed.isEmpty)
    #expect(outcome.notRenamed == [0, 1])
    #expect(outcome.leftAtTemporary.isEmpty)
    #expect(try await Self.names(in: memory) == ["a", "b"])
    let message = outcome.message(names: [a.filename, b.filename])
    #expect(message.contains("“b” could not be renamed to “a”: refused by the server"), "\(message)")
    #expect(message.contains("Renamed 0 of 2"), "\(message)")
  }

  @Test("A refusal after a finished chain keeps the chain and says which were renamed")
  func failureAfterAChain() async throws {
    let memory = InMemoryProvider()
    let f = try MemoryFixture(memory: memory)
    let one = await memory.add(ItemName("1"))
    let x = await memory.add(ItemName("x"))
    let y = await memory.add(ItemName("y"))
    // Chain: 1 → one (free). Cycle: x ↔ y, whose last step (temporary → y) is refused.
    let refuse = RefuseNth(4)
    await memory.setHook { call throws(ProviderError) in
      if call == .modify, await refuse.next() { throw ProviderError(.itemLocked, "locked") }
    }
    let plan = try Self.plan([one, x, y], ["one", "y", "x"])
    let outcome = await BulkRenamer.run(plan, items: [one, x, y], service: f.service, domain: f.domain)
    #expect(outcome.renamed == [0])
    #expect(outcome.notRenamed == [1, 2])
    #expect(try await Self.names(in: memory) == ["one", "x", "y"], "the cycle is back as it was, no temporary left")
    let message = outcome.message(names: [one.filename, x.filename, y.filename])
    #expect(message.contains("Renamed 1 of 3 (“1”); not renamed: “x”, “y”"), "\(message)")
  }

  @Test("A 3-cycle on a remote-like provider ends with each item under its new name")
  func cycleRemote() async throws {
    let memory = InMemoryProvider()
    let f = try MemoryFixture(memory: memory)
    let items = [await memory.add(ItemName("a"), content: Data("A".utf8)), await memory.add(ItemName("b"), content: Data("B".utf8)),
      await memory.add(ItemName("c"), content: Data("C".utf8))]
    let plan = try Self.plan(items, ["b", "c", "a"])
    let outcome = await BulkRenamer.run(plan, items: items, service: f.service, domain: f.domain)
    #expect(outcome.failure == nil)
    #expect(outcome.message(names: items.map(\.filename)) == "Renamed 3 items")
    for (item, new) in zip(items, ["b", "c", "a"]) {
      #expect(try await memory.item(for: item.identifier).filename == ItemName(new))
    }
  }
}
