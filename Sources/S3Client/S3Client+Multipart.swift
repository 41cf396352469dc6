import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A part S3 holds for an upload in progress.
public struct S3UploadedPart: Sendable, Equatable {
  public var partNumber: Int
  /// Quotes included; CompleteMultipartUpload wants them back as they came.
  public var etag: String
  /// Zero where the server does not say (the part's own answer has no size).
  public var size: Int64
  public var lastModified: Date?

  public init(partNumber: Int, etag: String, size: Int64 = 0, lastModified: Date? = nil) {
    self.partNumber = partNumber
    self.etag = etag
    self.size = size
    self.lastModified = lastModified
  }
}

/// A multipart upload not yet completed or aborted (ListMultipartUploads).
public struct S3PendingUpload: Sendable, Equatable {
  /// Relative to the endpoint's prefix.
  public var key: [UInt8]
  public var uploadID: String
  public var initiated: Date?
}

/// Multipart uploads: parts of 5 MiB to 5 GiB (the last may be smaller), numbered 1–10,000, each
/// streamed from a range of the staged file with its own SHA-256. The caller journals the upload
/// id and each part's ETag; after a crash, ``listParts(_:uploadID:)`` says what the server has,
/// and only the rest is sent (docs/remote-providers.md §3.5).
extension S3Client {
  /// Largest part number S3 accepts.
  public static let maximumPartNumber = 10_000

  /// CreateMultipartUpload: an upload id for `key`. Metadata and content type are given here,
  /// not at completion.
  public func createMultipartUpload(
    _ key: [UInt8], contentType: String? = nil, metadata: [String: String] = [:]
  ) async throws -> String {
    let full = try endpoint.fullKey(key)
    var headers = try Self.metadataHeaders(metadata)
    if let contentType { headers.append(("Content-Type", contentType)) }
    let context = "starting an upload of \(display(full))"
    let root = try await sendForXML(
      Request(
        method: .POST, path: endpoint.path(forFullKey: full), query: [("uploads", "")], headers: headers,
        context: context))
    guard root.name == "InitiateMultipartUploadResult", let id = root.string("UploadId"), !id.isEmpty else {
      throw S3Error.malformed("\(context): no UploadId")
    }
    return id
  }

  /// UploadPart from a range of a local file, streamed and signed with that range's SHA-256.
  ///
  /// - Returns: The part's ETag, to journal and give to ``completeMultipartUpload(_:uploadID:parts:condition:)``.
  public func uploadPart(
    _ key: [UInt8], uploadID: String, partNumber: Int, fromFile path: String, offset: Int64, length: Int64,
    sha256: String, progress: S3ProgressHandler? = nil
  ) async throws -> String {
    let full = try endpoint.fullKey(key)
    try Self.checkDigest(sha256)
    guard (1...Self.maximumPartNumber).contains(partNumber) else {
      throw S3Error(.invalidArgument, "part number \(partNumber) is outside 1–10000")
    }
    guard offset >= 0, length >= 0 else { throw S3Error(.invalidArgument, "a negative offset or length") }
    let context = "sending part \(partNumber) of \(display(full))"
    let headers = try await sendDiscardingBody(
      Request(
        method: .PUT, path: endpoint.path(forFullKey: full),
        query: [("partNumber", String(partNumber)), ("uploadId", uploadID)],
        body: .file(path: path, offset: offset, length: length, sha256: sha256, progress: progress), context: context))
    progress?(length, length)
    guard let etag = headers.first(name: "etag") else { throw S3Error.malformed("\(context): no ETag") }
    return etag
  }

  /// CompleteMultipartUpload: the object appears, atomically, made of `parts` in part-number order.
  ///
  /// S3 may answer 200 and then, minutes later, an `<Error>` in the body; that is an error here.
  ///
  /// - Parameter condition: `If-None-Match: *` / `If-Match` on the result (UploadPart takes none:
  ///   the check is at completion).
  public func completeMultipartUpload(
    _ key: [UInt8], uploadID: String, parts: [S3UploadedPart], condition: S3WriteCondition = .none
  ) async throws -> S3WriteResult {
    let full = try endpoint.fullKey(key)
    guard !parts.isEmpty else { throw S3Error(.invalidArgument, "an upload needs at least one part") }
    var xml = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
    for part in parts.sorted(by: { $0.partNumber < $1.partNumber }) {
      xml += "<Part><PartNumber>\(part.partNumber)</PartNumber><ETag>\(Self.escapeXML(part.etag))</ETag></Part>"
    }
    xml += "</CompleteMultipartUpload>"
    let context = "completing the upload of \(display(full))"
    let response = try await send(
      Request(
        method: .POST, path: endpoint.path(forFullKey: full), query: [("uploadId", uploadID)],
        headers: [("Content-Type", "application/xml")] + condition.headers, body: .bytes(Array(xml.utf8)),
        context: context, serverWork: true))
    let bytes = try await Self.collect(response, limit: Self.xmlLimit, context: context)
    let root = try S3XMLElement.parse(bytes, what: "the answer to \(context)")
    if root.name == "Error" {
      throw Self.error(fromXML: root, status: Int(response.status.code), headers: response.headers, context: context)
    }
    // moto 5.2.1 names the root CompleteMultipartUploadResponse; AWS …Result.
    guard root.name == "CompleteMultipartUploadResult" || root.name == "CompleteMultipartUploadResponse" else {
      throw S3Error.malformed("\(context): a \(root.name) instead of the completed upload")
    }
    guard let etag = root.string("ETag") else { throw S3Error.malformed("\(context): no ETag") }
    return S3WriteResult(etag: etag, versionID: response.headers.first(name: "x-amz-version-id"))
  }

  /// AbortMultipartUpload: the parts are dropped. `.noSuchUpload` when it is already gone.
  public func abortMultipartUpload(_ key: [UInt8], uploadID: String) async throws {
    let full = try endpoint.fullKey(key)
    try await sendDiscardingBody(
      Request(
        method: .DELETE, path: endpoint.path(forFullKey: full), query: [("uploadId", uploadID)],
        context: "abandoning the upload of \(display(full))"))
  }

  /// ListParts, every page: the parts the server holds for an upload, by part number.
  public func listParts(_ key: [UInt8], uploadID: String) async throws -> [S3UploadedPart] {
    let full = try endpoint.fullKey(key)
    let context = "listing the parts of the upload of \(display(full))"
    var parts: [S3UploadedPart] = []
    var marker: String?
    while true {
      var query: [(name: String, value: String)] = [("uploadId", uploadID), ("max-parts", "1000")]
      if let marker { query.append(("part-number-marker", marker)) }
      let root = try await sendForXML(
        Request(method: .GET, path: endpoint.path(forFullKey: full), query: query, context: context))
      // moto 5.2.1 names the root ListPartsResponse; AWS ListPartsResult.
      guard root.name == "ListPartsResult" || root.name == "ListPartsResponse" else {
        throw S3Error.malformed("\(context): a \(root.name)")
      }
      for part in root.children("Part") {
        guard let number = part.string("PartNumber").flatMap({ Int($0) }), let etag = part.string("ETag") else {
          throw S3Error.malformed("\(context): a part without its number or ETag")
        }
        parts.append(
          S3UploadedPart(
            partNumber: number, etag: etag, size: part.string("Size").flatMap { Int64($0) } ?? 0,
            lastModified: part.string("LastModified").flatMap(S3Date.parseISO8601)))
      }
      guard root.string("IsTruncated") == "true" else { break }
      guard let next = root.string("NextPartNumberMarker"), !next.isEmpty, next != marker else {
        throw S3Error.malformed("\(context): a truncated page without a next marker")
      }
      marker = next
    }
    return parts.sorted { $0.partNumber < $1.partNumber }
  }

  /// ListMultipartUploads, every page: uploads started under `prefix` and never completed or
  /// aborted (orphans of a crash, to resume or abort: test-plan F16).
  public func listMultipartUploads(prefix: [UInt8] = []) async throws -> [S3PendingUpload] {
    let fullPrefix = endpoint.prefix + prefix
    guard S3URIEncoding.isUTF8(fullPrefix) else {
      throw S3Error(.invalidArgument, "the prefix \(display(fullPrefix)) is not UTF-8 text")
    }
    let context = "listing the unfinished uploads under \(display(fullPrefix))"
    var uploads: [S3PendingUpload] = []
    var keyMarker: String?
    var uploadMarker: String?
    while true {
      var query: [(name: String, value: String)] = [("uploads", ""), ("encoding-type", "url")]
      if !fullPrefix.isEmpty { query.append(("prefix", String(decoding: fullPrefix, as: UTF8.self))) }
      if let keyMarker { query.append(("key-marker", keyMarker)) }
      if let uploadMarker { query.append(("upload-id-marker", uploadMarker)) }
      let root = try await sendForXML(Request(method: .GET, path: endpoint.bucketPath, query: query, context: context))
      guard root.name == "ListMultipartUploadsResult" else { throw S3Error.malformed("\(context): a \(root.name)") }
      let encoded = root.string("EncodingType") == "url"
      let keys = KeyReader(encoded: encoded, endpoint: endpoint, prefix: fullPrefix, context: context)
      for upload in root.children("Upload") {
        guard let key = try keys.relative(upload.string("Key")), let id = upload.string("UploadId") else {
          throw S3Error.malformed("\(context): an upload without its key or id")
        }
        uploads.append(
          S3PendingUpload(key: key, uploadID: id, initiated: upload.string("Initiated").flatMap(S3Date.parseISO8601)))
      }
      guard root.string("IsTruncated") == "true" else { break }
      // The markers go back as the server wrote them, decoded when they were encoded.
      let nextKey = root.string("NextKeyMarker").flatMap {
        encoded ? S3URIEncoding.decodeURLEncoded($0) : Array($0.utf8)
      }
      guard let nextKey, !nextKey.isEmpty else {
        throw S3Error.malformed("\(context): a truncated page without a marker")
      }
      keyMarker = String(decoding: nextKey, as: UTF8.self)
      uploadMarker = root.string("NextUploadIdMarker")
    }
    return uploads
  }

  static func escapeXML(_ text: String) -> String {
    var out = ""
    for character in text {
      switch character {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      default: out.append(character)
      }
    }
    return out
  }
}
