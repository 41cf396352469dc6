import Foundation
import Synchronization
import ProviderAPI
import TestExecution
import Testing
import WebDAVClient
import WebDAVTestSupport

@testable import WebDAVProvider

extension DAVServerKind: CustomTestStringConvertible {
  public var testDescription: String { rawValue }
  /// What `folio domain add` finds on each.
  var conditionalWrites: ProviderTraits.ConditionalWrites { honoursConditionalWrites ? .honoured : .ignored }
}

/// The provider contract on real WebDAV servers: folders and files with hostile names, paging of a
/// 20k-entry folder in Folio's sorts, conflicts kept as copies, uploads that never leave a cut
/// file under the real name, a wrong password as a sign-in, a dead server as unreachable.
@Suite(.offThePool)
struct WebDAVProviderTests {
  static let domain = DomainIdentifier(unchecked: "dav")

  func provider(_ server: any WebDAVTestServer, _ kind: DAVServerKind, password: String? = nil) -> WebDAVProvider {
    let secret = password ?? server.password
    return WebDAVProvider(
      domain: Self.domain, url: server.baseURL, user: server.user, password: { () async throws(ProviderError) -> String? in secret },
      conditionalWrites: kind.conditionalWrites, replacesInPlace: kind.writesInPlace)
  }

  func file(_ bytes: [UInt8]) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("davp-\(UUID().uuidString)")
    try Data(bytes).write(to: url)
    return url
  }

  func file(_ text: String) throws -> URL { try file(Array(text.utf8)) }

  func fetch(_ p: WebDAVProvider, _ path: String) async throws -> [UInt8] {
    let item = try await p.item(at: ItemPath(path))
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("davp-get-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: url) }
    _ = try await p.fetchContents(item.identifier, version: nil, to: url, progress: { _ in })
    return [UInt8](try Data(contentsOf: url))
  }

  func text(_ p: WebDAVProvider, _ path: String) async throws -> String {
    String(decoding: try await fetch(p, path), as: UTF8.self)
  }

  func names(_ p: WebDAVProvider, _ path: String, sort: ItemSort = .default, pageSize: Int = 100) async throws -> [String] {
    let folder = try await p.item(at: ItemPath(path))
    var out: [String] = []
    var page: Page?
    repeat {
      let got = try await p.enumerate(
        EnumerationRequest(container: folder.identifier, sort: sort, suggestedPageSize: pageSize, freshness: .current), page: page,
        progress: { _ in })
      out += got.items.map(\.filename.lossyString)
      page = got.nextPage
    } while page != nil
    return out
  }

  static let hostileNames = [
    "plain.txt", "with space & plus+.txt", "percent %41 #hash ?q;semi.txt", "漢字 émoji 🎉.txt", "quote\"apos'.txt", "-rf",
  ]

  @Test(arguments: DAVServerKind.allCases)
  func foldersFilesRenamesAndDeletesWithHostileNames(_ kind: DAVServerKind) async throws {
    let server = try kind.start()
    defer { server.stop() }
    let p = provider(server, kind)
    let docs = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("Docs"), contentType: .folder), fields: [], contents: nil,
      options: [])
    #expect(docs.isFolder)
    #expect(try await names(p, "/") == ["Docs"])
    for name in Self.hostileNames {
      let made = try await p.createItem(
        ItemTemplate(parentIdentifier: docs.identifier, filename: ItemName(name), contentType: .plainText), fields: [.contents],
        contents: try file("bytes of \(name)"), options: [])
      #expect(made.filename.lossyString == name)
      #expect(try await text(p, "/Docs/" + name) == "bytes of \(name)", "\(name)")
    }
    #expect(Set(try await names(p, "/Docs")) == Set(Self.hostileNames))
    // Nothing but the files: no temporary of an upload stays behind.
    #expect(Set(try FileManager.default.contentsOfDirectory(atPath: server.files + "/Docs")) == Set(Self.hostileNames))

    // Bytes round trip exactly (3 MiB, every byte value).
    let payload = (0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
    _ = try await p.createItem(
      ItemTemplate(parentIdentifier: docs.identifier, filename: ItemName("payload.bin"), contentType: .data), fields: [.contents],
      contents: try file(payload), options: [])
    #expect(try await fetch(p, "/Docs/payload.bin") == payload)

    // A name that is not UTF-8 is refused before anything is sent.
    let notText = await #expect(throws: ProviderError.self) {
      _ = try await p.createItem(
        ItemTemplate(parentIdentifier: docs.identifier, filename: ItemName(bytes: [0x61, 0xFF]), contentType: .data),
        fields: [.contents], contents: try file("x"), options: [])
    }
    #expect(notText?.code == .invalidArgument)
    // A taken name is a collision, never a replace.
    let taken = await #expect(throws: ProviderError.self) {
      _ = try await p.createItem(
        ItemTemplate(parentIdentifier: docs.identifier, filename: ItemName("plain.txt"), contentType: .plainText),
        fields: [.contents], contents: try file("other"), options: [])
    }
    #expect(taken?.code == .filenameCollision)
    #expect(try await text(p, "/Docs/plain.txt") == "bytes of plain.txt")

    // A server-side copy, then a rename of the folder: the old name is gone.
    let copied = try await p.copyItem(docs.identifier, to: .root, name: ItemName("Docs copy"))
    #expect(copied.isFolder)
    var template = ItemTemplate(docs)
    template.filename = ItemName("Papers")
    let renamed = try await p.modifyItem(template, baseVersion: docs.version, changedFields: .filename, contents: nil)
    #expect(renamed.path == ItemPath("/Papers"))
    #expect(try await names(p, "/") == ["Docs copy", "Papers"])
    #expect(try await text(p, "/Papers/漢字 émoji 🎉.txt") == "bytes of 漢字 émoji 🎉.txt")
    await #expect(throws: ProviderError.self) { _ = try await p.item(at: ItemPath("/Docs")) }
    // A rename onto a taken name is refused.
    template = ItemTemplate(renamed)
    template.filename = ItemName("Docs copy")
    let clash = await #expect(throws: ProviderError.self) {
      _ = try await p.modifyItem(template, baseVersion: renamed.version, changedFields: .filename, contents: nil)
    }
    #expect(clash?.code == .filenameCollision)

    // Delete: a folder with children needs .recursive.
    let notEmpty = await #expect(throws: ProviderError.self) {
      try await p.deleteItem(renamed.identifier, baseVersion: nil, options: [])
    }
    #expect(notEmpty?.code == .directoryNotEmpty)
    try await p.deleteItem(renamed.identifier, baseVersion: nil, options: .recursive)
    try await p.deleteItem(copied.identifier, baseVersion: nil, options: .recursive)
    #expect(try await names(p, "/").isEmpty)
  }

  /// 20 000 files, listed with one streamed PROPFIND, paged in three sorts without a gap or a
  /// duplicate.
  @Test(arguments: DAVServerKind.allCases)
  func pagesOfATwentyThousandEntryFolderInEverySort(_ kind: DAVServerKind) async throws {
    let server = try kind.start()
    defer { server.stop() }
    let folder = server.files + "/big"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
    for i in 0..<20_000 {
      let name = String(format: "f%05d.txt", i)
      guard FileManager.default.createFile(atPath: folder + "/" + name, contents: Data(repeating: 0x61, count: i % 7)) else {
        Issue.record("cannot make \(name)")
        return
      }
    }
    let p = provider(server, kind)
    for sort in [ItemSort.default, ItemSort(key: .name, ascending: false), ItemSort(key: .size, ascending: true)] {
      let listed = try await names(p, "/big", sort: sort, pageSize: 1000)
      #expect(listed.count == 20_000 && Set(listed).count == 20_000, "\(sort): \(listed.count)")
      if sort == .default { #expect(listed.first == "f00000.txt" && listed.last == "f19999.txt") }
    }
  }

  /// An edit based on a version the server no longer has keeps both: the server's file as it is,
  /// the edit beside it under a conflict name — on a server that refuses the stale write, and on
  /// one that ignores conditions (the file is read just before it is replaced).
  @Test(arguments: DAVServerKind.allCases)
  func aStaleReplaceKeepsBothVersions(_ kind: DAVServerKind) async throws {
    let server = try kind.start()
    defer { server.stop() }
    let p = provider(server, kind)
    let made = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("plan.txt"), contentType: .plainText), fields: [.contents],
      contents: try file("base"), options: [])
    // Another client writes first (another size, so even a size-and-date version differs).
    _ = try await server.client().upload(bytes: Array("theirs, written first".utf8), to: try WebDAVPath("plan.txt"))
    let answered = try await p.modifyItem(
      ItemTemplate(made), baseVersion: made.version, changedFields: .contents, contents: try file("mine"))
    #expect(answered.uploadingError?.code == .localVersionConflictingWithServer, "\(String(describing: answered.uploadingError))")
    #expect(try await text(p, "/plan.txt") == "theirs, written first")
    let all = try await names(p, "/")
    let copy = try #require(all.first { $0.hasPrefix("plan (conflict") }, "\(all)")
    #expect(try await text(p, "/" + copy) == "mine")

    // A replace based on the version that is there goes in.
    let current = try await p.item(at: ItemPath("/plan.txt"))
    let replaced = try await p.modifyItem(
      ItemTemplate(current), baseVersion: current.version, changedFields: .contents, contents: try file("mine, on theirs"))
    #expect(replaced.uploadingError == nil)
    #expect(try await text(p, "/plan.txt") == "mine, on theirs")
    #expect(Set(try FileManager.default.contentsOfDirectory(atPath: server.files)) == ["plan.txt", copy], "no temporary left")
  }

  /// An upload cut off midway (its task cancelled while the server holds part of the new bytes)
  /// leaves the file under its real name as it was: Apache writes to its own temporary and renames;
  /// on rclone, which writes into the file itself, Folio sent the bytes to a temporary name, which
  /// is removed. (nginx buffers a body outside the served folder: nothing to watch there.)
  @Test(arguments: [DAVServerKind.apache, .rclone])
  func anInterruptedReplaceLeavesTheOldFileWhole(_ kind: DAVServerKind) async throws {
    let server = try kind.start()
    defer { server.stop() }
    let p = provider(server, kind)
    let made = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("big.bin"), contentType: .data), fields: [.contents],
      contents: try file("the old bytes"), options: [])
    let big = try file([UInt8](repeating: 0x6E, count: 64 << 20))
    defer { try? FileManager.default.removeItem(at: big) }
    // The body stops at 8 MiB until the server is seen holding new bytes.
    let gate = DispatchSemaphore(value: 0)
    let paused = Mutex(false)
    var template = ItemTemplate(made)
    template.uploadToken = "upload-7"
    let upload = Task { [template] in
      try await p.modifyItem(template, baseVersion: made.version, changedFields: .contents, contents: big) { progress in
        if progress.completedBytes >= 8 << 20, !paused.withLock({ let was = $0; $0 = true; return was }) { gate.wait() }
      }
    }
    let arrived = try await eventually { Self.largestFile(in: server.files) >= 1 << 20 }
    upload.cancel()
    gate.signal()
    _ = try? await upload.value
    #expect(arrived, "the server never held a MiB of the upload")
    let stored = try Data(contentsOf: URL(fileURLWithPath: server.files + "/big.bin"))
    let intact = stored == Data("the old bytes".utf8)
    #expect(intact, "the real name holds \(stored.count) bytes, not the old 13")
    // A temporary goes once the server lets go of it: Apache removes its own when the request is
    // cut; rclone refuses the DELETE of Folio's (423) while the cancelled PUT's handler still
    // holds it, so the removal keeps trying (for about five minutes).
    let left = try await eventually(within: .seconds(320)) {
      (try? FileManager.default.contentsOfDirectory(atPath: server.files)) == ["big.bin"]
    }
    #expect(left, "left: \(String(describing: try? FileManager.default.contentsOfDirectory(atPath: server.files))); server log: \(server.log.suffix(2000))")
  }

  /// The size of the largest file directly in `folder` (hidden ones included).
  static func largestFile(in folder: String) -> Int64 {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
    return names.compactMap { (try? FileManager.default.attributesOfItem(atPath: folder + "/" + $0)[.size] as? Int64) ?? nil }
      .max() ?? 0
  }

  @Test func aWrongPasswordAsksToSignInAndTheRightOneResumes() async throws {
    let server = try ApacheDAVServer()
    defer { server.stop() }
    let p = provider(server, .apache, password: "not the password")
    let refused = await #expect(throws: ProviderError.self) { _ = try await names(p, "/") }
    #expect(refused?.code == .notAuthenticated, "\(String(describing: refused))")
    if case .needsSignIn = await p.accountStatus() {} else { Issue.record("the account should need a sign-in") }
    let wrong = await #expect(throws: ProviderError.self) {
      try await p.authenticate(Credentials(user: server.user, secret: "still wrong"))
    }
    #expect(wrong?.code == .notAuthenticated)
    try await p.authenticate(Credentials(user: "", secret: server.password))
    #expect(try await names(p, "/").isEmpty)
    if case .online = await p.accountStatus() {} else { Issue.record("the account should be online") }
  }

  @Test func aDeadServerIsUnreachableNotEmpty() async throws {
    let server = try NginxDAVServer()
    let p = provider(server, .nginx)
    _ = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("kept.txt"), contentType: .plainText), fields: [.contents],
      contents: try file("kept"), options: [])
    server.stop()
    let failed = await #expect(throws: ProviderError.self) { _ = try await names(p, "/") }
    #expect(failed?.code == .serverUnreachable, "\(String(describing: failed))")
    if case .offline = await p.accountStatus() {} else { Issue.record("the account should be offline") }
  }

  @Test func statusesMapToWhatAPersonCanDo() {
    func code(_ c: WebDAVError.Code) -> ProviderError.Code { WebDAVErrorMapping.map(WebDAVError(c, "x"), location: "dav").code }
    #expect(code(.insufficientStorage) == .insufficientQuota)
    #expect(code(.needsSignIn) == .notAuthenticated)
    #expect(code(.unreachable) == .serverUnreachable)
    #expect(code(.retryable) == .serverBusy)
    #expect(code(.locked) == .itemLocked)
    #expect(code(.parentMissing) == .noSuchItem)
    #expect(WebDAVVersion.of(etag: "W/\"abc\"", size: 1, lastModified: nil) == "\"abc\"", "a weak ETag is the same version")
    #expect(WebDAVVersion.of(etag: nil, size: 5, lastModified: Date(timeIntervalSince1970: 7)) == "size 5 modified 7")
  }
}

/// Polls `condition` until it holds or a generous bound passes (a bound, not the oracle).
func eventually(within bound: Duration = .seconds(60), _ condition: () async throws -> Bool) async throws -> Bool {
  let deadline = ContinuousClock.now + bound
  while ContinuousClock.now < deadline {
    if try await condition() { return true }
    try await Task.sleep(for: .milliseconds(20))
  }
  return try await condition()
}

extension WebDAVTestServer {
  /// Another client of the same account.
  func client() throws -> WebDAVClient {
    WebDAVClient(try WebDAVConfiguration(url: baseURL, user: user, password: password))
  }
}
