import Foundation
import S3Client

/// One of a ``MotoServer``'s buckets as the S3 tests use it: its endpoint (a provider's), a raw
/// client to look behind the provider's back, `folio domain add --s3` for it, and small text files
/// to upload — the set-up each S3 test used to repeat.
public struct MotoBucket: Sendable {
  public let moto: MotoServer
  public let name: String

  /// moto started (signatures checked) and its unversioned bucket.
  public static func plain() async throws -> MotoBucket {
    let moto = try await MotoServer()
    return MotoBucket(moto: moto, name: moto.plainBucket)
  }

  /// moto started and its versioned bucket, or the unversioned one.
  public static func started(versioned: Bool) async throws -> MotoBucket {
    let moto = try await MotoServer()
    return MotoBucket(moto: moto, name: versioned ? moto.versionedBucket : moto.plainBucket)
  }

  public init(moto: MotoServer, name: String) {
    self.moto = moto
    self.name = name
  }

  /// The endpoint of the bucket, or of its folder `prefix`.
  public func endpoint(prefix: String = "") throws -> S3Endpoint {
    try S3Endpoint(bucket: name, prefix: prefix, region: moto.region, endpoint: moto.endpointURL)
  }

  /// A client of the whole bucket with the server's key.
  public func client() throws -> S3Client { try moto.client(bucket: name) }

  /// `folio domain add LOCATION --s3 s3://BUCKET[/PREFIX] --endpoint … --access-key-id …
  /// --secret-stdin` and what to give it on standard input: the server's secret, or `secret`.
  public func domainAdd(_ location: String, prefix: String = "", secret: String? = nil) -> (arguments: [String], stdin: String) {
    (
      [
        "domain", "add", location, "--s3", "s3://\(name)" + (prefix.isEmpty ? "" : "/\(prefix)"), "--endpoint",
        moto.endpointURL, "--access-key-id", moto.credentials.accessKeyID, "--secret-stdin",
      ],
      (secret ?? moto.credentials.secretAccessKey) + "\n"
    )
  }

  /// A new file in the temporary folder holding `text`.
  public static func textFile(_ text: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("s3-\(UUID().uuidString)")
    try Data(text.utf8).write(to: url)
    return url
  }

  public func stop() { moto.stop() }
}
