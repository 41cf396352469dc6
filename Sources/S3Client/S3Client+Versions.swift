import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A bucket's versioning state (GetBucketVersioning).
public enum S3Versioning: String, Sendable, Equatable {
  /// Never turned on: a delete is for good.
  case unversioned
  /// Every write keeps the previous version; a delete leaves a delete marker (Recently Deleted).
  case enabled
  /// Was on: old versions stay, new writes replace the `null` version.
  case suspended
}

/// One version or delete marker of ListObjectVersions.
public struct S3ObjectVersion: Sendable, Equatable {
  /// Relative to the endpoint's prefix.
  public var key: [UInt8]
  public var versionID: String
  public var isLatest: Bool
  /// A delete marker: the key looks deleted while this is the latest; deleting this version restores it.
  public var isDeleteMarker: Bool
  /// Nil for a delete marker.
  public var etag: String?
  /// Nil for a delete marker.
  public var size: Int64?
  public var lastModified: Date?
}

/// One page of ListObjectVersions, entries in the server's order (by key, newest first).
public struct S3VersionPage: Sendable, Equatable {
  public var versions: [S3ObjectVersion]
  public var commonPrefixes: [[UInt8]]
  public var isTruncated: Bool
  /// Relative; with ``nextVersionIDMarker``, where the next page starts.
  public var nextKeyMarker: [UInt8]?
  public var nextVersionIDMarker: String?
}

extension S3Client {
  /// GetBucketVersioning.
  public func bucketVersioning() async throws -> S3Versioning {
    let root = try await sendForXML(
      Request(
        method: .GET, path: endpoint.bucketPath, query: [("versioning", "")],
        context: "reading the versioning of \(endpoint.bucket)"))
    switch root.string("Status") {
    case "Enabled": return .enabled
    case "Suspended": return .suspended
    default: return .unversioned
    }
  }

  /// ListObjectVersions: versions and delete markers under `prefix`.
  ///
  /// Keys are asked for URL-encoded; a server that ignores that (moto 5.2.1 does, and does not
  /// echo `EncodingType`) is read as plain text.
  public func listObjectVersions(
    prefix: [UInt8] = [], delimiter: String? = "/", keyMarker: [UInt8]? = nil, versionIDMarker: String? = nil,
    maxKeys: Int = 1000
  ) async throws -> S3VersionPage {
    let fullPrefix = endpoint.prefix + prefix
    guard S3URIEncoding.isUTF8(fullPrefix) else {
      throw S3Error(.invalidArgument, "the prefix \(display(fullPrefix)) is not UTF-8 text")
    }
    var query: [(name: String, value: String)] = [
      ("versions", ""), ("encoding-type", "url"), ("max-keys", String(min(max(maxKeys, 1), 1000))),
    ]
    if !fullPrefix.isEmpty { query.append(("prefix", String(decoding: fullPrefix, as: UTF8.self))) }
    if let delimiter { query.append(("delimiter", delimiter)) }
    if let keyMarker { query.append(("key-marker", String(decoding: try endpoint.fullKey(keyMarker), as: UTF8.self))) }
    if let versionIDMarker { query.append(("version-id-marker", versionIDMarker)) }
    let context = "listing the versions under \(display(fullPrefix))"
    let root = try await sendForXML(Request(method: .GET, path: endpoint.bucketPath, query: query, context: context))
    guard root.name == "ListVersionsResult" else { throw S3Error.malformed("\(context): a \(root.name)") }

    let keys = KeyReader(
      encoded: root.string("EncodingType") == "url", endpoint: endpoint, prefix: fullPrefix, context: context)
    var page = S3VersionPage(versions: [], commonPrefixes: [], isTruncated: root.string("IsTruncated") == "true")
    for entry in root.children where entry.name == "Version" || entry.name == "DeleteMarker" {
      let isMarker = entry.name == "DeleteMarker"
      guard let key = try keys.relative(entry.string("Key")), let id = entry.string("VersionId") else {
        throw S3Error.malformed("\(context): a version without its key or id")
      }
      let size = entry.string("Size").flatMap { Int64($0) }
      let etag = entry.string("ETag")
      if !isMarker && (size == nil || etag == nil) {
        throw S3Error.malformed("\(context): a version without its size or ETag")
      }
      page.versions.append(
        S3ObjectVersion(
          key: key, versionID: id, isLatest: entry.string("IsLatest") == "true", isDeleteMarker: isMarker, etag: etag,
          size: size, lastModified: entry.string("LastModified").flatMap(S3Date.parseISO8601)))
    }
    for common in root.children("CommonPrefixes") {
      guard let folder = try keys.relative(common.string("Prefix")) else {
        throw S3Error.malformed("\(context): a common prefix without its text")
      }
      page.commonPrefixes.append(folder)
    }
    if page.isTruncated {
      guard let next = try keys.relative(root.string("NextKeyMarker")) else {
        throw S3Error.malformed("\(context): a truncated page without a next key marker")
      }
      page.nextKeyMarker = next
      page.nextVersionIDMarker = root.string("NextVersionIdMarker")
    }
    return page
  }

  /// CreateBucket, in the endpoint's region (for test servers and first-time setup).
  public func createBucket() async throws {
    var body: Request.Body = .empty
    var headers: [(name: String, value: String)] = []
    if endpoint.region != "us-east-1" {
      let xml =
        "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>"
        + Self.escapeXML(endpoint.region) + "</LocationConstraint></CreateBucketConfiguration>"
      body = .bytes(Array(xml.utf8))
      headers.append(("Content-Type", "application/xml"))
    }
    try await sendDiscardingBody(
      Request(
        method: .PUT, path: endpoint.bucketPath, headers: headers, body: body, context: "creating \(endpoint.bucket)"))
  }

  /// PutBucketVersioning: turn versioning on, or suspend it.
  public func setBucketVersioning(enabled: Bool) async throws {
    let xml =
      "<VersioningConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Status>"
      + (enabled ? "Enabled" : "Suspended") + "</Status></VersioningConfiguration>"
    try await sendDiscardingBody(
      Request(
        method: .PUT, path: endpoint.bucketPath, query: [("versioning", "")],
        headers: [("Content-Type", "application/xml")], body: .bytes(Array(xml.utf8)),
        context: "setting the versioning of \(endpoint.bucket)"))
  }
}
