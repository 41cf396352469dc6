import Foundation
import ProviderAPI
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@testable import ExtensionHost

/// The Provider calls mapped to FEP/1, against a real extension process (Fixtures/folder-ext.py).
@Suite struct ExtensionProviderTests {
  @Test func listsReadsAndPlacesItemsUnderTheirParents() async throws {
    let f = try ExtensionFixture(files: ["a.txt": "alpha", "b.txt": "bravo!", "docs/c.md": "# c", ".hidden": "h"])
    defer { Task { await f.close() } }
    let root = try await f.provider.item(for: .root)
    #expect(root.isFolder && root.path == .root && root.filename.lossyString == "Store")
    // Two pages of two, hidden files left out by the host.
    let first = try await f.provider.enumerate(EnumerationRequest(container: .root, suggestedPageSize: 2), page: nil) { _ in }
    #expect(first.items.map(\.filename.lossyString) == ["a.txt"])  // ".hidden" was the other entry of the page
    #expect(first.totalCount == 4)
    let second = try await f.provider.enumerate(EnumerationRequest(container: .root, suggestedPageSize: 2), page: first.nextPage) { _ in }
    #expect(second.items.map(\.filename.lossyString) == ["b.txt", "docs"])
    #expect(second.nextPage == nil)
    let docs = try #require(second.items.first { $0.isFolder })
    let inside = try await f.provider.enumerate(EnumerationRequest(container: docs.identifier), page: nil) { _ in }
    #expect(inside.items.map(\.path.lossyString) == ["/docs/c.md"])
    #expect(inside.items[0].documentSize == 3)
    // item(at:) through itemAtPath, and an item met first by id gets its path from its parent.
    let c = try await f.provider.item(at: ItemPath("/docs/c.md"))
    #expect(c.identifier == ItemIdentifier("docs/c.md") && c.path == ItemPath("/docs/c.md"))
    #expect(await failure { try await f.provider.item(for: ItemIdentifier("nope")) }?.code == .noSuchItem)
  }

  @Test func describeListsTheSettings() async throws {
    let f = try ExtensionFixture()
    defer { Task { await f.close() } }
    let d = try await f.provider.describe()
    #expect(d["settings"]?.array?.compactMap { $0["name"]?.string } == ["root", "delay"])
    #expect(d["settings"]?.array?.first?["required"] == .bool(true))
    #expect(f.provider.startCount == 0)
  }

  @Test func traitsActionsAndDecorationsComeFromInitialize() async throws {
    let f = try ExtensionFixture()
    defer { Task { await f.close() } }
    _ = try await f.provider.item(for: .root)
    let t = f.provider.traits
    #expect(t.identity == .pathKeyed && t.changeFeed == .none && t.rangedReads && t.contentHash == .sha256)
    #expect(t.conditionalWrites == .honoured && !t.hasTrash && t.content == .synced)
    #expect(f.provider.actionDeclarations.map(\.identifier.rawValue) == ["x-hello"])
    #expect(f.provider.decorationDeclarations.map(\.glyph) == ["◆"])
    // A second provider of the same location knows the traits before starting the extension.
    let again = ExtensionProvider(launch: f.provider.launch)
    #expect(again.traits == t)
    #expect(await f.provider.accountStatus() == .online(usedBytes: 1000, quotaBytes: 4000))
  }

  @Test func downloadsAreCheckedAndUploadsGoThroughStaging() async throws {
    let f = try ExtensionFixture()
    defer { Task { await f.close() } }
    let dest = f.base.appendingPathComponent("out.txt")
    let (item, digest) = try await f.provider.fetchVerifiedContents(ItemIdentifier("b.txt"), version: nil, to: dest) { _ in }
    #expect(try String(contentsOf: dest, encoding: .utf8) == "bravo!")
    #expect(item.documentSize == 6 && digest?.sha256?.count == 64)
    let part = f.base.appendingPathComponent("part")
    let (_, range) = try await f.provider.fetchPartialContents(ItemIdentifier("b.txt"), version: nil, range: 1..<3, to: part)
    #expect(range == 1..<3)
    // Upload: a new file, then a rename, then new content, then a delete.
    let src = f.base.appendingPathComponent("up.txt")
    try Data("fresh bytes".utf8).write(to: src)
    var template = ItemTemplate(parentIdentifier: .root, filename: ItemName("new.txt"), contentType: .plainText)
    template.uploadToken = "token-1"
    let created = try await f.provider.createItem(template, fields: [.filename, .contents], contents: src, options: [])
    #expect(created.identifier == ItemIdentifier("new.txt") && created.documentSize == 11)
    #expect(try String(contentsOf: f.root.appendingPathComponent("new.txt"), encoding: .utf8) == "fresh bytes")
    // The caller's file is untouched (not made read-only) and the staging folder is empty again.
    #expect(FileManager.default.isWritableFile(atPath: src.path))
    #expect(try FileManager.default.contentsOfDirectory(atPath: f.provider.launch.processStagingDirectory.path).isEmpty)
    #expect(
      await failure { try await f.provider.createItem(template, fields: [.filename], contents: nil, options: []) }?.code
        == .filenameCollision)
    var rename = ItemTemplate(created)
    rename.filename = ItemName("renamed.txt")
    let renamed = try await f.provider.modifyItem(rename, baseVersion: created.version, changedFields: .filename, contents: nil)
    #expect(renamed.path == ItemPath("/renamed.txt"))
    // A field the extension does not modify is refused before anything is sent.
    #expect(
      await failure { try await f.provider.modifyItem(rename, baseVersion: renamed.version, changedFields: .tagData, contents: nil) }?
        .code == .featureUnsupported)
    try await f.provider.deleteItem(renamed.identifier, baseVersion: nil, options: [])
    #expect(!FileManager.default.fileExists(atPath: f.root.appendingPathComponent("renamed.txt").path))
  }

  @Test func anOrderTheExtensionDoesNotDoIsSortedByTheHost() async throws {
    let f = try ExtensionFixture(files: ["old.txt": "1", "new.txt": "22", "mid.txt": "333", "sub/x": ""])
    defer { Task { await f.close() } }
    for (name, seconds) in [("old.txt", 1_000_000.0), ("mid.txt", 2_000_000.0), ("new.txt", 3_000_000.0), ("sub", 500.0)] {
      try FileManager.default.setAttributes(
        [.modificationDate: Date(timeIntervalSince1970: seconds)], ofItemAtPath: f.root.appendingPathComponent(name).path)
    }
    let byDate = EnumerationRequest(
      container: .root, sort: ItemSort(key: .date, ascending: false, foldersFirst: true), suggestedPageSize: 2)
    let first = try await f.provider.enumerate(byDate, page: nil) { _ in }
    #expect(first.items.map(\.filename.lossyString) == ["sub", "new.txt"])
    let second = try await f.provider.enumerate(byDate, page: first.nextPage) { _ in }
    #expect(second.items.map(\.filename.lossyString) == ["mid.txt", "old.txt"])
    #expect(second.nextPage == nil && first.totalCount == 4)
    let bySize = try await f.provider.enumerate(
      EnumerationRequest(container: .root, sort: ItemSort(key: .size, ascending: true, foldersFirst: false)), page: nil) { _ in }
    #expect(bySize.items.map(\.filename.lossyString) == ["sub", "old.txt", "new.txt", "mid.txt"])
  }

  @Test func eachProcessStagesInItsOwnFolderAndAGoneOnesIsRemoved() async throws {
    let f = try ExtensionFixture()
    defer { Task { await f.close() } }
    let staging = f.provider.launch.stagingDirectory
    // A folder left by a process that is gone (one that ran and was reaped), and one of a live
    // process (this one's parent).
    let done = Process()
    done.executableURL = URL(fileURLWithPath: "/bin/true")
    try done.run()
    done.waitUntilExit()
    let gonePID = done.processIdentifier
    let gone = staging.appendingPathComponent(String(gonePID))
    let alive = staging.appendingPathComponent(String(getppid()))
    for dir in [gone, alive] {
      try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
      FileManager.default.createFile(atPath: dir.appendingPathComponent("dl-x").path, contents: Data("x".utf8))
    }
    _ = try await f.provider.item(for: .root)
    #expect(!FileManager.default.fileExists(atPath: gone.path))
    #expect(FileManager.default.fileExists(atPath: alive.appendingPathComponent("dl-x").path))
    #expect(FileManager.default.fileExists(atPath: f.provider.launch.processStagingDirectory.path))
  }

  @Test func aBadNameIsRefusedAndTheRestOfThePageKept() async throws {
    let f = try ExtensionFixture()
    defer { Task { await f.close() } }
    _ = try await f.provider.item(for: .root)
    let caps = f.provider.currentCapabilities
    let page: [JSONValue] = [
      ["id": "x", "parent": "#root", "name": "a/b", "kind": "file", "version": ["content": 1, "metadata": "1"]],
      ["id": "y", "parent": "#root", "name": "..", "kind": "file", "version": ["content": "1", "metadata": "1"]],
      ["id": "z", "parent": "#root", "name": "good", "kind": "file", "version": ["content": 3, "metadata": "1"]],
      ["id": "w", "parent": "#root", "name": "w", "nameBytes": "/w==", "kind": "file", "version": ["content": "1", "metadata": "1"]],
    ]
    let items = try await f.provider.decodeList(page, caps, parentPath: .root)
    #expect(items.map(\.identifier.rawValue) == ["z", "w"])
    // A number version component reads as its decimal text; nameBytes is ignored without byteNames.
    #expect(items[0].version.displayString == "content 3, metadata 1")
    #expect(items[1].filename.lossyString == "w")
    #expect(f.log.contains("refused an item (x)"))
  }

  @Test func manyRequestsAreInFlightUpToTheDeclaredConcurrency() async throws {
    // Each request waits until three are in flight: only a host that sends three at once gets
    // its answers without the fixture's 20 s bound, and the most it ever saw is the limit.
    let f = try ExtensionFixture(["concurrency": "3", "barrier": "3"])
    defer { Task { await f.close() } }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<9 { group.addTask { _ = try await f.provider.enumerate(EnumerationRequest(container: .root), page: nil) { _ in } } }
      try await group.waitForAll()
    }
    #expect(try String(contentsOf: f.stats, encoding: .utf8) == "3")
  }
}

/// Change signals: `$/signal` with push, the host's own timer (`pollSeconds`) without.
@Suite struct ExtensionSignalTests {
  @Test func aSignalReachesTheContainersWatchers() async throws {
    let f = try ExtensionFixture(["changes": "push"])
    defer { Task { await f.close() } }
    _ = try await f.provider.enumerate(EnumerationRequest(container: .root), page: nil) { _ in }
    #expect(f.provider.traits.changeFeed == .push)
    let signals = f.provider.changeSignals(for: .root)
    let got = Task {
      var it = signals.makeAsyncIterator()
      return await it.next() != nil
    }
    _ = try await f.provider.item(for: ItemIdentifier("a.txt"))
    #expect(await got.value)
  }

  @Test func withoutPushTheHostAsksOnTheExtensionsTimer() async throws {
    let f = try ExtensionFixture(["changes": "pull"])
    defer { Task { await f.close() } }
    _ = try await f.provider.item(for: .root)
    #expect(f.provider.traits.changeFeed == .pull)
    var it = f.provider.changeSignals(for: .workingSet).makeAsyncIterator()
    #expect(await it.next() != nil)
  }
}
