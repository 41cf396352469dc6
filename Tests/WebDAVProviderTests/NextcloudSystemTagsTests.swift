import Foundation
import ProviderAPI
import ProviderCore
import Testing
import TestSupport
import WebDAVClient
import WebDAVTestSupport
import WorkingSetIndex

@testable import WebDAVProvider

/// Folio's tags on Nextcloud are its system tags (the "collaborative tags" the Files app shows),
/// against the double written from the server's SystemTagPlugin: set from Folio they are the
/// server's (an existing tag reused whatever its case, as Folio's tags are one whatever their
/// case), and set or removed in the web interface they reach the index with a listing.
@Suite struct NextcloudSystemTagsTests {
  static let cloud = DomainIdentifier(unchecked: "cloud")

  func provider(_ nc: NextcloudDouble) -> WebDAVProvider {
    let secret = nc.password
    return WebDAVProvider(
      domain: Self.cloud, url: nc.filesURL, user: nc.user, password: { () async throws(ProviderError) -> String? in secret },
      conditionalWrites: .honoured, replacesInPlace: false, dialect: .nextcloud)
  }

  @Test func tagsSetInFolioAreTheAccountsSystemTags() async throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    nc.put("other.txt", "o")
    nc.tag("other.txt", "Blue")
    nc.put("doc.txt", "d")
    let p = provider(nc)
    #expect(p.traits.storesTags)
    let doc = try await p.item(at: ItemPath("/doc.txt"))
    #expect(doc.tags.isEmpty)
    var template = ItemTemplate(doc)
    template.tags = ["blue", "Plan"]
    let tagged = try await p.modifyItem(template, baseVersion: doc.version, changedFields: .tagData, contents: nil)
    #expect(nc.systemTags(of: "doc.txt") == ["Blue", "Plan"])
    #expect(nc.systemTagList == ["Blue", "Plan"], "Blue reused whatever its case, Plan made")
    #expect(Set(tagged.tags) == ["Blue", "Plan"])
    // Listed with them.
    let listed = try await p.enumerate(EnumerationRequest(container: .root, suggestedPageSize: 100, freshness: .current), page: nil) { _ in }
    #expect(listed.items.first { $0.filename.lossyString == "doc.txt" }?.tags == ["Blue", "Plan"])
    // Removing one removes its assignment, not the tag.
    template.tags = ["PLAN"]
    _ = try await p.modifyItem(template, baseVersion: doc.version, changedFields: .tagData, contents: nil)
    #expect(nc.systemTags(of: "doc.txt") == ["Plan"])
    #expect(nc.systemTags(of: "other.txt") == ["Blue"])
  }

  /// A tag set in the web interface makes the file a working-set item at the next `folio sync`
  /// (a new process each time: it walks the whole chains); removed there, it leaves the index.
  @Test func tagsSetAndRemovedElsewhereReachTheIndex() async throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    nc.put("report.txt", "r")
    nc.tag("report.txt", "Urgent")
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("nc-tags-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let index = try WorkingSetIndex.inMemory()
    func sync() async throws {
      var registry = DomainRegistry(
        local: Domain(identifier: .local, displayName: "This Computer", provider: InMemoryProvider(), localRoot: .root))
      try registry.add(Domain(identifier: Self.cloud, displayName: "Cloud", provider: provider(nc), localRoot: nil))
      let engine = SyncEngine(
        registry: registry, index: index, contentRoot: scratch.appendingPathComponent("content", isDirectory: true),
        cacheBudget: 1 << 30, jitter: { 0 })
      _ = try await engine.syncChanges(of: Self.cloud)
    }
    let id = provider(nc).identifier(for: ItemPath("/report.txt"))
    try await sync()
    #expect(try index.item(domain: Self.cloud, identifier: id)?.tags == ["Urgent"])
    nc.untag("report.txt", "Urgent")
    nc.tag("report.txt", "Done")
    try await sync()
    #expect(try index.item(domain: Self.cloud, identifier: id)?.tags == ["Done"])
    nc.untag("report.txt", "Done")
    try await sync()
    #expect(try index.item(domain: Self.cloud, identifier: id)?.tags == [])
  }
}
