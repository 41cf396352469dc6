import Foundation
import ProviderAPI
import S3Client
import TestExecution
import TestSupport
import Testing

@testable import S3Provider

/// A store that says it is full: the upload fails with `insufficientQuota` — what WebDAV's 507
/// gives — so the core latches it and the location reads over quota, instead of retrying or
/// asking for a sign-in (Ceph says "full" with a 403).
@Suite(.offThePool)
struct S3StorageFullTests {
  static let emptyListing = """
    <?xml version="1.0" encoding="UTF-8"?>
    <ListBucketResult><Name>b</Name><Prefix></Prefix><KeyCount>0</KeyCount><MaxKeys>1</MaxKeys><IsTruncated>false</IsTruncated></ListBucketResult>
    """

  @Test(arguments: [("507 Insufficient Storage", "XMinioStorageFull"), ("403 Forbidden", "QuotaExceeded")])
  func anUploadToAFullStoreIsInsufficientQuota(_ status: String, _ code: String) async throws {
    let server = try ScriptedHTTPServer { request, _ in
      switch request.method {
      case "HEAD": ScriptedHTTPServer.answer("404 Not Found")
      case "GET": ScriptedHTTPServer.answer("200 OK", xml: Self.emptyListing)
      default:
        ScriptedHTTPServer.answer(
          status, xml: "<Error><Code>\(code)</Code><Message>Storage backend is full</Message></Error>")
      }
    }
    defer { server.stop() }
    let p = S3Provider(
      domain: DomainIdentifier(unchecked: "full"), endpoint: try S3Endpoint(bucket: "b", endpoint: server.endpoint),
      credentials: S3Credentials(accessKeyID: "AKIATEST", secretAccessKey: "secret"), conditionalWrites: .honoured)
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("s3full-\(UUID().uuidString)")
    try Data("bytes".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let error = await #expect(throws: ProviderError.self) {
      _ = try await p.createItem(
        ItemTemplate(parentIdentifier: .root, filename: ItemName("a.txt"), contentType: .plainText), fields: [.contents],
        contents: file, options: [])
    }
    #expect(error?.code == .insufficientQuota, "\(String(describing: error))")
    #expect(error?.isResolvable == true, "the core latches it until space is freed")
    #expect(server.requests.contains { $0.method == "PUT" })
  }
}
