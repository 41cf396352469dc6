import Foundation
import AsyncHTTPClient
import NIOHTTP1

/// UploadPartCopy: a part of a multipart upload copied on the server from a range of another
/// object — how an object larger than CopyObject's 5 GiB is copied (a rename of a big file).
extension S3Client {
  /// Copies bytes `range` of `source` into part `partNumber` of an upload of `key`.
  ///
  /// The failure of a part copy can arrive inside a 200, as CopyObject's: the body is parsed.
  ///
  /// - Parameter sourceIfMatch: Only while the source is that version (`x-amz-copy-source-if-match`):
  ///   a source replaced between two parts would splice two versions.
  /// - Returns: The part's ETag.
  public func uploadPartCopy(
    _ key: [UInt8], uploadID: String, partNumber: Int, from source: [UInt8], range: S3ByteRange,
    sourceIfMatch: String? = nil
  ) async throws -> String {
    let to = try endpoint.fullKey(key)
    let from = try endpoint.fullKey(source)
    guard (1...Self.maximumPartNumber).contains(partNumber) else {
      throw S3Error(.invalidArgument, "part number \(partNumber) is outside 1–10000")
    }
    guard let end = range.end, end >= range.start, range.start >= 0 else {
      throw S3Error(.invalidArgument, "a part copy needs a closed range")
    }
    var headers: [(name: String, value: String)] = [
      ("x-amz-copy-source", "/\(endpoint.bucket)/\(S3URIEncoding.encode(from, keepSlash: true))"),
      ("x-amz-copy-source-range", "bytes=\(range.start)-\(end)"),
    ]
    if let sourceIfMatch { headers.append(("x-amz-copy-source-if-match", sourceIfMatch)) }
    let context = "copying part \(partNumber) of \(display(from)) to \(display(to))"
    let response = try await send(
      Request(
        method: .PUT, path: endpoint.path(forFullKey: to),
        query: [("partNumber", String(partNumber)), ("uploadId", uploadID)], headers: headers, context: context, serverWork: true))
    let bytes = try await Self.collect(response, limit: Self.xmlLimit, context: context)
    let root = try S3XMLElement.parse(bytes, what: "the answer to \(context)")
    if root.name == "Error" {
      throw Self.error(fromXML: root, status: Int(response.status.code), headers: response.headers, context: context)
    }
    guard root.name == "CopyPartResult", let etag = root.string("ETag") else {
      throw S3Error.malformed("\(context): a \(root.name) without an ETag")
    }
    return etag
  }
}
