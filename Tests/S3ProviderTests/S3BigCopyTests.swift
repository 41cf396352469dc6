import Foundation
import ProviderAPI
import S3Client
import S3TestSupport
import TestExecution
import Testing

@testable import S3Provider

/// An object above CopyObject's limit (5 GiB on S3; lowered here to 5 MiB) is renamed through a
/// multipart upload of UploadPartCopy ranges: the bytes, and the SHA-256 Folio stored with them,
/// arrive under the new name, and no upload is left pending.
@Suite(.offThePool)
struct S3BigCopyTests {
  @Test func aRenameAboveTheCopyLimitGoesInPartsWithItsChecksum() async throws {
    let moto = try await MotoServer()
    defer { moto.stop() }
    let p = S3Provider(
      domain: DomainIdentifier(unchecked: "bucket"),
      endpoint: try S3Endpoint(bucket: moto.plainBucket, prefix: "", region: moto.region, endpoint: moto.endpointURL),
      credentials: moto.credentials, conditionalWrites: .honoured, multipartThreshold: 64 << 20, partSize: 5 << 20,
      copyPartThreshold: 5 << 20, copyPartSize: 5 << 20)
    let bytes = (0..<(12 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 40_503 >> 5) }
    let local = FileManager.default.temporaryDirectory.appendingPathComponent("s3big-\(UUID().uuidString)")
    try Data(bytes).write(to: local)
    defer { try? FileManager.default.removeItem(at: local) }
    let made = try await p.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("video.bin"), contentType: .data), fields: [.contents],
      contents: local, options: [])
    var template = ItemTemplate(made)
    template.filename = ItemName("film.bin")
    let renamed = try await p.modifyItem(template, baseVersion: made.version, changedFields: .filename, contents: nil)
    let etag = String(data: renamed.version.content, encoding: .utf8) ?? ""
    #expect(etag.hasSuffix("-3\""), "copied as a 3-part upload: \(etag)")
    let back = FileManager.default.temporaryDirectory.appendingPathComponent("s3big-back-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: back) }
    let fetched = try await p.fetchVerifiedContents(renamed.identifier, version: nil, to: back, progress: { _ in })
    #expect(fetched.digest != nil, "the SHA-256 Folio stored came along")
    #expect(try Data(contentsOf: back) == Data(bytes))
    await #expect(throws: ProviderError.self) { _ = try await p.item(at: ItemPath("/video.bin")) }
    #expect(try await moto.client(bucket: moto.plainBucket).listMultipartUploads().isEmpty)
  }
}
