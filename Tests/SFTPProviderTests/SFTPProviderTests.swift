import Crypto
import Foundation
import ProviderAPI
import SFTPClient
import SSHTestSupport
import SFTPProvider
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// SFTPProvider against a real OpenSSH server on loopback.
@Suite(.offThePool)
struct SFTPProviderTests {
  static let hostile: [[UInt8]] = [
    Array("with space".utf8), Array("new\nline".utf8), Array("tab\there".utf8), [0x65, 0x1B, 0x5B, 0x32, 0x4A],
    [0x62, 0x61, 0x64, 0xFF, 0xFE], Array("caf\u{E9}".utf8), Array("-rf".utf8), Array("\u{202E}gpj.exe".utf8),
  ]

  @Test func declaresWhatSFTPCanDo() {
    let traits = SFTPProvider.traits
    #expect(traits.content == .synced && traits.changeFeed == .none && traits.identity == .pathKeyed)
    #expect(!traits.hasTrash && traits.rangedReads && traits.conditionalWrites == .unknown)
    #expect(traits.contentHash == .none && !traits.storesFavorites && traits.namesAreBytes)
  }

  /// The server has no place for tags: refused without a connection, so the index keeps them
  /// and merges them into listings (they showed in no row: the modify had "succeeded").
  @Test func tagsAreRefusedForTheIndexToKeep() async throws {
    let provider = SFTPProvider(domain: DomainIdentifier(unchecked: "x"), host: "nowhere.invalid")
    var template = ItemTemplate(parentIdentifier: .root, filename: ItemName("a.txt"), contentType: .plainText)
    template.identifier = provider.identifier(for: ItemPath("/a.txt"))
    template.tags = ["Red"]
    let error = await #expect(throws: ProviderError.self) {
      _ = try await provider.modifyItem(template, baseVersion: .empty, changedFields: .tagData, contents: nil)
    }
    #expect(error?.code == .featureUnsupported)
  }

  @Test func identifiersAreReversibleBytes() throws {
    let provider = SFTPProvider(domain: DomainIdentifier(unchecked: "x"), host: "nowhere.invalid")
    #expect(provider.identifier(for: .root) == .root)
    #expect(provider.path(for: .root) == .root)
    for name in Self.hostile {
      let p = ItemPath(bytes: Array("/a/".utf8) + name)
      let id = provider.identifier(for: p)
      #expect(id.rawValue.hasPrefix("s:"))
      #expect(!id.rawValue.contains("/") && !id.rawValue.contains("\n"))
      #expect(provider.path(for: id) == p)
    }
    #expect(provider.path(for: ItemIdentifier("p:Zm9v")) == nil)
    #expect(provider.path(for: ItemIdentifier("s:!!")) == nil)
    // Nothing above the remote folder is ever named.
    for outside in ["/..", "/a/../../etc", "/./a", "a", "/a//b", "/a/"] {
      let url = Data(outside.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
      #expect(provider.path(for: ItemIdentifier("s:" + url)) == nil, "\(outside)")
    }
  }

  @Test func createsListsStatsRenamesMovesAndDeletesHostileNames() async throws {
    let f = try ProviderFixture()
    defer { f.stop() }
    let p = f.provider
    let folder = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("dir"), contentType: .folder), fields: [], contents: nil,
      options: [])
    #expect(folder.isFolder && folder.path == path("/dir"))
    var created: [ItemIdentifier: [UInt8]] = [:]
    for name in Self.hostile {
      let item = try await p.createItem(
        ItemTemplate(parentIdentifier: .root, filename: ItemName(bytes: name), contentType: .data), fields: [],
        contents: try f.scratchFile("c", name), options: [])
      #expect(item.filename.bytes == name)
      #expect(item.documentSize == Int64(name.count))
      #expect(try f.contents(item.path) == name)
      created[item.identifier] = name
    }
    let again = await #expect(throws: ProviderError.self) {
      try await p.createItem(
        ItemTemplate(parentIdentifier: .root, filename: ItemName(bytes: Self.hostile[0]), contentType: .data), fields: [],
        contents: nil, options: [])
    }
    #expect(again?.code == .filenameCollision)
    #expect(try f.contents(path("/with space")) == Self.hostile[0])

    let page = try await p.enumerate(EnumerationRequest(container: .root, includeHidden: true), page: nil) { _ in }
    #expect(page.nextPage == nil)
    #expect(Set(page.items.map(\.filename.bytes)) == Set(Self.hostile + [Array("dir".utf8)]))
    #expect(page.items.first?.isFolder == true)
    for (id, name) in created {
      let item = try await p.item(for: id, pathHint: nil)
      #expect(item.filename.bytes == name)
      #expect(item.parentIdentifier == .root)
      #expect(!item.isDownloaded)
    }

    // Rename to another hostile name, then move into the folder: new identifiers each time.
    let bad = p.identifier(for: ItemPath(bytes: [0x2F] + Self.hostile[4]))
    let renamedTo: [UInt8] = Array("x\n".utf8) + [0xC3]
    var template = ItemTemplate(try await p.item(for: bad, pathHint: nil))
    template.filename = ItemName(bytes: renamedTo)
    let renamed = try await p.modifyItem(template, baseVersion: .empty, changedFields: .filename, contents: nil)
    #expect(renamed.identifier != bad)
    #expect(renamed.path == ItemPath(bytes: [0x2F] + renamedTo))
    #expect(f.exists(renamed.path) && !f.exists(ItemPath(bytes: [0x2F] + Self.hostile[4])))
    var move = ItemTemplate(renamed)
    move.parentIdentifier = folder.identifier
    let moved = try await p.modifyItem(move, baseVersion: renamed.version, changedFields: .parentItemIdentifier, contents: nil)
    #expect(moved.path == ItemPath(bytes: Array("/dir/".utf8) + renamedTo))
    #expect(moved.parentIdentifier == folder.identifier)
    #expect(try f.contents(moved.path) == Self.hostile[4])

    // A rename onto a taken name is refused and changes nothing.
    var clash = ItemTemplate(try await p.item(at: ItemPath(bytes: [0x2F] + Self.hostile[1])))
    clash.filename = ItemName(bytes: Self.hostile[2])
    let refused = await #expect(throws: ProviderError.self) {
      try await p.modifyItem(clash, baseVersion: .empty, changedFields: .filename, contents: nil)
    }
    #expect(refused?.code == .filenameCollision)
    #expect(try f.contents(ItemPath(bytes: [0x2F] + Self.hostile[2])) == Self.hostile[2])

    // Deletes: a file, a non-empty folder only when recursive.
    try await p.deleteItem(p.identifier(for: ItemPath(bytes: [0x2F] + Self.hostile[1])), baseVersion: nil, options: [])
    #expect(!f.exists(ItemPath(bytes: [0x2F] + Self.hostile[1])))
    let notEmpty = await #expect(throws: ProviderError.self) {
      try await p.deleteItem(folder.identifier, baseVersion: nil, options: [])
    }
    #expect(notEmpty?.code == .directoryNotEmpty)
    try await p.deleteItem(folder.identifier, baseVersion: nil, options: .recursive)
    #expect(!f.exists(path("/dir")))
  }

  @Test func aRenameGivesANewIdentifierAndTheOldOneIsGone() async throws {
    let f = try ProviderFixture()
    defer { f.stop() }
    let p = f.provider
    let item = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("a.txt"), contentType: .plainText), fields: [],
      contents: try f.scratchFile("a", Array("alpha".utf8)), options: [])
    #expect(item.contentType == .plainText)
    var t = ItemTemplate(item)
    t.filename = ItemName("b.txt")
    let renamed = try await p.modifyItem(t, baseVersion: item.version, changedFields: .filename, contents: nil)
    #expect(renamed.identifier == p.identifier(for: path("/b.txt")))
    #expect(renamed.identifier != item.identifier)
    let gone = await #expect(throws: ProviderError.self) { try await p.item(for: item.identifier, pathHint: nil) }
    #expect(gone?.code == .noSuchItem)
    #expect(try await p.item(for: renamed.identifier, pathHint: nil).version == renamed.version)
  }

  @Test func pagesTwoThousandEntriesInEverySortWithoutGapsOrDuplicates() async throws {
    let f = try ProviderFixture()
    defer { f.stop() }
    try FileManager.default.createDirectory(atPath: f.localString(path("/big")), withIntermediateDirectories: true)
    for n in 1...10 {
      try FileManager.default.createDirectory(atPath: f.localString(path("/big/dir \(n)")), withIntermediateDirectories: true)
      f.setTime(path("/big/dir \(n)"), 1_600_000_000 + (n * 7919) % 1000)
    }
    let extensions = ["txt", "png", "json", "bin"]
    for n in 1...1990 {
      let name = "/big/file \(n).\(extensions[n % 4])"
      try Data(count: (n * 37) % 500).write(to: URL(fileURLWithPath: f.localString(path(name))))
      f.setTime(path(name), 1_600_000_000 + (n * 7919) % 1000)
    }
    try Data().write(to: URL(fileURLWithPath: f.localString(path("/big/.hidden"))))
    let big = try await f.provider.item(at: path("/big"))

    func number(_ item: Item) -> Int {
      let s = item.filename.lossyString
      return Int(s.split(separator: " ")[1].split(separator: ".")[0])!
    }
    func nameOrder(_ a: Item, _ b: Item) -> Bool {
      a.isFolder == b.isFolder ? number(a) < number(b) : a.isFolder
    }
    let sorts: [(ItemSort, (Item, Item) -> Bool)] = [
      (ItemSort(key: .name), nameOrder),
      // "file …" after "dir …" by name, so descending puts every file first.
      (ItemSort(key: .name, ascending: false, foldersFirst: false), { a, b in
        a.isFolder != b.isFolder ? !a.isFolder : number(a) > number(b)
      }),
      (ItemSort(key: .date, ascending: false), { a, b in
        if a.isFolder != b.isFolder { return a.isFolder }
        if a.contentModificationDate != b.contentModificationDate { return a.contentModificationDate! > b.contentModificationDate! }
        return number(a) < number(b)
      }),
      (ItemSort(key: .size), { a, b in
        if a.isFolder != b.isFolder { return a.isFolder }
        let (sa, sb) = (a.documentSize ?? 0, b.documentSize ?? 0)
        return sa != sb ? sa < sb : number(a) < number(b)
      }),
      (ItemSort(key: .kind, foldersFirst: false), { a, b in
        let (ka, kb) = (a.contentType.kindDescription.lowercased(), b.contentType.kindDescription.lowercased())
        return ka != kb ? ka < kb : nameOrder(a, b)
      }),
    ]
    for (sort, before) in sorts {
      let request = EnumerationRequest(container: big.identifier, sort: sort, suggestedPageSize: 200)
      var all: [Item] = []
      var page: Page? = nil
      var pages = 0
      repeat {
        let answer = try await f.provider.enumerate(request, page: page) { _ in }
        #expect(answer.items.count <= 200)
        #expect(answer.totalCount == 2000)
        all += answer.items
        page = answer.nextPage
        pages += 1
      } while page != nil && pages < 100
      #expect(pages == 10, "\(sort)")
      #expect(all.count == 2000, "\(sort)")
      #expect(Set(all.map(\.identifier)).count == 2000, "\(sort)")
      #expect(!all.contains { $0.filename.isHidden })
      let wrong = zip(all, all.dropFirst()).first { !before($0, $1) }
      #expect(wrong == nil, "\(sort): \(wrong.map { "\($0.0.filename) then \($0.1.filename)" } ?? "")")
    }

    // A token names a position (10 folders, then files): jump to the last page without reading the ones before it.
    let request = EnumerationRequest(container: big.identifier, suggestedPageSize: 200)
    let first = try await f.provider.enumerate(request, page: nil) { _ in }
    let known = try #require(first.nextPage)
    let jump = try #require(f.provider.pageToken(at: 1800, from: known, in: request))
    let last = try await f.provider.enumerate(request, page: jump) { _ in }
    #expect(last.items.count == 200 && last.nextPage == nil)
    #expect(last.items.map(number) == Array(1791...1990))

    // A token outliving its snapshot (another provider instance has none): re-read while the
    // folder is unchanged, pageExpired once its mtime moved.
    let other = try f.secondProvider()
    let second = try await other.enumerate(request, page: first.nextPage) { _ in }
    #expect(second.items.map(number) == Array(191...390))
    try Data().write(to: URL(fileURLWithPath: f.localString(path("/big/new file"))))
    f.setTime(path("/big"), 1_500_000_000)
    let third = try f.secondProvider()
    let expired = await #expect(throws: ProviderError.self) {
      try await third.enumerate(request, page: first.nextPage) { _ in }
    }
    #expect(expired?.code == .pageExpired)
  }

  /// A second visit paints from the last reading when one STAT shows the folder's mtime
  /// unchanged (a file rewritten in place, which does not move it, still shows its old size:
  /// that is how the test knows no READDIR ran); the poller's `.current` reads afresh, and a
  /// moved mtime makes the next visit read afresh too.
  @Test func aSecondVisitAnswersFromTheLastReadingWhileTheFolderIsUnchanged() async throws {
    let f = try ProviderFixture()
    defer { f.stop() }
    try FileManager.default.createDirectory(atPath: f.localString(path("/d")), withIntermediateDirectories: true)
    try Data("a".utf8).write(to: URL(fileURLWithPath: f.localString(path("/d/a.txt"))))
    f.setTime(path("/d"), 1_600_000_000)
    let d = try await f.provider.item(at: path("/d"))
    let request = EnumerationRequest(container: d.identifier)
    func sizes(_ r: EnumerationRequest) async throws -> [String: Int64] {
      let page = try await f.provider.enumerate(r, page: nil) { _ in }
      return Dictionary(uniqueKeysWithValues: page.items.map { ($0.filename.lossyString, $0.documentSize ?? -1) })
    }
    #expect(try await sizes(request) == ["a.txt": 1])
    // Rewritten in place: the folder's mtime stays.
    try Data("abc".utf8).write(to: URL(fileURLWithPath: f.localString(path("/d/a.txt"))))
    f.setTime(path("/d"), 1_600_000_000)
    #expect(try await sizes(request) == ["a.txt": 1], "the second visit came from the last reading")
    var current = request
    current.freshness = .current
    #expect(try await sizes(current) == ["a.txt": 3], "the poller's reading is read now")
    // The poller's reading is now the folder's newest: the next visit shows what it read.
    #expect(try await sizes(request) == ["a.txt": 3])
    // A file made on the server moves the folder's mtime: read afresh.
    try Data().write(to: URL(fileURLWithPath: f.localString(path("/d/b.txt"))))
    f.setTime(path("/d"), 1_600_000_100)
    #expect(try await sizes(request) == ["a.txt": 3, "b.txt": 0])
  }

  @Test func uploadAndDownloadRoundTripBySHA256AndRangedReads() async throws {
    let f = try ProviderFixture()
    defer { f.stop() }
    var bytes = [UInt8](repeating: 0, count: 3 * 1024 * 1024 + 12345)
    for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 13) }
    let item = try await f.provider.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("blob.bin"), contentType: .data), fields: [],
      contents: try f.scratchFile("blob", bytes), options: [])
    #expect(item.documentSize == Int64(bytes.count))
    let destination = URL(fileURLWithPath: f.server.folder + "/downloaded")
    let reported = Counter()
    let fetched = try await f.provider.fetchContents(item.identifier, version: item.version, to: destination) {
      reported.set($0.completedBytes)
    }
    #expect(fetched.version == item.version)
    let got = try Data(contentsOf: destination)
    #expect(SHA256.hash(data: got) == SHA256.hash(data: Data(bytes)))
    #expect(reported.value == Int64(bytes.count))

    let partial = URL(fileURLWithPath: f.server.folder + "/partial")
    let (_, range) = try await f.provider.fetchPartialContents(
      item.identifier, version: nil, range: 1_000_000..<1_300_000, to: partial)
    #expect(range == 1_000_000..<1_300_000)
    let head = try Data(contentsOf: partial)
    #expect([UInt8](head[1_000_000..<1_300_000]) == Array(bytes[1_000_000..<1_300_000]))

    // The server's copy-data copies without the bytes crossing the link.
    let copy = try await f.provider.copyItem(item.identifier, to: .root, name: ItemName("copy.bin"))
    #expect(try f.contents(copy.path) == bytes)
    // A folder is copied recursively, never into itself.
    let folder = try await f.provider.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("folder"), contentType: .folder), fields: [], contents: nil,
      options: [])
    var inside = ItemTemplate(copy)
    inside.parentIdentifier = folder.identifier
    _ = try await f.provider.modifyItem(inside, baseVersion: copy.version, changedFields: .parentItemIdentifier, contents: nil)
    let copied = try await f.provider.copyItem(folder.identifier, to: .root, name: ItemName("folder 2"))
    #expect(copied.isFolder)
    #expect(try f.contents(path("/folder 2/copy.bin")) == bytes)
    let itself = await #expect(throws: ProviderError.self) {
      try await f.provider.copyItem(folder.identifier, to: folder.identifier, name: nil)
    }
    #expect(itself?.code == .invalidArgument)
  }

  /// An upload (a new file, new content) counts the WRITEs the server acknowledged, so the transfer
  /// queue can show `↑ n%` for it as for a download: increasing, up to the file's size.
  @Test func uploadsReportAcknowledgedBytesUpToTheFilesSize() async throws {
    let f = try ProviderFixture()
    defer { f.stop() }
    let bytes = [UInt8](repeating: 0x5A, count: 4 * 1024 * 1024 + 777)
    let log = ProgressLog()
    let item = try await f.provider.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("new.bin"), contentType: .data), fields: [],
      contents: try f.scratchFile("new", bytes), options: [], progress: { log.append($0) })
    #expect(item.documentSize == Int64(bytes.count))
    let reports = log.values
    let done = reports.map(\.completedBytes)
    #expect(done == done.sorted(), "\(done)")
    #expect(done.last == Int64(bytes.count))
    #expect(done.filter { $0 > 0 && $0 < Int64(bytes.count) }.count >= 3, "\(done)")
    #expect(reports.allSatisfy { $0.totalBytes == Int64(bytes.count) })

    // New content for it counts the same way.
    let edited = [UInt8](repeating: 0x33, count: 3 * 1024 * 1024 + 5)
    let again = ProgressLog()
    let changed = try await f.provider.modifyItem(
      ItemTemplate(item), baseVersion: item.version, changedFields: .contents, contents: try f.scratchFile("edited", edited),
      progress: { again.append($0) })
    #expect(changed.documentSize == Int64(edited.count) && changed.uploadingError == nil)
    let sent = again.values.map(\.completedBytes)
    #expect(sent == sent.sorted(), "\(sent)")
    #expect(sent.last == Int64(edited.count))
    #expect(sent.filter { $0 > 0 && $0 < Int64(edited.count) }.count >= 3, "\(sent)")
  }

  @Test func aReplaceWithAStaleBaseKeepsBothVersions() async throws {
    let f = try ProviderFixture()
    defer { f.stop() }
    let p = f.provider
    let item = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("notes.txt"), contentType: .plainText), fields: [],
      contents: try f.scratchFile("v1", Array("one".utf8)), options: [])
    // A replace on the current base goes through.
    let v2 = try await p.modifyItem(
      ItemTemplate(item), baseVersion: item.version, changedFields: .contents,
      contents: try f.scratchFile("v2", Array("two two".utf8)))
    #expect(v2.uploadingError == nil)
    #expect(try f.contents(path("/notes.txt")) == Array("two two".utf8))

    // Someone else writes on the server; our edit based on v2 must not overwrite it.
    try Data("theirs!".utf8).write(to: URL(fileURLWithPath: f.localString(path("/notes.txt"))))
    f.setTime(path("/notes.txt"), 1_650_000_000)
    let answer = try await p.modifyItem(
      ItemTemplate(v2), baseVersion: v2.version, changedFields: .contents,
      contents: try f.scratchFile("mine", Array("mine".utf8)))
    #expect(try f.contents(path("/notes.txt")) == Array("theirs!".utf8))
    let conflict = try #require(answer.uploadingError)
    #expect(conflict.code == .localVersionConflictingWithServer)
    let copyID = try #require(conflict.existingItem)
    let copy = try await p.item(for: copyID, pathHint: nil)
    #expect(copy.filename.lossyString.hasPrefix("notes (conflict, "))
    #expect(copy.filename.lossyString.hasSuffix(").txt"))
    #expect(try f.contents(copy.path) == Array("mine".utf8))
    #expect(answer.version != v2.version)
    let listing = try await p.enumerate(EnumerationRequest(container: .root, includeHidden: true), page: nil) { _ in }
    #expect(!listing.items.contains { $0.filename.lossyString.contains(".folio-") })
  }

  /// An upload retried after its process was killed (or its link cut) finds the temporary file of
  /// its earlier attempt by its token and removes it; a temporary of another upload stays.
  @Test func aRetriedUploadRemovesItsOwnLeftoverTemporaryAndNoOtherOne() async throws {
    let f = try ProviderFixture()
    defer { f.stop() }
    let p = f.provider
    let token = "0123456789abcdef"
    let ours = ".report.txt.folio-\(token).part"
    let theirs = ".report.txt.folio-someoneelse.part"
    try Data("half of an earlier attempt".utf8).write(to: URL(fileURLWithPath: f.server.files + "/" + ours))
    try Data("another client, still writing".utf8).write(to: URL(fileURLWithPath: f.server.files + "/" + theirs))
    var template = ItemTemplate(parentIdentifier: .root, filename: ItemName("report.txt"), contentType: .plainText)
    template.uploadToken = token
    let created = try await p.createItem(
      template, fields: [.contents], contents: try f.scratchFile("r1", Array("first".utf8)), options: [])
    #expect(try f.contents(path("/report.txt")) == Array("first".utf8))
    #expect(!f.exists(path("/" + ours)), "the leftover of the earlier attempt is gone")
    #expect(try f.contents(path("/" + theirs)) == Array("another client, still writing".utf8))

    // A modify that meets a stale base keeps its bytes as a conflict copy: no temporary either way.
    try Data("first".utf8).write(to: URL(fileURLWithPath: f.server.files + "/" + ours))
    f.setTime(path("/report.txt"), 1_650_000_000)
    var edit = ItemTemplate(created)
    edit.uploadToken = token
    let answer = try await p.modifyItem(
      edit, baseVersion: created.version, changedFields: .contents, contents: try f.scratchFile("r2", Array("second".utf8)))
    #expect(answer.uploadingError?.code == .localVersionConflictingWithServer)
    #expect(!f.exists(path("/" + ours)))
    let names = try FileManager.default.contentsOfDirectory(atPath: f.server.files).filter { $0.contains(".folio-") }
    #expect(names == [theirs], "\(names)")

    // The temporary's name stays within NAME_MAX for a name of 255 bytes.
    let long = String(repeating: "n", count: 251) + ".txt"
    var longTemplate = ItemTemplate(parentIdentifier: .root, filename: ItemName(long), contentType: .plainText)
    longTemplate.uploadToken = token
    _ = try await p.createItem(longTemplate, fields: [.contents], contents: try f.scratchFile("r3", Array("long".utf8)), options: [])
    #expect(try f.contents(path("/" + long)) == Array("long".utf8))
  }

  @Test func deletingAnUnknownIdentifierSucceeds() async throws {
    let f = try ProviderFixture()
    defer { f.stop() }
    try await f.provider.deleteItem(f.provider.identifier(for: path("/never/was")), baseVersion: nil, options: [])
    try await f.provider.deleteItem(ItemIdentifier("not one of ours"), baseVersion: nil, options: .recursive)
    let missing = await #expect(throws: ProviderError.self) { try await f.provider.item(at: path("/never")) }
    #expect(missing?.code == .noSuchItem)
    let above = await #expect(throws: ProviderError.self) { try await f.provider.item(at: path("/../..")) }
    #expect(above?.code == .invalidArgument)
  }

  @Test func aSymlinkIsReportedAsItselfWithoutFollowingALoop() async throws {
    let f = try ProviderFixture()
    defer { f.stop() }
    _ = symlink("loop", f.localString(path("/loop")))
    _ = symlink("missing target", f.localString(path("/dangling")))
    let loop = try await f.provider.item(at: path("/loop"))
    #expect(loop.isSymlink)
    #expect(loop.symlinkTargetPath == ItemPath("loop"))
    let listing = try await f.provider.enumerate(EnumerationRequest(container: .root), page: nil) { _ in }
    #expect(listing.items.count == 2)
    #expect(listing.items.allSatisfy { $0.isSymlink })
    #expect(listing.items.first { $0.filename == ItemName("dangling") }?.symlinkTargetPath == ItemPath("missing target"))
  }

  @Test func aDroppedLinkReconnectsAndADeadServerIsUnreachable() async throws {
    let f = try ProviderFixture()
    let p = f.provider
    #expect(try await p.item(at: .root).isFolder)
    if case .online = await p.accountStatus() {} else { Issue.record("expected online") }
    f.server.killSessions()
    // The next calls reconnect (one of them may meet the dying session first).
    let deadline = Date(timeIntervalSinceNow: 30)
    var back = false
    while !back && Date() < deadline {
      do {
        back = try await p.item(at: .root).isFolder
      } catch {
        #expect(error.code == .serverUnreachable)
      }
    }
    #expect(back)
    f.server.stop()
    await p.close()
    let dead = await #expect(throws: ProviderError.self) { try await p.item(at: .root) }
    #expect(dead?.code == .serverUnreachable)
    #expect(dead?.message.contains("\n") == false)
    if case .offline = await p.accountStatus() {} else { Issue.record("expected offline") }
  }
}

/// Every progress report, in order.
final class ProgressLog: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: [TransferProgress] = []
  func append(_ p: TransferProgress) { lock.withLock { stored.append(p) } }
  var values: [TransferProgress] { lock.withLock { stored } }
}

final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: Int64 = 0
  func set(_ v: Int64) { lock.withLock { stored = max(stored, v) } }
  var value: Int64 { lock.withLock { stored } }
}
