import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// Conflicts on storage that keys items by path and has no trash (an SSH host): a file deleted on
/// the server while edited here comes back where it was with the same identifier — a remote
/// deletion, not "changed here and elsewhere" — and resolving never deletes a version for good
/// unless the person said so, and never half-does it.
@Suite struct PathKeyedConflictTests {
  final class Fixture: Sendable {
    let scratch = ScratchFolder()
    let memory = InMemoryProvider(domain: DomainIdentifier(unchecked: "ssh"))
    let provider: PathKeyedMemoryProvider
    let domain: Domain
    let index: WorkingSetIndex
    let engine: SyncEngine

    init() throws {
      provider = PathKeyedMemoryProvider(base: memory)
      domain = Domain(identifier: provider.domain, displayName: "box", provider: provider, localRoot: nil)
      var registry = DomainRegistry(
        local: Domain(
          identifier: .local, displayName: "This Computer", provider: InMemoryProvider(traits: .localFilesystem), localRoot: .root))
      try registry.add(domain)
      index = try WorkingSetIndex.inMemory()
      engine = SyncEngine(
        registry: registry, index: index,
        contentRoot: URL(fileURLWithPath: scratch.path.lossyString).appendingPathComponent("content"), cacheBudget: 1 << 30,
        policy: RetryPolicy(base: 0.01, cap: 0.05, attemptsPerDrain: 4), jitter: { 0 })
    }

    /// Opens `path` for editing, writes `text` as an editor would, and notices the edit.
    func edit(_ path: String, _ text: String) async throws -> Item {
      let item = try await provider.item(at: ItemPath(path))
      let url = try await engine.materialize(item, in: domain, forOpen: true)
      try Data(text.utf8).write(to: url)
      #expect(try await engine.noticeEdits(item, in: domain) != nil)
      return item
    }

    func text(_ path: String) async -> String? {
      guard let item = try? await provider.item(at: ItemPath(path)) else { return nil }
      let url = URL(fileURLWithPath: scratch.path.lossyString).appendingPathComponent("read-\(UUID().uuidString)")
      guard (try? await provider.fetchContents(item.identifier, version: nil, to: url, progress: { _ in })) != nil else {
        return nil
      }
      return try? String(contentsOf: url, encoding: .utf8)
    }
  }

  /// The review's case: `folio conflicts` said "changed here and elsewhere" for a file deleted on
  /// the server, and `folio resolve --keep theirs` failed with "no trash" after changing things.
  @Test func aFileDeletedOnTheServerWhileEditedHereIsARemoteDeletion() async throws {
    let f = try Fixture()
    let inner = await f.memory.add(ItemName("notes.txt"), content: Data("base".utf8))
    let item = try await f.edit("/notes.txt", "my edits")
    try await f.memory.deleteItem(inner.identifier, baseVersion: nil, options: [])
    #expect(await f.engine.queue.drain().succeeded)

    #expect(await f.text("/notes.txt") == "my edits", "the edits came back where the file was")
    let conflict = try #require(try f.index.conflicts().first)
    #expect(conflict.reason == .remoteDeletion)
    #expect(conflict.original == item.identifier && conflict.copy == item.identifier)
    #expect(try f.index.item(domain: f.domain.identifier, identifier: item.identifier) != nil, "its row stays")
    #expect(try f.index.content(domain: f.domain.identifier, identifier: item.identifier) != nil, "and its content")

    // Theirs (deleted) would delete the edits for good: refused unless said, and nothing changed.
    await #expect(throws: ProviderError.self) { try await f.engine.resolve(conflict, .keepTheirs) }
    #expect(await f.text("/notes.txt") == "my edits")
    #expect(try f.index.conflicts().count == 1)

    // Mine: the file stays as it is and the conflict is gone; nothing was sent again.
    let kept = try await f.engine.resolve(conflict, .keepMine)
    #expect(kept.identifier == item.identifier)
    #expect(try f.index.conflicts().isEmpty)
    #expect(await f.text("/notes.txt") == "my edits")
  }

  @Test func keepingTheirsOfARemoteDeletionDeletesTheEditsWhenToldTo() async throws {
    let f = try Fixture()
    let inner = await f.memory.add(ItemName("notes.txt"), content: Data("base".utf8))
    _ = try await f.edit("/notes.txt", "my edits")
    try await f.memory.deleteItem(inner.identifier, baseVersion: nil, options: [])
    #expect(await f.engine.queue.drain().succeeded)
    let conflict = try #require(try f.index.conflicts().first)
    _ = try await f.engine.resolve(conflict, .keepTheirs, permanently: true)
    #expect(await f.text("/notes.txt") == nil, "it stays deleted")
    #expect(try f.index.conflicts().isEmpty)
    #expect(try f.index.item(domain: f.domain.identifier, identifier: conflict.copy) == nil)
  }

  /// Changed here and on the server: the upload is kept as a copy. Keeping mine where there is no
  /// trash needs the word; with it, mine is the file and the copy is gone, and nothing else is.
  @Test func keepingMineOfAStaleBaseWithoutTrashNeedsConsentAndThenLeavesOneFile() async throws {
    let f = try Fixture()
    let inner = await f.memory.add(ItemName("plan.txt"), content: Data("base".utf8))
    let item = try await f.edit("/plan.txt", "mine")
    let theirs = f.scratch.path.lossyString + "/theirs"
    try Data("theirs".utf8).write(to: URL(fileURLWithPath: theirs))
    _ = try await f.memory.modifyItem(
      ItemTemplate(inner), baseVersion: inner.version, changedFields: .contents, contents: URL(fileURLWithPath: theirs))
    _ = await f.engine.queue.drain()
    let conflict = try #require(try f.index.conflicts().first)
    #expect(conflict.original == item.identifier && conflict.copy != item.identifier)
    let before = try await f.memory.enumerate(
      EnumerationRequest(container: .root, suggestedPageSize: 100), page: nil, progress: { _ in }
    ).items.count

    await #expect(throws: ProviderError.self) { try await f.engine.resolve(conflict, .keepMine) }
    #expect(await f.text("/plan.txt") == "theirs", "refused before anything changed")
    #expect(try f.index.conflicts().count == 1)

    _ = try await f.engine.resolve(conflict, .keepMine, permanently: true)
    #expect(await f.text("/plan.txt") == "mine")
    let after = try await f.memory.enumerate(
      EnumerationRequest(container: .root, suggestedPageSize: 100), page: nil, progress: { _ in }
    ).items
    #expect(after.count == before - 1 && after.map(\.filename) == [ItemName("plan.txt")], "\(after.map(\.filename))")
    #expect(try f.index.conflicts().isEmpty)
  }
}
