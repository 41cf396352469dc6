import Foundation
import ProviderAPI
import S3Client
import S3TestSupport
import TestExecution
import Testing

@testable import S3Provider

/// The provider contract on a real S3 API (moto on loopback, every signature checked): folders
/// as prefixes and markers, paging in Folio's sorts, round trips of hostile names, a resumed
/// multipart upload, rename as copy + delete, conflicts kept, a wrong secret as a sign-in.
@Suite(.offThePool)
struct S3ProviderTests {
  static let domain = DomainIdentifier(unchecked: "bucket")

  func provider(
    _ moto: MotoServer, prefix: String = "", credentials: S3Credentials? = nil, threshold: Int64 = 64 << 20
  ) throws -> S3Provider {
    S3Provider(
      domain: Self.domain,
      endpoint: try S3Endpoint(bucket: moto.plainBucket, prefix: prefix, region: moto.region, endpoint: moto.endpointURL),
      credentials: credentials ?? moto.credentials, conditionalWrites: .honoured, multipartThreshold: threshold,
      partSize: 5 << 20)
  }

  func file(_ text: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("s3p-\(UUID().uuidString)")
    try Data(text.utf8).write(to: url)
    return url
  }

  func fetch(_ p: S3Provider, _ path: String) async throws -> String {
    let item = try await p.item(at: ItemPath(path))
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("s3p-get-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: url) }
    _ = try await p.fetchContents(item.identifier, version: nil, to: url, progress: { _ in })
    return try String(contentsOf: url, encoding: .utf8)
  }

  func names(_ p: S3Provider, _ path: String, sort: ItemSort = .default) async throws -> [String] {
    let folder = try await p.item(at: ItemPath(path))
    var out: [String] = []
    var page: Page?
    repeat {
      let got = try await p.enumerate(
        EnumerationRequest(container: folder.identifier, sort: sort, suggestedPageSize: 100, freshness: .current), page: page,
        progress: { _ in })
      out += got.items.map(\.filename.lossyString)
      page = got.nextPage
    } while page != nil
    return out
  }

  @Test func foldersFilesRenamesAndDeletesWithHostileNames() async throws {
    let moto = try await MotoServer()
    defer { moto.stop() }
    let p = try provider(moto, prefix: "team")
    let docs = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("Docs"), contentType: .folder), fields: [], contents: nil,
      options: [])
    #expect(docs.isFolder)
    #expect(try await names(p, "/") == ["Docs"], "an empty folder exists through its marker")
    for name in ["plain.txt", "with space & plus+.txt", "percent %41 #hash ?q.txt", "漢字 émoji 🎉.txt"] {
      let made = try await p.createItem(
        ItemTemplate(parentIdentifier: docs.identifier, filename: ItemName(name), contentType: .plainText), fields: [.contents],
        contents: try file("bytes of \(name)"), options: [])
      #expect(made.filename.lossyString == name)
      #expect(try await fetch(p, "/Docs/" + name) == "bytes of \(name)")
    }
    #expect(Set(try await names(p, "/Docs")) == ["plain.txt", "with space & plus+.txt", "percent %41 #hash ?q.txt", "漢字 émoji 🎉.txt"])
    // A name that is not UTF-8 is refused before anything is sent.
    await #expect(throws: ProviderError.self) {
      _ = try await p.createItem(
        ItemTemplate(parentIdentifier: docs.identifier, filename: ItemName(bytes: [0x61, 0xFF]), contentType: .data),
        fields: [.contents], contents: try file("x"), options: [])
    }
    // A taken name is a collision, never a replace.
    let taken = await #expect(throws: ProviderError.self) {
      _ = try await p.createItem(
        ItemTemplate(parentIdentifier: docs.identifier, filename: ItemName("plain.txt"), contentType: .plainText),
        fields: [.contents], contents: try file("other"), options: [])
    }
    #expect(taken?.code == .filenameCollision)
    #expect(try await fetch(p, "/Docs/plain.txt") == "bytes of plain.txt")

    // Rename of a folder: every key moves; the old name is gone.
    var template = ItemTemplate(docs)
    template.filename = ItemName("Papers")
    let renamed = try await p.modifyItem(template, baseVersion: docs.version, changedFields: .filename, contents: nil)
    #expect(renamed.path == ItemPath("/Papers"))
    #expect(try await names(p, "/") == ["Papers"])
    #expect(try await fetch(p, "/Papers/漢字 émoji 🎉.txt") == "bytes of 漢字 émoji 🎉.txt")
    await #expect(throws: ProviderError.self) { _ = try await p.item(at: ItemPath("/Docs")) }

    // Delete: a folder with keys needs .recursive.
    let notEmpty = await #expect(throws: ProviderError.self) {
      try await p.deleteItem(renamed.identifier, baseVersion: nil, options: [])
    }
    #expect(notEmpty?.code == .directoryNotEmpty)
    try await p.deleteItem(renamed.identifier, baseVersion: nil, options: .recursive)
    #expect(try await names(p, "/").isEmpty)
    // The prefix kept the location inside "team/": nothing was written at the bucket's top.
    let raw = try moto.client(bucket: moto.plainBucket)
    #expect(try await raw.listObjects(prefix: [], delimiter: "/").commonPrefixes.allSatisfy { $0 == Array("team/".utf8) })
  }

  @Test func pagesInEverySortWithoutGapsOrDuplicates() async throws {
    let moto = try await MotoServer()
    defer { moto.stop() }
    let p = try provider(moto)
    let raw = try moto.client(bucket: moto.plainBucket)
    let empty = FileManager.default.temporaryDirectory.appendingPathComponent("s3p-empty-\(UUID().uuidString)")
    try Data().write(to: empty)
    await withThrowingTaskGroup(of: Void.self) { group in
      for i in 0..<1_200 {
        group.addTask {
          _ = try await raw.putObject(
            Array(String(format: "big/f%04d.txt", i).utf8), fromFile: empty.path, size: 0,
            sha256: "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        }
        if i % 8 == 7 { try? await group.waitForAll() }
      }
    }
    for sort in [ItemSort.default, ItemSort(key: .name, ascending: false), ItemSort(key: .size, ascending: true)] {
      let listed = try await names(p, "/big", sort: sort)
      #expect(listed.count == 1_200 && Set(listed).count == 1_200, "\(sort): \(listed.count)")
    }
    #expect(try await names(p, "/big").first == "f0000.txt")
  }

  /// An edit based on a version the store no longer has keeps both: the store's object as it is,
  /// the edit beside it under a conflict name.
  @Test func aStaleReplaceKeepsBothVersions() async throws {
    let moto = try await MotoServer()
    defer { moto.stop() }
    let p = try provider(moto)
    let made = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("plan.txt"), contentType: .plainText), fields: [.contents],
      contents: try file("base"), options: [])
    let other = try provider(moto)
    let theirs = try await other.modifyItem(
      ItemTemplate(made), baseVersion: made.version, changedFields: .contents, contents: try file("theirs"))
    #expect(theirs.uploadingError == nil)
    let mine = try await p.modifyItem(
      ItemTemplate(made), baseVersion: made.version, changedFields: .contents, contents: try file("mine"))
    #expect(mine.uploadingError?.code == .localVersionConflictingWithServer)
    #expect(try await fetch(p, "/plan.txt") == "theirs")
    let all = try await names(p, "/")
    let copy = try #require(all.first { $0.contains("conflict") }, "\(all)")
    #expect(try await fetch(p, "/" + copy) == "mine")
    // Deleted on the store: the core is told, and re-creates.
    try await other.deleteItem(made.identifier, baseVersion: nil, options: [])
    let gone = await #expect(throws: ProviderError.self) {
      _ = try await p.modifyItem(ItemTemplate(made), baseVersion: theirs.version, changedFields: .contents, contents: try file("x"))
    }
    #expect(gone?.code == .noSuchItem)
  }

  /// A multipart upload cut after its first parts resumes: the parts already on the store are
  /// not sent again, and the object has exactly the bytes.
  @Test func aMultipartUploadResumesWithThePartsAlreadySent() async throws {
    let moto = try await MotoServer()
    defer { moto.stop() }
    let p = try provider(moto, threshold: 5 << 20)
    let size = 17 << 20
    var bytes = [UInt8](repeating: 0, count: size)
    for i in stride(from: 0, to: size, by: 4096) { bytes[i] = UInt8(truncatingIfNeeded: i / 4096) }
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("s3p-big-\(UUID().uuidString)")
    try Data(bytes).write(to: url)
    // An earlier attempt (Folio's: the object's SHA-256 in its metadata) sent two parts, then died.
    let raw = try moto.client(bucket: moto.plainBucket)
    let whole = try S3ProviderTestDigest.sha256(url.path, 0..<Int64(size))
    let id = try await raw.createMultipartUpload(Array("big.bin".utf8), metadata: ["folio-sha256": whole])
    for n in 1...2 {
      let range = Int64((n - 1) * (5 << 20))..<Int64(n * (5 << 20))
      let sha = try S3ProviderTestDigest.sha256(url.path, range)
      _ = try await raw.uploadPart(
        Array("big.bin".utf8), uploadID: id, partNumber: n, fromFile: url.path, offset: range.lowerBound,
        length: Int64(range.count), sha256: sha)
    }
    let reported = Reported()
    let made = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("big.bin"), contentType: .data), fields: [.contents],
      contents: url, options: [], progress: { reported.add($0.completedBytes) })
    #expect(made.documentSize == Int64(size))
    #expect(reported.first >= Int64(10 << 20), "the first report counts the parts already sent: \(reported.first)")
    let back = FileManager.default.temporaryDirectory.appendingPathComponent("s3p-back-\(UUID().uuidString)")
    let verified = try await p.fetchVerifiedContents(made.identifier, version: nil, to: back, progress: { _ in })
    #expect(try Data(contentsOf: back) == Data(bytes))
    #expect(verified.digest != nil, "checked against the SHA-256 it was stored with")
    #expect(try await raw.listMultipartUploads().isEmpty)
  }

  /// A versioned bucket has a trash: a delete leaves a marker, Recently Deleted lists it, Put Back
  /// brings the object back as it was, Delete Forever removes every version.
  @Test func aVersionedBucketHasRecentlyDeletedWithPutBackAndDeleteForever() async throws {
    let moto = try await MotoServer()
    defer { moto.stop() }
    let p = S3Provider(
      domain: Self.domain, endpoint: try S3Endpoint(bucket: moto.versionedBucket, region: moto.region, endpoint: moto.endpointURL),
      credentials: moto.credentials, conditionalWrites: .honoured, versioned: true)
    #expect(p.traits.hasTrash)
    let made = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("report.txt"), contentType: .plainText), fields: [.contents],
      contents: try file("the report"), options: [])
    var template = ItemTemplate(made)
    template.parentIdentifier = .trash
    let trashed = try await p.modifyItem(template, baseVersion: made.version, changedFields: .parentItemIdentifier, contents: nil)
    #expect(trashed.isTrashed && trashed.originalPath == ItemPath("/report.txt"), "\(trashed)")
    await #expect(throws: ProviderError.self) { _ = try await p.item(at: ItemPath("/report.txt")) }
    let inTrash = try await p.enumerate(EnumerationRequest(container: .trash, suggestedPageSize: 50), page: nil, progress: { _ in })
    #expect(inTrash.items.map(\.filename) == [ItemName("report.txt")])
    #expect(try await p.item(for: trashed.identifier).isTrashed)

    let back = try await p.restoreItem(trashed.identifier, to: nil)
    #expect(back.path == ItemPath("/report.txt"))
    #expect(try await fetch(p, "/report.txt") == "the report")
    #expect(try await p.enumerate(EnumerationRequest(container: .trash, suggestedPageSize: 50), page: nil, progress: { _ in }).items.isEmpty)

    // Trashed again, then deleted forever: no version of the key is left.
    let again = try await p.modifyItem(template, baseVersion: back.version, changedFields: .parentItemIdentifier, contents: nil)
    try await p.deleteItem(again.identifier, baseVersion: nil, options: [])
    let raw = try moto.client(bucket: moto.versionedBucket)
    #expect(try await raw.listObjectVersions(prefix: Array("report.txt".utf8), delimiter: nil).versions.isEmpty)
    // Delete for good of a live item removes its versions too (not a marker: that is the trash).
    let other = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("gone.txt"), contentType: .plainText), fields: [.contents],
      contents: try file("gone"), options: [])
    try await p.deleteItem(other.identifier, baseVersion: nil, options: [])
    #expect(try await raw.listObjectVersions(prefix: Array("gone.txt".utf8), delimiter: nil).versions.isEmpty)
  }

  @Test func aWrongSecretIsASignInAndTheRightOneWorks() async throws {
    let moto = try await MotoServer()
    defer { moto.stop() }
    let wrong = S3Credentials(accessKeyID: moto.credentials.accessKeyID, secretAccessKey: "not the secret")
    let p = try provider(moto, credentials: wrong)
    let error = await #expect(throws: ProviderError.self) { _ = try await p.item(at: ItemPath("/x")) }
    #expect(error?.code == .notAuthenticated, "\(String(describing: error))")
    #expect(await p.accountStatus() == .needsSignIn(error?.message ?? ""))
    try await p.authenticate(Credentials(user: moto.credentials.accessKeyID, secret: moto.credentials.secretAccessKey))
    #expect(await p.accountStatus() == .online(usedBytes: 0, quotaBytes: nil))
  }

  @Test func aDeadStoreIsUnreachable() async throws {
    let p = S3Provider(
      domain: Self.domain, endpoint: try S3Endpoint(bucket: "b", endpoint: "http://127.0.0.1:9"),
      credentials: S3Credentials(accessKeyID: "a", secretAccessKey: "b"))
    let error = await #expect(throws: ProviderError.self) { _ = try await p.item(at: ItemPath("/x")) }
    #expect(error?.code == .serverUnreachable, "\(String(describing: error))")
  }
}

/// Progress reports, kept in order.
final class Reported: @unchecked Sendable {
  private let lock = NSLock()
  private var values: [Int64] = []
  func add(_ v: Int64) { lock.withLock { values.append(v) } }
  var first: Int64 { lock.withLock { values.first ?? 0 } }
}

enum S3ProviderTestDigest {
  static func sha256(_ path: String, _ range: Range<Int64>) throws -> String {
    try S3Upload.sha256(path, range)
  }
}
