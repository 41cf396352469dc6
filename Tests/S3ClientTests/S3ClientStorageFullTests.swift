import Foundation
import S3Client
import TestExecution
import TestSupport
import Testing

/// A full store or a bucket over its quota, as the vendors that have such codes send it: an error
/// with the code `insufficientStorage`, never a sign-in (Ceph says it with a 403) nor a retry.
@Suite(.offThePool)
struct S3ClientStorageFullTests {
  static let credentials = S3Credentials(accessKeyID: "AKIATEST", secretAccessKey: "secret")

  static func errorBody(_ code: String, _ message: String) -> String {
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>\(code)</Code><Message>\(message)</Message></Error>"
  }

  /// (status line, `<Code>` or nil for a bare status).
  static let answers: [(String, String?)] = [
    ("507 Insufficient Storage", "XMinioStorageFull"),
    ("400 Bad Request", "XMinioAdminBucketQuotaExceeded"),
    ("403 Forbidden", "QuotaExceeded"),
    ("507 Insufficient Storage", nil),
    ("507 Insufficient Storage", "SomethingElse"),
  ]

  @Test(arguments: answers)
  func aFullStoreIsInsufficientStorage(_ status: String, _ code: String?) async throws {
    let server = try ScriptedHTTPServer { _, _ in
      code.map { ScriptedHTTPServer.answer(status, xml: Self.errorBody($0, "no space left")) }
        ?? ScriptedHTTPServer.answer(status)
    }
    defer { server.stop() }
    let client = S3Client(endpoint: try S3Endpoint(bucket: "b", endpoint: server.endpoint), credentials: Self.credentials)
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("s3full-\(UUID().uuidString)")
    try Data("x".utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let error = await #expect(throws: S3Error.self) {
      _ = try await client.putObject(
        Array("a.txt".utf8), fromFile: file.path, size: 1,
        sha256: "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881")
    }
    #expect(error?.code == .insufficientStorage, "\(String(describing: error))")
    #expect(error?.isRetryable == false && error?.needsSignIn == false)
  }
}
