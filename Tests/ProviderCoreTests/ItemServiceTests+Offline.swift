import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// `folio put`, `open` and `get` with the server unreachable: the destination folder or the file is
/// the one this computer last saw (the index's row), so an edit or a new file is journaled instead
/// of refused. Nothing else is made up.
@Suite struct ItemServiceOfflineTests {
  func offline(_ f: MemoryFixture) async {
    await f.memory.setHook { call throws(ProviderError) in
      if call == .item { throw ProviderError(.serverUnreachable, "cannot reach the server") }
    }
  }

  @Test func unreachableGivesTheIndexedItemAndTheRoot() async throws {
    let f = try MemoryFixture()
    let docs = await f.memory.add(ItemName("Docs"), folder: true)
    let file = await f.memory.add(ItemName("plan.txt"), in: docs.identifier, content: Data("plan".utf8))
    try f.service.recordOpen(try await f.service.item(at: file.path, in: f.domain), in: f.domain)
    await offline(f)
    await #expect(throws: ProviderError.self) { try await f.service.item(at: file.path, in: f.domain) }

    let known = try await f.service.itemAllowingOffline(at: file.path, in: f.domain)
    #expect(known.identifier == file.identifier && known.version == file.version && known.path == file.path)
    let root = try await f.service.itemAllowingOffline(at: .root, in: f.domain)
    #expect(root.identifier == .root && root.isFolder)
  }

  @Test func whatTheIndexDoesNotKnowOrKnowsTrashedIsTheProvidersError() async throws {
    let f = try MemoryFixture()
    let unknown = await f.memory.add(ItemName("never-seen.txt"))
    let trashed = await f.memory.add(ItemName("old.txt"))
    try f.index.recordTrashed(trashed, originalPath: trashed.path, domain: f.domain.identifier)
    await offline(f)
    for path in [unknown.path, trashed.path] {
      let error = await #expect(throws: ProviderError.self) { try await f.service.itemAllowingOffline(at: path, in: f.domain) }
      #expect(error?.code == .serverUnreachable)
    }
  }

  @Test func otherErrorsAreNotHidden() async throws {
    let f = try MemoryFixture()
    let file = await f.memory.add(ItemName("plan.txt"))
    try f.service.recordOpen(file, in: f.domain)
    await f.memory.setHook { call throws(ProviderError) in
      if call == .item { throw ProviderError(.notAuthenticated, "signed out") }
    }
    let error = await #expect(throws: ProviderError.self) { try await f.service.itemAllowingOffline(at: file.path, in: f.domain) }
    #expect(error?.code == .notAuthenticated)
  }
}
