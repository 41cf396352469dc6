import Foundation
import ProviderAPI
import Synchronization
import Testing
import WebDAVClient
import WebDAVTestSupport

@testable import WebDAVProvider

/// The Nextcloud dialect against a double written from Nextcloud's documentation
/// (``NextcloudDouble``): the dialect found, `oc:permissions` as capabilities, RFC 4331 quota and
/// 507, and the trash bin as Recently Deleted with Put Back and Delete Forever.
@Suite struct NextcloudDialectTests {
  func provider(
    _ nc: NextcloudDouble, url: URL? = nil, dialect: WebDAVDialect = .nextcloud, pageSize: Int = 1000
  ) -> WebDAVProvider {
    let secret = nc.password
    return WebDAVProvider(
      domain: DomainIdentifier(unchecked: "cloud"), url: url ?? nc.filesURL, user: nc.user,
      password: { () async throws(ProviderError) -> String? in secret }, conditionalWrites: .honoured, replacesInPlace: false,
      dialect: dialect, nextcloudPageSize: pageSize)
  }

  /// Every child, page after page of the provider's own paging.
  func allChildren(
    _ p: WebDAVProvider, _ container: ItemIdentifier, progress: @escaping @Sendable (EnumerationProgress) -> Void = { _ in }
  ) async throws -> [Item] {
    let request = EnumerationRequest(container: container, suggestedPageSize: 500, freshness: .current)
    var page: Page?
    var items: [Item] = []
    repeat {
      let got = try await p.enumerate(request, page: page, progress: progress)
      items += got.items
      page = got.nextPage
    } while page != nil
    return items
  }

  func file(_ text: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("nc-\(UUID().uuidString)")
    try Data(text.utf8).write(to: url)
    return url
  }

  func children(_ p: WebDAVProvider, _ container: ItemIdentifier) async throws -> [Item] {
    try await p.enumerate(EnumerationRequest(container: container, suggestedPageSize: 100, freshness: .current), page: nil, progress: { _ in })
      .items
  }

  @Test func theDialectIsFoundAndPermissionsBecomeCapabilities() async throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    nc.put("Shared", folder: true, permissions: "SRG")
    nc.put("Shared/read only.txt", "look", permissions: "SRG")
    nc.put("Mine", folder: true)
    let p = provider(nc)
    #expect(try await p.detectDialect() == .nextcloud)
    let top = try await children(p, .root)
    let shared = try #require(top.first { $0.filename.lossyString == "Shared" })
    #expect(!shared.capabilities.contains(.writing) && !shared.capabilities.contains(.deleting))
    #expect(!shared.capabilities.contains(.renaming) && shared.capabilities.contains(.reading))
    let mine = try #require(top.first { $0.filename.lossyString == "Mine" })
    #expect(mine.capabilities.isSuperset(of: [.writing, .deleting, .renaming, .reparenting, .trashing]))
    let inside = try await children(p, shared.identifier)
    #expect(inside.map(\.filename.lossyString) == ["read only.txt"])
    #expect(inside.first.map { !$0.capabilities.contains(.writing) && !$0.capabilities.contains(.deleting) } == true)
    // The server refuses what the permissions say: no new file in a folder without C.
    let refused = await #expect(throws: ProviderError.self) {
      _ = try await p.createItem(
        ItemTemplate(parentIdentifier: shared.identifier, filename: ItemName("new.txt"), contentType: .plainText),
        fields: [.contents], contents: try file("x"), options: [])
    }
    #expect(refused?.code == .noPermission)
  }

  @Test func quotaIsTheAccountsStateAnd507IsInsufficientQuota() async throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    nc.put("a.txt", "0123456789")
    nc.quotaBytes = 100
    let p = provider(nc)
    #expect(await p.accountStatus() == .online(usedBytes: 10, quotaBytes: 100))
    let full = await #expect(throws: ProviderError.self) {
      _ = try await p.createItem(
        ItemTemplate(parentIdentifier: .root, filename: ItemName("big.bin"), contentType: .data), fields: [.contents],
        contents: try file(String(repeating: "x", count: 200)), options: [])
    }
    #expect(full?.code == .insufficientQuota, "\(String(describing: full))")
    nc.quotaBytes = 10
    #expect(await p.accountStatus() == .overQuota(usedBytes: 10, quotaBytes: 10))
  }

  @Test func deletedItemsAreInRecentlyDeletedAndComeBack() async throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    nc.put("Docs", folder: true)
    nc.put("Docs/plan é.txt", "the plan")
    nc.put("Docs/notes.txt", "notes")
    let p = provider(nc)
    #expect(p.traits.hasTrash)
    let plan = try await p.item(at: ItemPath("/Docs/plan é.txt"))
    var template = ItemTemplate(plan)
    template.parentIdentifier = .trash
    let trashed = try await p.modifyItem(template, baseVersion: plan.version, changedFields: .parentItemIdentifier, contents: nil)
    #expect(trashed.parentIdentifier == .trash && trashed.originalPath == ItemPath("/Docs/plan é.txt"))
    #expect(trashed.filename.lossyString == "plan é.txt" && trashed.trashedDate != nil)
    #expect(nc.contents("Docs/plan é.txt") == nil)
    let bin = try await children(p, .trash)
    #expect(bin.map(\.identifier) == [trashed.identifier])
    #expect(try await p.item(for: trashed.identifier).originalPath == ItemPath("/Docs/plan é.txt"))

    // Put Back: where it was, with its bytes.
    let back = try await p.restoreItem(trashed.identifier, to: nil)
    #expect(back.path == ItemPath("/Docs/plan é.txt"))
    #expect(nc.contents("Docs/plan é.txt") == "the plan")
    #expect(try await children(p, .trash).isEmpty)

    // Keep Both: its name taken meanwhile, it comes back as "plan é 2.txt" beside the other.
    template = ItemTemplate(back)
    template.parentIdentifier = .trash
    let again = try await p.modifyItem(template, baseVersion: back.version, changedFields: .parentItemIdentifier, contents: nil)
    nc.put("Docs/plan é.txt", "another plan")
    let taken = await #expect(throws: ProviderError.self) { try await p.restoreItem(again.identifier, to: nil) }
    #expect(taken?.code == .filenameCollision)
    let both = try await p.restoreItem(again.identifier, to: nil, as: ItemName("plan é 2.txt"))
    #expect(both.path == ItemPath("/Docs/plan é 2.txt"))
    #expect(nc.contents("Docs/plan é 2.txt") == "the plan" && nc.contents("Docs/plan é.txt") == "another plan")
    #expect(try await children(p, .trash).isEmpty)
    #expect(try await children(p, try await p.item(at: ItemPath("/Docs")).identifier).allSatisfy { !$0.filename.lossyString.hasPrefix(".folio-restoring") })

    // A folder goes to the bin whole, and Delete Forever empties it from there.
    let docs = try await p.item(at: ItemPath("/Docs"))
    template = ItemTemplate(docs)
    template.parentIdentifier = .trash
    let gone = try await p.modifyItem(template, baseVersion: docs.version, changedFields: .parentItemIdentifier, contents: nil)
    #expect(gone.isFolder && nc.binNames.count == 1)
    try await p.deleteItem(gone.identifier, baseVersion: nil, options: .recursive)
    #expect(nc.binNames.isEmpty)

    // Deleting for good a live item leaves nothing in the bin either.
    nc.put("x.txt", "x")
    try await p.deleteItem(try await p.item(at: ItemPath("/x.txt")).identifier, baseVersion: nil, options: [])
    #expect(nc.contents("x.txt") == nil && nc.binNames.isEmpty)
  }

  @Test func aLocationBelowTheTopShowsOnlyWhatWasDeletedBelowIt() async throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    nc.put("Work", folder: true)
    nc.put("Work/a.txt", "a")
    nc.put("Home.txt", "h")
    let top = provider(nc)
    let work = provider(nc, url: nc.filesURL.appendingPathComponent("Work/"))
    for (p, path) in [(top, "/Home.txt"), (work, "/a.txt")] {
      let item = try await p.item(at: ItemPath(path))
      var template = ItemTemplate(item)
      template.parentIdentifier = .trash
      _ = try await p.modifyItem(template, baseVersion: item.version, changedFields: .parentItemIdentifier, contents: nil)
    }
    #expect(try await children(work, .trash).map(\.originalPath) == [ItemPath("/a.txt")])
    #expect(Set(try await children(top, .trash).compactMap(\.originalPath)) == [ItemPath("/Home.txt"), ItemPath("/Work/a.txt")])
  }

  /// Favorites are the account's on Nextcloud (`oc:favorite`): listings say which items are,
  /// and Favorite / Unfavorite is a PROPPATCH of the property, which leaves the ETag alone. Only
  /// the dialect declares that the storage keeps them.
  @Test func favoritesAreTheServersOCFavoriteSetByPROPPATCH() async throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    nc.put("Docs", folder: true)
    nc.put("notes.txt", "n")
    nc.setFavorite("notes.txt", true)
    let p = provider(nc)
    #expect(p.traits.storesFavorites)
    let generic = WebDAVProvider(
      domain: DomainIdentifier(unchecked: "plain"), url: nc.filesURL, user: nc.user,
      password: { () async throws(ProviderError) -> String? in nil })
    #expect(!generic.traits.storesFavorites)

    let top = try await children(p, .root)
    let notes = try #require(top.first { $0.filename.lossyString == "notes.txt" })
    let docs = try #require(top.first { $0.filename.lossyString == "Docs" })
    #expect(notes.isFavorite && !docs.isFavorite)

    var template = ItemTemplate(docs)
    template.favoriteRank = 1_700_000_000_000
    let marked = try await p.modifyItem(template, baseVersion: docs.version, changedFields: .favoriteRank, contents: nil)
    #expect(nc.isFavorite("Docs") == true && marked.isFavorite)
    template = ItemTemplate(notes)
    template.favoriteRank = nil
    let unmarked = try await p.modifyItem(template, baseVersion: notes.version, changedFields: .favoriteRank, contents: nil)
    #expect(nc.isFavorite("notes.txt") == false && !unmarked.isFavorite)
    #expect(unmarked.version == notes.version, "a favorite is not content: the ETag stays")
    #expect(try await children(p, .root).filter(\.isFavorite).map(\.filename.lossyString) == ["Docs"])

    // Gone on the server meanwhile: said as such, not as a favorite kept.
    nc.put("gone.txt", "g")
    let gone = try await p.item(at: ItemPath("/gone.txt"))
    _ = try await p.withClient { c in try await c.delete(try WebDAVPath("gone.txt")) }
    template = ItemTemplate(gone)
    template.favoriteRank = 1
    let missing = await #expect(throws: ProviderError.self) {
      _ = try await p.modifyItem(template, baseVersion: gone.version, changedFields: .favoriteRank, contents: nil)
    }
    #expect(missing?.code == .noSuchItem, "\(String(describing: missing))")
  }

  /// A big folder on Nextcloud is read in pages (`X-NC-Paginate`) of one snapshot: every entry
  /// once, in order, one request per page; pages that expired midway make the listing start again
  /// rather than mix two snapshots. A generic server is never sent the headers, and a Nextcloud
  /// that does not page (no plugin) answers whole, which is the listing.
  @Test func aBigFolderIsListedInPagesOfOneSnapshot() async throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    nc.put("Big", folder: true)
    let names = (0..<950).map { String(format: "f%04d.txt", $0) }
    for name in names { nc.put("Big/" + name, "x") }
    let paged = provider(nc, pageSize: 100)
    let big = paged.identifier(for: ItemPath("/Big"))
    #expect(try await allChildren(paged, big).map(\.filename.lossyString) == names)
    // 951 responses (the folder's own first): the first page and 9 served from the snapshot.
    #expect(nc.pageRequests == (asked: 10, paged: 10), "\(nc.pageRequests)")

    // The server forgets the pages after the first: the listing starts again, whole.
    let expired = Mutex(false)
    let again = provider(nc, pageSize: 100)
    let listed = try await allChildren(again, big) { _ in
      if !expired.withLock({ was in defer { was = true }; return was }) { nc.expirePages() }
    }
    #expect(listed.map(\.filename.lossyString) == names)

    let before = nc.pageRequests.asked
    let generic = provider(nc, dialect: .generic)
    #expect(try await allChildren(generic, big).count == 950)
    #expect(nc.pageRequests.asked == before, "no X-NC-Paginate header to a generic server")
    nc.paginates = false
    #expect(try await allChildren(provider(nc, pageSize: 100), big).map(\.filename.lossyString) == names)
  }

  /// The double's folders change their ETag when anything below them changes, up to the top, as
  /// Nextcloud's do (so a folder's version, the poller's hint, says whether to look below it);
  /// a sibling's stays, and a favorite moves none.
  @Test func aFolderVersionMovesWhenAnythingBelowItChanges() async throws {
    let nc = try NextcloudDouble()
    defer { nc.stop() }
    nc.put("A", folder: true)
    nc.put("A/B", folder: true)
    nc.put("A/B/deep.txt", "1")
    nc.put("Other", folder: true)
    let p = provider(nc)
    func versions() async throws -> [ItemVersion] {
      var out: [ItemVersion] = []
      for path in ["/A", "/A/B", "/Other"] { out.append(try await p.item(at: ItemPath(path)).version) }
      return out
    }
    let before = try await versions()
    #expect(!before.contains(.empty))
    let deep = try await p.item(at: ItemPath("/A/B/deep.txt"))
    _ = try await p.modifyItem(
      ItemTemplate(deep), baseVersion: deep.version, changedFields: .contents, contents: try file("2"))
    let after = try await versions()
    #expect(after[0] != before[0] && after[1] != before[1], "both ancestors moved")
    #expect(after[2] == before[2], "a sibling folder did not")
    var template = ItemTemplate(try await p.item(at: ItemPath("/A/B/deep.txt")))
    template.favoriteRank = 1
    _ = try await p.modifyItem(template, baseVersion: deep.version, changedFields: .favoriteRank, contents: nil)
    #expect(try await versions() == after, "a favorite is not a change below")
  }

  @Test func trashbinURLsAreFoundOnlyForTheFilesEndpoint() {
    let found = WebDAVDialect.trashbin(of: URL(string: "https://c.example/nc/remote.php/dav/files/al%20ice/Work/Sub/")!)
    #expect(found?.url.absoluteString == "https://c.example/nc/remote.php/dav/trashbin/al%20ice/")
    #expect(found.map { String(decoding: $0.within, as: UTF8.self) } == "Work/Sub")
    #expect(WebDAVDialect.trashbin(of: URL(string: "https://c.example/remote.php/webdav/")!) == nil)
    let caps = WebDAVDialect.capabilities("RGDNVW", isFolder: false, base: [.reading, .writing, .deleting, .renaming, .evicting])
    #expect(caps == [.reading, .writing, .deleting, .renaming, .evicting])
  }
}
