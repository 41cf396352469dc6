import FolioServerProvider
import Foundation
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore
@testable import TestSupport

/// A computer that signs in for the first time (or whose anchor expired) lists the working set:
/// what this user favorited, tagged, used elsewhere, and what others share, is in Recents at once,
/// offline too — not only what changes after it started.
extension RemoteSyncTests {
  @Test func aFirstSyncBringsTheExistingWorkingSetIntoTheIndex() async throws {
    let server = try await RemoteServer()
    let ana = try RemoteClient(server, user: "ana")
    let provider = ana.provider
    let docs = try await provider.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("Docs"), contentType: .folder), fields: [], contents: nil,
      options: [])
    _ = try await ana.engine.put(
      ["plain.txt", "tagged.txt"].map { try! ana.file($0, Data($0.utf8)) }, into: docs, in: ana.domain)
    #expect(await ana.engine.queue.drain().succeeded)
    var favorite = ItemTemplate(docs)
    favorite.favoriteRank = 1
    _ = try await provider.modifyItem(favorite, baseVersion: docs.version, changedFields: .favoriteRank, contents: nil)
    let tagged = try await ana.item("/Docs/tagged.txt")
    var t = ItemTemplate(tagged)
    t.tags = ["Red"]
    _ = try await provider.modifyItem(t, baseVersion: tagged.version, changedFields: .tagData, contents: nil)

    // Another computer of Ana's, with an empty index.
    let laptop = try RemoteClient(server, user: "ana")
    #expect(try laptop.index.anchor(domain: RemoteServer.work) == nil)
    let summary = try await laptop.engine.syncChanges(of: RemoteServer.work)
    #expect(summary.reconciled)
    let names = Set(try laptop.index.recents(limit: 50).map { $0.name.displayString })
    #expect(names == ["Docs", "tagged.txt"], "\(names)")
    #expect(try laptop.index.anchor(domain: RemoteServer.work) != nil)
    // Ben sees Ana's files as shared with him: they are his working set too.
    let ben = try RemoteClient(server, user: "ben")
    _ = try await ben.engine.syncChanges(of: RemoteServer.work)
    let bens = Set(try ben.index.recents(limit: 50).map { $0.name.displayString })
    #expect(bens.isSuperset(of: ["Docs", "plain.txt", "tagged.txt"]), "\(bens)")
  }
}
