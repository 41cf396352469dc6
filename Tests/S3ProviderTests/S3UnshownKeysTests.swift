import Foundation
import ProviderAPI
import S3Client
import S3TestSupport
import TestExecution
import Testing

@testable import S3Provider

/// Keys a bucket holds but a folder cannot show ("a//b", "a/./b", "a/..") never vanish in
/// silence: the folder's listing has a row, listed by name only, that names them, and they stay
/// on the store as they were.
@Suite(.offThePool)
struct S3UnshownKeysTests {
  @Test func keysFolioCannotShowAreSaidAndLeftAsTheyAre() async throws {
    let moto = try await MotoServer()
    defer { moto.stop() }
    let raw = try moto.client(bucket: moto.plainBucket)
    let empty = FileManager.default.temporaryDirectory.appendingPathComponent("s3u-\(UUID().uuidString)")
    try Data().write(to: empty)
    defer { try? FileManager.default.removeItem(at: empty) }
    let keys = ["a/ok.txt", "a//b.txt", "a/./c.txt", "a/../d.txt", "a/.."]
    for key in keys {
      _ = try await raw.putObject(Array(key.utf8), fromFile: empty.path, size: 0, sha256: S3Provider.emptySHA256)
    }
    let p = S3Provider(
      domain: DomainIdentifier(unchecked: "bucket"),
      endpoint: try S3Endpoint(bucket: moto.plainBucket, region: moto.region, endpoint: moto.endpointURL),
      credentials: moto.credentials, conditionalWrites: .honoured)
    let folder = try await p.item(at: ItemPath("/a"))
    let page = try await p.enumerate(
      EnumerationRequest(container: folder.identifier, includeHidden: true, suggestedPageSize: 100, freshness: .current),
      page: nil, progress: { _ in })
    let shown = page.items.filter { $0.metadataError == nil }.map(\.filename.lossyString)
    #expect(shown == ["ok.txt"], "\(page.items.map(\.filename.lossyString))")
    let row = try #require(page.items.first { $0.metadataError != nil }, "the folder says it holds more")
    #expect(row.filename.lossyString == "(4 keys Folio cannot show)")
    let message = row.metadataError?.message ?? ""
    for hidden in ["a//", "a/./", "a/../", "a/.."] { #expect(message.contains("'\(hidden)'"), "\(message)") }
    #expect(row.capabilities.isEmpty && p.path(for: row.identifier) == nil, "no operation reaches those keys through it")
    try? await p.deleteItem(row.identifier, baseVersion: nil, options: .recursive)

    // Neither the listing nor a delete of the row changed anything on the store.
    let all = try await raw.listObjects(prefix: Array("a/".utf8), delimiter: nil)
    #expect(Set(all.objects.map { String(decoding: $0.key, as: UTF8.self) }) == Set(keys))
  }
}
