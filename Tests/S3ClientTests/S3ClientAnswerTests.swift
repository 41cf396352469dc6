import Foundation
import S3Client
import TestExecution
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Answers a real S3 can give and moto does not, from a scripted loopback server: each must be an
/// error with its code, never a success (docs/remote-providers.md §7, trap 3).
@Suite(.offThePool)
struct S3ClientAnswerTests {
  static let credentials = S3Credentials(accessKeyID: "AKIATEST", secretAccessKey: "secret")

  func client(_ server: ScriptedHTTPServer, prefix: String = "") throws -> S3Client {
    S3Client(
      endpoint: try S3Endpoint(bucket: "b", prefix: prefix, endpoint: server.endpoint), credentials: Self.credentials)
  }

  static let internalError = """
    <?xml version="1.0" encoding="UTF-8"?>
    <Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message><RequestId>R1</RequestId></Error>
    """

  @Test func anErrorInsideA200CopyIsAnError() async throws {
    let server = try ScriptedHTTPServer { _, _ in ScriptedHTTPServer.answer("200 OK", xml: Self.internalError) }
    defer { server.stop() }
    let error = await #expect(throws: S3Error.self) {
      try await client(server).copyObject(from: Array("a".utf8), to: Array("b c".utf8))
    }
    #expect(error?.code == .serviceUnavailable)
    #expect(error?.isRetryable == true)
    #expect(error?.serverCode == "InternalError")
    #expect(error?.requestID == "R1")
    let request = try #require(server.requests.first)
    #expect(request.method == "PUT")
    #expect(request.target == "/b/b%20c")
    #expect(request.headers["x-amz-copy-source"] == "/b/a")
  }

  @Test func aCopySendsItsSourceEncodedWithItsConditions() async throws {
    let answer = "<CopyObjectResult><ETag>\"e\"</ETag></CopyObjectResult>"
    let server = try ScriptedHTTPServer { _, _ in
      ScriptedHTTPServer.answer("200 OK", headers: [("x-amz-version-id", "v2")], xml: answer)
    }
    defer { server.stop() }
    let result = try await client(server, prefix: "p").copyObject(
      from: Array("a b+c/é%?".utf8), sourceVersionID: "v/1", to: Array("d".utf8), sourceIfMatch: "\"s\"",
      condition: .ifNoneMatch, metadata: ["folio-sha256": "abc"])
    #expect(result.etag == "\"e\"" && result.versionID == "v2")
    let request = try #require(server.requests.first)
    #expect(request.headers["x-amz-copy-source"] == "/b/p/a%20b%2Bc/%C3%A9%25%3F?versionId=v%2F1")
    #expect(request.headers["x-amz-copy-source-if-match"] == "\"s\"")
    #expect(request.headers["if-none-match"] == "*")
    #expect(request.headers["x-amz-metadata-directive"] == "REPLACE")
    #expect(request.headers["x-amz-meta-folio-sha256"] == "abc")
    #expect(request.target == "/b/p/d")
  }

  @Test func anErrorInsideA200CompletionIsAnError() async throws {
    let server = try ScriptedHTTPServer { _, _ in ScriptedHTTPServer.answer("200 OK", xml: Self.internalError) }
    defer { server.stop() }
    let error = await #expect(throws: S3Error.self) {
      try await client(server).completeMultipartUpload(
        Array("k".utf8), uploadID: "u/1+2", parts: [S3UploadedPart(partNumber: 1, etag: "\"e\"")])
    }
    #expect(error?.code == .serviceUnavailable)
    let request = try #require(server.requests.first)
    #expect(request.target == "/b/k?uploadId=u%2F1%2B2")
    #expect(String(decoding: request.body, as: UTF8.self).contains("<ETag>&quot;e&quot;</ETag>"))
  }

  @Test func aRangeTheServerIgnoredWritesNothing() async throws {
    let body = Array(repeating: UInt8(ascii: "x"), count: 100)
    let server = try ScriptedHTTPServer { _, index in
      // The whole object; then a 200 that names the range but is not a partial answer.
      index == 0
        ? ScriptedHTTPServer.answer("200 OK", headers: [("ETag", "\"e\"")], body: body)
        : ScriptedHTTPServer.answer(
          "200 OK", headers: [("ETag", "\"e\""), ("Content-Range", "bytes 10-19/100")], body: Array(body[10...19]))
    }
    defer { server.stop() }
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("folio-s3-range-\(UUID())").path
    let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
    defer {
      close(fd)
      unlink(path)
    }
    let error = await #expect(throws: S3Error.self) {
      try await client(server).getObject(Array("k".utf8), range: S3ByteRange(start: 10, end: 19), to: fd)
    }
    #expect(error?.code == .malformed)
    let second = await #expect(throws: S3Error.self) {
      try await client(server).getObject(Array("k".utf8), range: S3ByteRange(start: 10, end: 19), to: fd)
    }
    #expect(second?.code == .malformed)
    #expect(lseek(fd, 0, SEEK_END) == 0)
    #expect(server.requests.map { $0.headers["range"] } == ["bytes=10-19", "bytes=10-19"])
  }

  @Test func aBodyShorterThanAnnouncedIsNotADownload() async throws {
    let server = try ScriptedHTTPServer { _, _ in
      ScriptedHTTPServer.answer(
        "200 OK", headers: [("ETag", "\"e\"")], body: Array(repeating: 1, count: 10), contentLength: 50)
    }
    defer { server.stop() }
    let fd = open("/dev/null", O_WRONLY)
    defer { close(fd) }
    let error = await #expect(throws: S3Error.self) { try await client(server).getObject(Array("k".utf8), to: fd) }
    #expect(error?.code == .transport || error?.code == .malformed)
  }

  @Test func brokenListingsAreErrorsNotShorterListings() async throws {
    let truncatedWithoutToken = """
      <ListBucketResult><Name>b</Name><Prefix>d%2F</Prefix><EncodingType>url</EncodingType><IsTruncated>true</IsTruncated>
      <Contents><Key>d/a</Key><Size>1</Size><ETag>"e"</ETag></Contents></ListBucketResult>
      """
    let outsidePrefix = """
      <ListBucketResult><EncodingType>url</EncodingType><IsTruncated>false</IsTruncated>
      <Contents><Key>d/a</Key><Size>1</Size><ETag>"e"</ETag></Contents>
      <Contents><Key>e/..%2Fescape</Key><Size>1</Size><ETag>"e"</ETag></Contents></ListBucketResult>
      """
    let notXML = "<ListBucketResult><Contents><Key>d/a"
    let answers = [truncatedWithoutToken, outsidePrefix, notXML]
    let server = try ScriptedHTTPServer { _, index in ScriptedHTTPServer.answer("200 OK", xml: answers[index]) }
    defer { server.stop() }
    for _ in answers {
      let error = await #expect(throws: S3Error.self) { try await client(server).listObjects(prefix: Array("d/".utf8)) }
      #expect(error?.code == .malformed)
    }
    #expect(server.requests.first?.target == "/b?delimiter=%2F&encoding-type=url&list-type=2&max-keys=1000&prefix=d%2F")
  }

  @Test func keysReachTheWireEncodedOnceAndNotNormalised() async throws {
    let server = try ScriptedHTTPServer { _, _ in ScriptedHTTPServer.answer("204 No Content") }
    defer { server.stop() }
    let s3 = try client(server, prefix: "root")
    let keys = ["a/../b", "./c", "d//e", ".", "..", "f g+h%i?j#k", "\u{1}\u{7F}é"]
    for key in keys { _ = try await s3.deleteObject(Array(key.utf8)) }
    #expect(
      server.requests.map(\.target) == [
        "/b/root/a/../b", "/b/root/./c", "/b/root/d//e", "/b/root/.", "/b/root/..", "/b/root/f%20g%2Bh%25i%3Fj%23k",
        "/b/root/%01%7F%C3%A9",
      ])
  }

  @Test func aSkewedClockIsLearntFromTheServersDateAndTheRequestSentAgain() async throws {
    let hourAhead = Date().addingTimeInterval(3600)
    var parts = tm()
    var seconds = time_t(hourAhead.timeIntervalSince1970)
    gmtime_r(&seconds, &parts)
    var buffer = [UInt8](repeating: 0, count: 64)
    let length = buffer.withUnsafeMutableBufferPointer { raw in
      raw.withMemoryRebound(to: CChar.self) { strftime($0.baseAddress, 64, "%a, %d %b %Y %H:%M:%S GMT", &parts) }
    }
    let date = String(decoding: buffer[..<length], as: UTF8.self)
    let server = try ScriptedHTTPServer { _, index in
      index == 0
        ? ScriptedHTTPServer.answer(
          "403 Forbidden", headers: [("Date", date)],
          xml: "<Error><Code>RequestTimeTooSkewed</Code><Message>The difference is too large.</Message></Error>")
        : ScriptedHTTPServer.answer("204 No Content")
    }
    defer { server.stop() }
    let s3 = try client(server)
    _ = try await s3.deleteObject(Array("k".utf8))
    #expect(server.requests.count == 2)
    #expect(abs(s3.clockOffset - 3600) < 120)
    let sentDates = server.requests.compactMap { $0.headers["x-amz-date"] }
    #expect(sentDates.count == 2 && sentDates[0] < sentDates[1])
  }

  @Test func aWrongRegionSaysWhereTheBucketIs() async throws {
    let server = try ScriptedHTTPServer { _, _ in
      ScriptedHTTPServer.answer("301 Moved Permanently", headers: [("x-amz-bucket-region", "eu-central-1")])
    }
    defer { server.stop() }
    let error = await #expect(throws: S3Error.self) { try await client(server).headObject(Array("k".utf8)) }
    #expect(error?.code == .wrongRegion)
    #expect(error?.message.contains("eu-central-1") == true)
  }

  @Test func aServerThatIsNotThereIsATransportError() async throws {
    let port = try ScriptedHTTPServer { _, _ in [] }
    let endpoint = port.endpoint
    port.stop()
    let s3 = S3Client(endpoint: try S3Endpoint(bucket: "b", endpoint: endpoint), credentials: Self.credentials)
    let error = await #expect(throws: S3Error.self) { try await s3.listObjects() }
    #expect(error?.code == .transport)
    #expect(error?.isRetryable == true)
  }
}
