import Testing

@testable import S3Client

/// Addressing: virtual-host for AWS, path-style for custom endpoints, and the key prefix as a root.
struct S3EndpointTests {
  @Test func awsIsVirtualHostedUnlessTheBucketHasADot() throws {
    let aws = try S3Endpoint(bucket: "photos", region: "eu-west-1")
    #expect(aws.isAWS)
    #expect(aws.addressing == .virtualHost)
    #expect(aws.origin == "https://photos.s3.eu-west-1.amazonaws.com")
    #expect(aws.bucketPath == "/")
    #expect(aws.path(forFullKey: Array("a b/c+d".utf8)) == "/a%20b/c%2Bd")

    let dotted = try S3Endpoint(bucket: "my.photos", region: "us-east-1")
    #expect(dotted.addressing == .pathStyle)
    #expect(dotted.origin == "https://s3.us-east-1.amazonaws.com")
    #expect(dotted.path(forFullKey: Array("k".utf8)) == "/my.photos/k")
  }

  @Test func aCustomEndpointIsPathStyleWithItsPortAndBasePath() throws {
    let minio = try S3Endpoint(bucket: "b", region: "auto", endpoint: "http://127.0.0.1:9000/s3/")
    #expect(!minio.isAWS)
    #expect(minio.addressing == .pathStyle)
    #expect(minio.hostHeader == "127.0.0.1:9000")
    #expect(minio.bucketPath == "/s3/b")
    #expect(minio.path(forFullKey: Array("x/y".utf8)) == "/s3/b/x/y")
    let https = try S3Endpoint(bucket: "b", endpoint: "https://r2.example:443")
    #expect(https.hostHeader == "r2.example")

    #expect(throws: S3Error.self) { try S3Endpoint(bucket: "b", endpoint: "ftp://x") }
    #expect(throws: S3Error.self) { try S3Endpoint(bucket: "b", endpoint: "http://user@host") }
    #expect(throws: S3Error.self) { try S3Endpoint(bucket: "a/b") }
    #expect(throws: S3Error.self) { try S3Endpoint(bucket: "") }
  }

  @Test func thePrefixIsTheRootAndKeysStayInside() throws {
    let endpoint = try S3Endpoint(url: "s3://bucket/photos/2024", endpoint: "http://127.0.0.1:1")
    #expect(endpoint.bucket == "bucket")
    #expect(endpoint.prefix == Array("photos/2024/".utf8))
    #expect(try endpoint.fullKey(Array("a.jpg".utf8)) == Array("photos/2024/a.jpg".utf8))
    #expect(endpoint.relativeKey(Array("photos/2024/a.jpg".utf8)) == Array("a.jpg".utf8))
    #expect(endpoint.relativeKey(Array("photos/2023/a.jpg".utf8)) == nil)
    #expect(try S3Endpoint(url: "s3://bucket").prefix.isEmpty)
  }

  @Test func keysS3CannotCarryAreRefusedBeforeSending() throws {
    let endpoint = try S3Endpoint(bucket: "b", endpoint: "http://127.0.0.1:1")
    for bad: [UInt8] in [
      [], [0x63, 0x61, 0x66, 0xE9], [0xFE], [0xC0, 0xAF], [0xED, 0xA0, 0x80], Array(repeating: 0x61, count: 1025),
    ] {
      let error = #expect(throws: S3Error.self) { try endpoint.fullKey(bad) }
      #expect(error?.code == .invalidArgument)
    }
    #expect(try endpoint.fullKey(Array(repeating: 0x61, count: 1024)).count == 1024)
  }
}
