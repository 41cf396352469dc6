import Foundation
import LocalProvider
import ProviderAPI
import Testing
import WorkingSetIndex

@testable import ProviderCore

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 9: an entry of the working set is resolved to the item it names before anything acts on
/// it — followed when it moved, reported when it is gone, never confused with a new file at its
/// old path.
@Suite struct ItemServiceResolveTests {
  /// A fresh provider, as after a restart: it has never seen the items the index names.
  func restarted(_ f: LocalFixture) -> ItemService {
    let provider = LocalProvider(trash: .current)
    let domain = Domain(identifier: .local, displayName: "This Computer", provider: provider, localRoot: .root)
    return ItemService(registry: DomainRegistry(local: domain), index: f.index)
  }

  @Test func aFileRenamedElsewhereIsFollowedAndTheIndexCorrected() async throws {
    let f = try LocalFixture()
    let docs = f.tmp.makeFolder("Documents")
    let file = try await f.item(f.tmp.makeFile("my notes.txt", in: docs, content: "precious"))
    try f.service.recordOpen(file, in: f.domain)
    let entry = try #require(try f.index.recents(limit: 10).first).item()

    #expect(rename(docs.appending(ItemName("my notes.txt")).lossyString, docs.appending(ItemName("notes2.txt")).lossyString) == 0)
    let service = restarted(f)
    let resolution = try await service.resolve(entry, in: service.registry.local)
    guard case .moved(let item, let from) = resolution else {
      Issue.record("expected a move, got \(resolution)")
      return
    }
    #expect(from == entry.path)
    #expect(item.path == docs.appending(ItemName("notes2.txt")))
    #expect(item.identifier == entry.identifier)
    let recents = try f.index.recents(limit: 10)
    #expect(recents.map(\.path) == [docs.appending(ItemName("notes2.txt"))], "the index follows the rename")
  }

  @Test func aNewFileAtTheOldPathIsNotTheEntrysItem() async throws {
    let f = try LocalFixture()
    let path = f.tmp.makeFile("old.txt", content: "old")
    let file = try await f.item(path)
    try f.service.recordOpen(file, in: f.domain)
    #expect(unlink(path.lossyString) == 0)
    _ = f.tmp.makeFile("old.txt", content: "someone else's")

    let resolution = try await restarted(f).resolve(file, in: f.domain)
    guard case .gone(let error) = resolution else {
      Issue.record("expected gone, got \(resolution)")
      return
    }
    #expect(error.code == .noSuchItem)
    // Forgetting removes the entry, not the new file.
    try f.service.forget(file, in: f.domain)
    #expect(try f.index.recents(limit: 10).isEmpty)
    #expect(FileManager.default.fileExists(atPath: path.lossyString))
  }

  @Test func aFolderFavoriteResolvesAndListsAfterARestart() async throws {
    let f = try LocalFixture()
    let docs = f.tmp.makeFolder("Docs")
    _ = f.tmp.makeFile("inner.txt", in: docs)
    let folder = try await f.item(docs)
    _ = try await f.service.setFavorite(true, item: folder, in: f.domain)
    let favorite = try #require(try f.index.favorites().first).item()

    let service = restarted(f)
    let provider = service.registry.local.provider
    // The provider alone cannot find an inode it never saw: the entry's path is the hint.
    await #expect(throws: ProviderError.self) {
      _ = try await provider.enumerate(EnumerationRequest(container: favorite.identifier), page: nil, progress: { _ in })
    }
    guard case .current(let item) = try await service.resolve(favorite, in: service.registry.local) else {
      Issue.record("the favorite folder was not found where it is")
      return
    }
    let page = try await provider.enumerate(EnumerationRequest(container: item.identifier), page: nil, progress: { _ in })
    #expect(page.items.map(\.filename) == [ItemName("inner.txt")])
  }

  @Test func openCheckRefusesBrokenLinksLoopsAndFIFOs() async throws {
    let f = try LocalFixture()
    let link = f.tmp.child("a-link")
    #expect(symlink("missing.txt", link.lossyString) == 0)
    let loop = f.tmp.child("loop")
    #expect(symlink("loop", loop.lossyString) == 0)
    let fifo = f.tmp.child("pipe")
    #expect(mkfifo(fifo.lossyString, 0o600) == 0)
    let folderLink = f.tmp.child("to-folder")
    _ = f.tmp.makeFolder("real")
    #expect(symlink("real", folderLink.lossyString) == 0)
    let file = f.tmp.makeFile("plain.txt")

    func check(_ p: ItemPath, program: Bool = false) async throws -> OpenCheck {
      await OpenCheck.run(try await f.item(p), in: f.domain, services: f.service, withProgram: program)
    }
    guard case .refused(let broken) = try await check(link) else { Issue.record("a broken link was not refused"); return }
    #expect(broken.message.contains("broken link") && broken.message.contains("missing.txt"))
    guard case .refused(let looped) = try await check(loop) else { Issue.record("a loop was not refused"); return }
    #expect(looped.message.contains("loop of links"))
    guard case .refused(let piped) = try await check(fifo) else { Issue.record("a FIFO was not refused"); return }
    #expect(piped.message.contains("named pipe"))
    #expect(try await check(fifo, program: true) == .open(try await f.item(fifo), movedFrom: nil), "Open With… may")
    guard case .enterFolder = try await check(folderLink) else { Issue.record("a link to a folder is entered"); return }
    guard case .open(let plain, nil) = try await check(file) else { Issue.record("a file opens"); return }
    #expect(plain.path == file)
  }
}

extension ItemServiceResolveTests {
  @Test func annotationsOfAReusedIdentifierAreNotMerged() throws {
    let f = try LocalFixture()
    var old = Item(
      identifier: ItemIdentifier("fe:1"), parentIdentifier: .root, filename: ItemName("a.txt"), path: ItemPath("/a.txt"),
      contentType: .plainText)
    old.creationDate = Date(timeIntervalSince1970: 1_700_000_000)
    try f.service.recordOpen(old, in: f.domain)
    var new = old
    new.creationDate = Date(timeIntervalSince1970: 1_700_000_500)
    #expect(f.service.annotate([new], domain: .local)[0].lastUsedDate == nil, "another file with the inode")
    #expect(f.service.annotate([old], domain: .local)[0].lastUsedDate != nil, "the same file")
  }
}

extension ItemServiceResolveTests {
  @Test func aStaleEntryWhoseInodeWentToAnotherFileIsNeitherTrashedNorRenamed() async throws {
    let f = try LocalFixture()
    let path = f.tmp.makeFile("keep.txt", content: "important")
    // The index's entry names this inode with the creation date of the file it was before.
    var entry = try await f.item(path)
    entry.creationDate = (entry.creationDate ?? Date()).addingTimeInterval(-3600)
    entry.path = f.tmp.child("old.txt")
    entry.filename = ItemName("old.txt")
    await #expect(throws: ProviderError.self) { _ = try await f.service.trash(entry, in: f.domain) }
    await #expect(throws: ProviderError.self) { _ = try await f.service.rename(entry, to: ItemName("x.txt"), in: f.domain) }
    #expect(ScratchFolder.read(path) == Array("important".utf8), "the other file was not touched")
  }

  @Test func aFileMovedToASiblingFolderIsFollowed() async throws {
    let f = try LocalFixture()
    let home = f.tmp.makeFolder("home")
    let documents = f.tmp.makeFolder("Documents", in: home)
    let docs = f.tmp.makeFolder("Docs", in: home)
    let file = try await f.item(f.tmp.makeFile("a.txt", in: documents))
    #expect(rename(file.path.lossyString, docs.appending(ItemName("moved.txt")).lossyString) == 0)
    let resolution = try await restarted(f).resolve(file, in: f.domain)
    guard case .moved(let item, _) = resolution else {
      Issue.record("expected a move, got \(resolution)")
      return
    }
    #expect(item.path == docs.appending(ItemName("moved.txt")))
  }
}
