import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 9 (review): a file whose name is not valid UTF-8, put into storage that keeps names as
/// text, was queued, refused by the server, and stayed failed for ever ("syncing 1", every
/// `folio sync` failing, nothing able to rename a file that exists only in the journal).
@Suite struct SyncEngineNameTests {
  @Test func aNameTheStorageCannotKeepIsRefusedBeforeAnythingIsQueued() async throws {
    var textNames = ProviderTraits.inMemory
    textNames.namesAreBytes = false
    let f = try SyncFixture(traits: textNames)
    // A name with bytes 0xFF 0xFE, made with the raw bytes.
    let path = f.scratch.makeFile([0x62, 0x61, 0x64, 0xFF, 0xFE, 0x2E, 0x74, 0x78, 0x74], content: "x")
    let root = try await f.memory.item(at: .root)
    await #expect(throws: ProviderError.self) { _ = try await f.engine.put(path, into: root, in: f.domain) }
    await #expect(throws: ProviderError.self) { _ = try await f.engine.putUnlessPresent(path, into: root, in: f.domain) }
    #expect(try f.index.pendingTransfers(domain: f.domain.identifier).isEmpty, "nothing queued")
    #expect(f.storeFiles().staged.isEmpty, "nothing staged")

    // Storage whose names are bytes (SFTP, this computer) takes it.
    let g = try SyncFixture()
    let gpath = g.scratch.makeFile([0x62, 0x61, 0x64, 0xFF, 0xFE, 0x2E, 0x74, 0x78, 0x74], content: "x")
    _ = try await g.engine.put(gpath, into: try await g.memory.item(at: .root), in: g.domain)
    #expect(try g.index.pendingTransfers(domain: g.domain.identifier).count == 1)
  }
}
