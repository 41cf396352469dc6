import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// What HEAD (or a GET's headers) says about an object.
public struct S3ObjectInfo: Sendable, Equatable {
  /// The whole object's size (from `Content-Range` on a ranged GET).
  public var size: Int64
  /// Quotes included, as `If-Match` takes it.
  public var etag: String
  public var lastModified: Date?
  /// On a versioned bucket; `null` for objects written before versioning was enabled.
  public var versionID: String?
  public var contentType: String?
  /// `x-amz-meta-*` headers, names in lower case without the prefix (`folio-sha256`).
  public var metadata: [String: String]

  init(headers: HTTPHeaders, size: Int64) {
    self.size = size
    etag = headers.first(name: "etag") ?? ""
    lastModified = headers.first(name: "last-modified").flatMap(S3Date.parseHTTPDate)
    versionID = headers.first(name: "x-amz-version-id")
    contentType = headers.first(name: "content-type")
    var metadata: [String: String] = [:]
    for (name, value) in headers {
      let lower = name.lowercased()
      if lower.hasPrefix("x-amz-meta-") { metadata[String(lower.dropFirst("x-amz-meta-".count))] = value }
    }
    self.metadata = metadata
  }
}

/// A condition on a write, checked by the server atomically with it (AWS since 2024; probe others,
/// docs/remote-providers.md §1.1).
public enum S3WriteCondition: Sendable, Equatable {
  case none
  /// `If-None-Match: *`: only if no object has the key (a create).
  case ifNoneMatch
  /// `If-Match: ETAG`: only if the object is still that version (a replace of what was read).
  case ifMatch(String)

  var headers: [(name: String, value: String)] {
    switch self {
    case .none: []
    case .ifNoneMatch: [("If-None-Match", "*")]
    case .ifMatch(let etag): [("If-Match", etag)]
    }
  }
}

/// What a DELETE did.
public struct S3DeleteResult: Sendable, Equatable {
  /// On a versioned bucket: the delete marker's version id (a plain delete), or the version removed.
  public var versionID: String?
  /// The delete left a marker (a versioned bucket), or removed one.
  public var isDeleteMarker: Bool
}

/// What a PUT, a copy or a completed multipart upload made.
public struct S3WriteResult: Sendable, Equatable {
  public var etag: String
  public var versionID: String?
}

extension S3Client {
  /// HEAD: size, ETag, date, version and user metadata.
  ///
  /// - Throws: ``S3Error`` `.noSuchKey` when there is no such object (or version). HEAD answers
  ///   have no body, so a wrong secret shows as `.accessDenied`.
  public func headObject(_ key: [UInt8], versionID: String? = nil) async throws -> S3ObjectInfo {
    let full = try endpoint.fullKey(key)
    var query: [(name: String, value: String)] = []
    if let versionID { query.append(("versionId", versionID)) }
    let headers = try await sendDiscardingBody(
      Request(method: .HEAD, path: endpoint.path(forFullKey: full), query: query, context: "reading \(display(full))"))
    guard let length = headers.first(name: "content-length").flatMap({ Int64($0) }), headers.first(name: "etag") != nil
    else { throw S3Error.malformed("reading \(display(full)): no Content-Length or ETag") }
    return S3ObjectInfo(headers: headers, size: length)
  }

  /// DELETE one object (or one version of it). Deleting a key that does not exist succeeds, as
  /// in S3: the caller who needs to know checks first, or sends `ifMatch`.
  ///
  /// - Parameters:
  ///   - versionID: Removes that version for good (or that delete marker: a restore).
  ///   - ifMatch: Only if the object is still that version (moto honours it; AWS for directory
  ///     buckets and, since 2024, general ones: probe).
  public func deleteObject(_ key: [UInt8], versionID: String? = nil, ifMatch: String? = nil) async throws
    -> S3DeleteResult
  {
    let full = try endpoint.fullKey(key)
    var query: [(name: String, value: String)] = []
    if let versionID { query.append(("versionId", versionID)) }
    let headers = try await sendDiscardingBody(
      Request(
        method: .DELETE, path: endpoint.path(forFullKey: full), query: query,
        headers: ifMatch.map { [("If-Match", $0)] } ?? [], context: "deleting \(display(full))"))
    return S3DeleteResult(
      versionID: headers.first(name: "x-amz-version-id"),
      isDeleteMarker: headers.first(name: "x-amz-delete-marker") == "true")
  }

  /// CopyObject within the bucket: one request, atomic, up to 5 GiB (above that S3 refuses, and
  /// UploadPartCopy is the way).
  ///
  /// The failure of a copy can arrive inside a 200 (the status went out before the copy ended):
  /// the body is always parsed, and an `<Error>` there is thrown.
  ///
  /// - Parameters:
  ///   - sourceIfMatch: Copy only if the source is still that version (`x-amz-copy-source-if-match`).
  ///   - condition: On the destination (`If-None-Match: *` to never replace).
  ///   - metadata: New user metadata (REPLACE); nil keeps the source's (COPY).
  public func copyObject(
    from source: [UInt8], sourceVersionID: String? = nil, to destination: [UInt8], sourceIfMatch: String? = nil,
    condition: S3WriteCondition = .none, metadata: [String: String]? = nil
  ) async throws -> S3WriteResult {
    let from = try endpoint.fullKey(source)
    let to = try endpoint.fullKey(destination)
    var copySource = "/\(endpoint.bucket)/\(S3URIEncoding.encode(from, keepSlash: true))"
    if let sourceVersionID { copySource += "?versionId=\(S3URIEncoding.encode(sourceVersionID))" }
    var headers: [(name: String, value: String)] = [("x-amz-copy-source", copySource)]
    if let sourceIfMatch { headers.append(("x-amz-copy-source-if-match", sourceIfMatch)) }
    headers += condition.headers
    if let metadata {
      headers.append(("x-amz-metadata-directive", "REPLACE"))
      headers += try Self.metadataHeaders(metadata)
    }
    let context = "copying \(display(from)) to \(display(to))"
    let response = try await send(
      Request(method: .PUT, path: endpoint.path(forFullKey: to), headers: headers, context: context, serverWork: true))
    let bytes = try await Self.collect(response, limit: Self.xmlLimit, context: context)
    let root = try S3XMLElement.parse(bytes, what: "the answer to \(context)")
    if root.name == "Error" {
      throw Self.error(fromXML: root, status: Int(response.status.code), headers: response.headers, context: context)
    }
    guard root.name == "CopyObjectResult", let etag = root.string("ETag") else {
      throw S3Error.malformed("\(context): a \(root.name) without an ETag")
    }
    return S3WriteResult(etag: etag, versionID: response.headers.first(name: "x-amz-version-id"))
  }

  /// `x-amz-meta-NAME: VALUE` headers, after checking S3 keeps them as given: names of letters,
  /// digits, `-` and `_`; values of printable ASCII (S3 rewrites other bytes, RFC 2047 style).
  static func metadataHeaders(_ metadata: [String: String]) throws -> [(name: String, value: String)] {
    try metadata.sorted { $0.key < $1.key }.map { name, value in
      guard !name.isEmpty,
        name.utf8.allSatisfy({ S3URIEncoding.isUnreserved($0) && $0 != UInt8(ascii: ".") && $0 != UInt8(ascii: "~") })
      else {
        throw S3Error(.invalidArgument, "\(S3DisplayText.escape(Array(name.utf8))) cannot be an S3 metadata name")
      }
      guard value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
        throw S3Error(.invalidArgument, "the metadata \(name) must be printable ASCII to be kept as given")
      }
      return (name: "x-amz-meta-\(name.lowercased())", value: value)
    }
  }
}
