import Foundation

/// Where a bucket is and how to address it: the bucket, an optional key prefix that is the
/// location's root, the region, and the server.
///
/// - AWS (no endpoint given): `https://BUCKET.s3.REGION.amazonaws.com/KEY`, virtual-hosted, as AWS
///   asks. A bucket name with a dot is addressed path-style instead: `a.b.s3…` does not match the
///   certificate's `*.s3.REGION.amazonaws.com` (what the AWS SDKs do too).
/// - A custom endpoint (MinIO, Ceph, R2, moto, …): `ENDPOINT/BUCKET/KEY`, path-style, as rclone
///   forces for every non-AWS provider (docs/remote-providers.md §3.1). `addressing` overrides both.
///
/// Keys given to ``S3Client`` are relative to `prefix`; the client adds it on the way out and
/// removes it from what listings return, so a location rooted at `photos/` never reaches outside.
public struct S3Endpoint: Sendable, Equatable {
  public enum Addressing: String, Sendable, Equatable {
    /// `host/bucket/key`.
    case pathStyle
    /// `bucket.host/key`.
    case virtualHost
  }

  public var bucket: String
  /// Bytes before every key: empty, or a folder ending in `/`.
  public private(set) var prefix: [UInt8]
  public var region: String
  public var scheme: String
  public var host: String
  public var port: Int?
  /// A path the server is mounted under (`/s3` in `https://host/s3`), percent-encoded, no final `/`.
  public var basePath: String
  public var addressing: Addressing
  /// Whether the endpoint is AWS's own (no custom endpoint was given).
  public let isAWS: Bool

  /// - Parameters:
  ///   - bucket: The bucket's name.
  ///   - prefix: The location's root inside the bucket (`photos` or `photos/`); `/` is added when missing.
  ///   - region: The signing region: `us-east-1` when not known; `auto` for Cloudflare R2.
  ///   - endpoint: A custom server (`http://127.0.0.1:9000`, `https://ACCOUNT.r2.cloudflarestorage.com`).
  ///   - addressing: Overrides the default addressing for the endpoint.
  /// - Throws: ``S3Error`` `.invalidArgument` for a bucket name or endpoint that cannot be used.
  public init(
    bucket: String, prefix: String = "", region: String = "us-east-1", endpoint: String? = nil,
    addressing: Addressing? = nil
  ) throws {
    guard !bucket.isEmpty, bucket.utf8.count <= 255,
      bucket.utf8.allSatisfy({ S3URIEncoding.isUnreserved($0) && $0 != UInt8(ascii: "~") })
    else {
      throw S3Error(.invalidArgument, "\(S3DisplayText.escape(Array(bucket.utf8))) is not a bucket name")
    }
    guard !region.isEmpty, region.utf8.allSatisfy(S3URIEncoding.isUnreserved) else {
      throw S3Error(.invalidArgument, "\(S3DisplayText.escape(Array(region.utf8))) is not a region")
    }
    self.bucket = bucket
    self.region = region
    var rootPrefix = Array(prefix.utf8)
    while rootPrefix.first == UInt8(ascii: "/") { rootPrefix.removeFirst() }
    if !rootPrefix.isEmpty && rootPrefix.last != UInt8(ascii: "/") { rootPrefix.append(UInt8(ascii: "/")) }
    self.prefix = rootPrefix

    if let endpoint {
      let parsed = try Self.parse(endpoint: endpoint)
      (scheme, host, port, basePath) = parsed
      isAWS = false
      self.addressing = addressing ?? .pathStyle
    } else {
      scheme = "https"
      host = region.hasPrefix("cn-") ? "s3.\(region).amazonaws.com.cn" : "s3.\(region).amazonaws.com"
      port = nil
      basePath = ""
      isAWS = true
      self.addressing = addressing ?? (bucket.contains(".") ? .pathStyle : .virtualHost)
    }
  }

  /// An `s3://BUCKET[/PREFIX]` address, as the AWS CLI writes them.
  public init(
    url: String, region: String = "us-east-1", endpoint: String? = nil, addressing: Addressing? = nil
  ) throws {
    guard url.hasPrefix("s3://") else {
      throw S3Error(.invalidArgument, "\(S3DisplayText.escape(Array(url.utf8))) is not an s3:// address")
    }
    let rest = url.dropFirst(5)
    let bucket = rest.prefix { $0 != "/" }
    let prefix = rest.dropFirst(bucket.count).drop { $0 == "/" }
    try self.init(
      bucket: String(bucket), prefix: String(prefix), region: region, endpoint: endpoint, addressing: addressing)
  }

  /// The `Host` header: the host (with the bucket in front when virtual-hosted) and a non-default port.
  var hostHeader: String {
    let name = addressing == .virtualHost ? "\(bucket).\(host)" : host
    guard let port, port != (scheme == "https" ? 443 : 80) else { return name }
    return "\(name):\(port)"
  }

  /// `scheme://host[:port]` for the request's URL.
  var origin: String { "\(scheme)://\(hostHeader)" }

  /// The encoded path of the bucket itself (for listings and bucket settings).
  var bucketPath: String {
    addressing == .pathStyle ? "\(basePath)/\(bucket)" : "\(basePath)/"
  }

  /// The encoded path of a full key (prefix included): every byte but the unreserved ones and `/`
  /// is percent-encoded, once; nothing is normalised (`a//b` and `a/../b` are keys of their own).
  func path(forFullKey key: [UInt8]) -> String {
    let encoded = S3URIEncoding.encode(key, keepSlash: true)
    return addressing == .pathStyle ? "\(basePath)/\(bucket)/\(encoded)" : "\(basePath)/\(encoded)"
  }

  /// The full key for a key relative to the root, after checking S3 can carry it.
  func fullKey(_ relative: [UInt8]) throws -> [UInt8] {
    let key = prefix + relative
    try S3URIEncoding.validate(key: key)
    return key
  }

  /// The key relative to the root; nil when `full` is outside it.
  func relativeKey(_ full: [UInt8]) -> [UInt8]? {
    guard full.starts(with: prefix) else { return nil }
    return Array(full[prefix.count...])
  }

  private static func parse(endpoint: String) throws -> (String, String, Int?, String) {
    func refuse(_ why: String) -> S3Error {
      S3Error(.invalidArgument, "the endpoint \(S3DisplayText.escape(Array(endpoint.utf8))) \(why)")
    }
    guard let schemeEnd = endpoint.range(of: "://") else { throw refuse("needs http:// or https://") }
    let scheme = endpoint[..<schemeEnd.lowerBound].lowercased()
    guard scheme == "http" || scheme == "https" else { throw refuse("needs http:// or https://") }
    let afterScheme = endpoint[schemeEnd.upperBound...]
    let authority = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
    var path = String(afterScheme.dropFirst(authority.count))
    guard !path.contains("?"), !path.contains("#") else { throw refuse("may not have a query") }
    while path.hasSuffix("/") { path.removeLast() }
    guard !authority.isEmpty, !authority.contains("@") else { throw refuse("needs a host (and no user name)") }
    var host = String(authority)
    var port: Int?
    if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
      guard let number = Int(authority[authority.index(after: colon)...]), (1...65535).contains(number) else {
        throw refuse("has a bad port")
      }
      port = number
      host = String(authority[..<colon])
    }
    guard !host.isEmpty else { throw refuse("needs a host") }
    return (scheme, host, port, path)
  }
}
