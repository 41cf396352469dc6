import Foundation
import S3Client
import S3TestSupport
import TestExecution
import TestSupport
import Testing

/// ListObjects v1 for stores without ListObjectsV2: paging by marker against moto (which has
/// both), and the two ways a store says it lacks v2, from a scripted server — an error, or a v1
/// answer to a v2 request — each learnt once and kept.
@Suite(.offThePool)
struct S3ClientListingV1Tests {
  static let credentials = S3Credentials(accessKeyID: "AKIATEST", secretAccessKey: "secret")

  /// Every page of `prefix`, with the requests' tokens.
  func listAll(_ s3: S3Client, _ prefix: String, delimiter: String?) async throws -> (keys: [[UInt8]], folders: [[UInt8]], pages: Int) {
    var (keys, folders, pages) = ([[UInt8]](), [[UInt8]](), 0)
    var token: String?
    repeat {
      let page = try await s3.listObjects(prefix: Array(prefix.utf8), delimiter: delimiter, continuationToken: token)
      (keys, folders, pages) = (keys + page.objects.map(\.key), folders + page.commonPrefixes, pages + 1)
      token = page.isTruncated ? page.nextContinuationToken : nil
      if page.isTruncated { #expect(token?.hasPrefix("m:") == true, "a v1 marker, not a v2 token") }
    } while token != nil && pages < 10
    return (keys, folders, pages)
  }

  @Test func aClientInV1PagesPastAThousandKeysWithFoldersByMarker() async throws {
    let server = try await MotoServer()
    defer { server.stop() }
    let s3 = S3Client(
      endpoint: try S3Endpoint(bucket: server.plainBucket, prefix: "root", region: server.region, endpoint: server.endpointURL),
      credentials: server.credentials, listing: S3ListingDialect(.v1))
    let body = try LocalFile.holding(Array("x".utf8))
    defer { body.remove() }
    let files: [[UInt8]] = (0..<1_050).map { Array(String(format: "big/f%05d", $0).utf8) }
    let nested = ["big/d1/a", "big/d1/b", "big/d2/c", "big/zz/e"].map { Array($0.utf8) }
    try await withThrowingTaskGroup(of: Void.self) { group in
      var pending = (files + nested)[...]
      for _ in 0..<8 {
        guard let key = pending.popFirst() else { break }
        group.addTask { _ = try await s3.putObject(key, fromFile: body.path, size: body.size, sha256: body.sha256) }
      }
      while try await group.next() != nil {
        guard let key = pending.popFirst() else { continue }
        group.addTask { _ = try await s3.putObject(key, fromFile: body.path, size: body.size, sha256: body.sha256) }
      }
    }
    let oneLevel = try await listAll(s3, "big/", delimiter: "/")
    #expect(oneLevel.pages == 2)
    #expect(oneLevel.keys == files, "every key once, in order")
    // moto's v1 repeats every common prefix on each page (AWS pages them with the keys).
    #expect(Set(oneLevel.folders) == Set(["big/d1/", "big/d2/", "big/zz/"].map { Array($0.utf8) }))
    // Without a delimiter a v1 page names no NextMarker: the last key is the marker.
    let deep = try await listAll(s3, "big/", delimiter: nil)
    #expect(deep.pages == 2 && deep.folders.isEmpty)
    #expect(deep.keys == (files + nested).sorted { $0.lexicographicallyPrecedes($1) })
    #expect(s3.listing.version == .v1)
  }

  static func v1Page(keys: [String], truncated: Bool, nextMarker: String?) -> String {
    let contents = keys.map {
      "<Contents><Key>\($0)</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><ETag>\"e\"</ETag><Size>1</Size></Contents>"
    }.joined()
    return "<ListBucketResult><Name>b</Name><Prefix></Prefix><Marker></Marker>"
      + (nextMarker.map { "<NextMarker>\($0)</NextMarker>" } ?? "")
      + "<MaxKeys>1000</MaxKeys><IsTruncated>\(truncated)</IsTruncated>\(contents)</ListBucketResult>"
  }

  /// A v1 store's answer to a request: page one, or page two after the marker `a2`.
  static func v1Answer(_ target: String) -> [UInt8] {
    target.contains("marker=a2")
      ? ScriptedHTTPServer.answer("200 OK", xml: v1Page(keys: ["b1"], truncated: false, nextMarker: nil))
      : ScriptedHTTPServer.answer("200 OK", xml: v1Page(keys: ["a1", "a2"], truncated: true, nextMarker: nil))
  }

  @Test(arguments: [
    ("501 Not Implemented", "<Error><Code>NotImplemented</Code><Message>A header you provided implies functionality that is not implemented</Message></Error>"),
    ("400 Bad Request", "<Error><Code>XNotImplemented</Code><Message>list-type</Message></Error>"),
  ])
  func aStoreThatRefusesV2IsListedWithV1FromThenOn(_ status: String, _ refusal: String) async throws {
    let server = try ScriptedHTTPServer { request, _ in
      request.target.contains("list-type=2") ? ScriptedHTTPServer.answer(status, xml: refusal) : Self.v1Answer(request.target)
    }
    defer { server.stop() }
    let listing = S3ListingDialect()
    let s3 = S3Client(endpoint: try S3Endpoint(bucket: "b", endpoint: server.endpoint), credentials: Self.credentials, listing: listing)
    let first = try await listAll(s3, "", delimiter: nil)
    #expect(first.keys == ["a1", "a2", "b1"].map { Array($0.utf8) })
    #expect(listing.version == .v1)
    // Another client of the same location asks v1 straight away.
    let other = S3Client(endpoint: try S3Endpoint(bucket: "b", endpoint: server.endpoint), credentials: Self.credentials, listing: listing)
    _ = try await listAll(other, "", delimiter: nil)
    let targets = server.requests.map(\.target)
    #expect(targets.filter { $0.contains("list-type=2") }.count == 1, "\(targets)")
    #expect(targets.count == 5, "one refused v2, then two v1 pages per listing: \(targets)")
  }

  @Test func aStoreThatAnswersV2WithAV1PageIsPagedByMarker() async throws {
    let server = try ScriptedHTTPServer { request, _ in Self.v1Answer(request.target) }
    defer { server.stop() }
    let s3 = S3Client(endpoint: try S3Endpoint(bucket: "b", endpoint: server.endpoint), credentials: Self.credentials)
    let all = try await listAll(s3, "", delimiter: nil)
    #expect(all.keys == ["a1", "a2", "b1"].map { Array($0.utf8) }, "not the first page over and over")
    #expect(s3.listing.version == .v1)
    #expect(server.requests.count == 2 && server.requests[1].target.contains("marker=a2"), "\(server.requests.map(\.target))")
  }

  @Test func anErrorThatIsNotAboutV2IsNotLearnt() async throws {
    let server = try ScriptedHTTPServer { _, _ in
      ScriptedHTTPServer.answer("403 Forbidden", xml: "<Error><Code>AccessDenied</Code><Message>no</Message></Error>")
    }
    defer { server.stop() }
    let s3 = S3Client(endpoint: try S3Endpoint(bucket: "b", endpoint: server.endpoint), credentials: Self.credentials)
    await #expect(throws: S3Error.self) { _ = try await s3.listObjects() }
    #expect(s3.listing.version == .v2 && server.requests.count == 1)
  }
}
