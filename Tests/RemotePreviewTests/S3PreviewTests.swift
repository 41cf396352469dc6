import Foundation
import ProviderAPI
import ProviderCore
import S3Client
import S3Provider
import S3TestSupport
import TestExecution
import Testing
import TestSupport

/// Previews of objects that are not downloaded: on moto (every signature checked) through a
/// ``CountingProxy``, and on a store that ignores Range.
@Suite(.offThePool)
struct S3PreviewTests {
  static let domain = DomainIdentifier(unchecked: "bucket")

  func provider(endpoint: String, bucket: String, region: String, credentials: S3Credentials) throws -> S3Provider {
    S3Provider(
      domain: Self.domain, endpoint: try S3Endpoint(bucket: bucket, prefix: "", region: region, endpoint: endpoint),
      credentials: credentials, conditionalWrites: .honoured, multipartThreshold: 64 << 20, partSize: 5 << 20)
  }

  /// Issue 12: a HEAD and one GET with `Range: bytes=0-65535` (moto answers 206, its log says),
  /// 64 KiB and the heads relayed, the head exact, the object still not downloaded.
  @Test func anObjectNotDownloadedIsPreviewedFromOneRangedRead() async throws {
    let moto = try await MotoServer()
    defer { moto.stop() }
    let proxy = try CountingProxy(upstreamPort: moto.port)
    defer { proxy.stop() }
    let side = try PreviewSide()
    let data = randomBytes(1 << 20, seed: 53)
    let direct = try provider(
      endpoint: moto.endpointURL, bucket: moto.plainBucket, region: moto.region, credentials: moto.credentials)
    _ = try await direct.createItem(
      ItemTemplate(parentIdentifier: .root, filename: ItemName("big.bin"), contentType: .data), fields: [.contents],
      contents: try localFile(data, in: side), options: [])
    let viewer = try provider(
      endpoint: "http://127.0.0.1:\(proxy.port)", bucket: moto.plainBucket, region: moto.region, credentials: moto.credentials)
    let item = try await viewer.item(at: ItemPath("/big.bin"))
    proxy.reset()
    let domain = side.domain(viewer, Self.domain)

    let head = try await side.head(of: item, in: domain)

    try side.expectRemoteHead(head, of: data, item: item, in: domain)
    #expect(gets(proxy.requests) == ["bytes=0-65535"], "\(proxy.requests)")
    #expect(proxy.bytesToClient <= PreviewReader.headLimit + answerOverhead, "\(proxy.bytesToClient) bytes relayed")
    #expect(moto.log.contains("\"GET /\(moto.plainBucket)/big.bin HTTP/1.1\" 206"), "\(moto.log)")
  }

  /// A store that answers a ranged GET with 200 and the whole object: the client refuses it before
  /// a byte is written and drops the connection — the preview says why, at once, while the rest of
  /// the body is still held back, and nothing is left behind.
  @Test func aStoreIgnoringRangeIsRefusedWithoutReadingTheBody() async throws {
    let data = randomBytes(4 << 20, seed: 59)
    let server = try RangeIgnoringServer(bytes: data)
    defer { server.stop() }
    let side = try PreviewSide()
    let viewer = try provider(
      endpoint: server.endpoint, bucket: "b", region: "us-east-1",
      credentials: S3Credentials(accessKeyID: "AKIAFOLIOTESTS000000", secretAccessKey: "not checked"))
    let item = try await viewer.item(at: ItemPath("/big.bin"))
    #expect(item.documentSize == Int64(data.count))
    let domain = side.domain(viewer, Self.domain)

    try await server.expectPreviewRefused(item, in: domain, by: side)
  }
}
