import Foundation
import ProviderAPI
import ProviderCore
import Testing
import TestSupport
import WebDAVClient
import WebDAVTestSupport
import WorkingSetIndex

@testable import WebDAVProvider

/// `folio sync` (``SyncEngine/syncChanges(of:allowMassDeletion:)``) on a Nextcloud account, against
/// the double written from Nextcloud's documentation: a folder's ETag moves when anything below
/// it changes, so the sweep reads the top and descends only where an ETag moved. The PROPFINDs
/// the double answered are the oracle.
@Suite struct NextcloudSweepTests {
  static let cloud = DomainIdentifier(unchecked: "cloud")

  @Test func aChangeDeepDownReachesTheIndexAndUnchangedSubtreesAreNotListed() async throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    for folder in ["a", "a/b", "a/b/c", "x", "x/y"] { nc.put(folder, folder: true) }
    nc.put("a/b/c/deep.txt", "deep")
    nc.put("x/y/side.txt", "side")
    let secret = nc.password
    let provider = WebDAVProvider(
      domain: Self.cloud, url: nc.filesURL, user: nc.user, password: { () async throws(ProviderError) -> String? in secret },
      conditionalWrites: .honoured, replacesInPlace: false, dialect: .nextcloud)
    #expect(provider.traits.folderVersionsCoverDescendants)
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("nc-sweep-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let index = try WorkingSetIndex.inMemory()
    var registry = DomainRegistry(
      local: Domain(identifier: .local, displayName: "This Computer", provider: InMemoryProvider(), localRoot: .root))
    try registry.add(Domain(identifier: Self.cloud, displayName: "Cloud", provider: provider, localRoot: nil))
    let engine = SyncEngine(
      registry: registry, index: index,
      contentRoot: scratch.appendingPathComponent("content", isDirectory: true),
      cacheBudget: 1 << 30, jitter: { 0 })
    for path in ["/a/b/c/deep.txt", "/x/y/side.txt"] {
      let item = try await provider.item(at: ItemPath(path))
      try index.setTags(["Red"], of: item, domain: Self.cloud, indexOnly: true)
    }
    // The first sync of a process walks every chain to the working set's folders.
    _ = try await engine.syncChanges(of: Self.cloud)
    var seen = nc.propfinds.count
    #expect(Set(nc.propfinds.filter { $0.hasPrefix("1 ") }) == ["1 ", "1 a", "1 a/b", "1 a/b/c", "1 x", "1 x/y"])
    // Nothing changed: the top's ETag says so, in one PROPFIND Depth 0.
    _ = try await engine.syncChanges(of: Self.cloud)
    #expect(Array(nc.propfinds.dropFirst(seen)) == ["0 "])
    // A working-set file edited deep down by another client: the chain above it is listed,
    // nothing beside it, and the edit reaches the index.
    seen = nc.propfinds.count
    nc.put("a/b/c/deep.txt", "deep, edited on the phone")
    let summary = try await engine.syncChanges(of: Self.cloud)
    #expect(Array(nc.propfinds.dropFirst(seen)) == ["0 ", "1 ", "1 a", "1 a/b", "1 a/b/c"])
    #expect(summary.updated >= 1)
    let id = provider.identifier(for: ItemPath("/a/b/c/deep.txt"))
    #expect(try index.item(domain: Self.cloud, identifier: id)?.item().documentSize == 25)
  }
}
