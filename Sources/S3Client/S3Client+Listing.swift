import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One object of a listing, as ListObjectsV2 describes it (no user metadata: HEAD has that).
public struct S3ObjectSummary: Sendable, Equatable {
  /// Relative to the endpoint's prefix.
  public var key: [UInt8]
  public var size: Int64
  /// As S3 sent it, quotes included (`"9b2cf5…"`, `"…-3"` for multipart): what `If-Match` takes.
  public var etag: String
  public var lastModified: Date?
  public var storageClass: String?
}

/// One page of ListObjectsV2.
public struct S3ListPage: Sendable, Equatable {
  public var objects: [S3ObjectSummary]
  /// The "folders": keys up to and including the delimiter, relative to the endpoint's prefix.
  public var commonPrefixes: [[UInt8]]
  /// More follows: ask again with ``nextContinuationToken``. A page with `isTruncated == false`
  /// is the end, the only proof of a complete listing (docs/remote-providers.md §1.3).
  public var isTruncated: Bool
  /// Opaque; send it back as is.
  public var nextContinuationToken: String?
}

extension S3Client {
  /// One page of the objects and common prefixes under `prefix`, in key order: ListObjectsV2
  /// (`GET /?list-type=2`), or ListObjects v1 with `marker` on a store without v2
  /// (``S3ListingDialect``: learnt from the store's first answer, kept in ``listing``).
  ///
  /// Keys are asked for with `encoding-type=url` and decoded, since XML 1.0 cannot carry some key
  /// bytes. A server that ignores the parameter (and does not echo it) is read as plain text.
  ///
  /// - Parameters:
  ///   - prefix: Relative to the endpoint's prefix; a folder ends with `/`.
  ///   - delimiter: `/` to list one level; nil for every key below.
  ///   - continuationToken: The previous page's ``S3ListPage/nextContinuationToken`` (a v2 token,
  ///     or a v1 marker in Folio's own form).
  ///   - startAfter: List keys after this one (relative): the way to resume when a token is refused.
  ///   - maxKeys: At most 1000 (S3 caps it there anyway).
  /// - Throws: ``S3Error``; `.malformed` when a page is truncated without a way on, or lists a key
  ///   outside `prefix`.
  public func listObjects(
    prefix: [UInt8] = [], delimiter: String? = "/", continuationToken: String? = nil, startAfter: [UInt8]? = nil,
    maxKeys: Int = 1000
  ) async throws -> S3ListPage {
    let fullPrefix = endpoint.prefix + prefix
    guard S3URIEncoding.isUTF8(fullPrefix) else {
      throw S3Error(.invalidArgument, "the prefix \(display(fullPrefix)) is not UTF-8 text, which S3 keys must be")
    }
    let marker = continuationToken.flatMap(S3ListingDialect.marker(fromToken:))
    if marker != nil || (continuationToken == nil && listing.version == .v1) {
      return try await listPage(
        fullPrefix, delimiter: delimiter, v2: false, token: nil, after: startAfter, marker: marker, maxKeys: maxKeys)
    }
    do {
      return try await listPage(
        fullPrefix, delimiter: delimiter, v2: true, token: continuationToken, after: startAfter, maxKeys: maxKeys)
    } catch let error as S3Error where continuationToken == nil && S3ListingDialect.meansNoV2(error) {
      let page = try await listPage(
        fullPrefix, delimiter: delimiter, v2: false, token: nil, after: startAfter, maxKeys: maxKeys)
      listing.learnNoV2()
      return page
    }
  }

  /// One listing request and its page. `after` (relative) is `start-after` in v2, `marker` in v1;
  /// `marker` is a v1 marker as the store gave it (a full key on AWS; moto gives a token of its
  /// own), sent back as is. A v2 request answered in v1's form (a truncated page without a
  /// continuation token but with v1's markers: `list-type` ignored) is read as v1, and the store is
  /// known to lack v2 from then on.
  private func listPage(
    _ fullPrefix: [UInt8], delimiter: String?, v2: Bool, token: String?, after: [UInt8]?, marker: [UInt8]? = nil,
    maxKeys: Int
  ) async throws -> S3ListPage {
    var query: [(name: String, value: String)] = v2 ? [("list-type", "2")] : []
    query += [("encoding-type", "url"), ("max-keys", String(min(max(maxKeys, 1), 1000)))]
    if !fullPrefix.isEmpty { query.append(("prefix", String(decoding: fullPrefix, as: UTF8.self))) }
    if let delimiter { query.append(("delimiter", delimiter)) }
    if let token { query.append(("continuation-token", token)) }
    if let marker {
      query.append(("marker", String(decoding: marker, as: UTF8.self)))
    } else if let after {
      query.append((v2 ? "start-after" : "marker", String(decoding: try endpoint.fullKey(after), as: UTF8.self)))
    }
    let context = "listing \(display(fullPrefix.isEmpty ? Array(endpoint.bucket.utf8) : fullPrefix))"
    let root = try await sendForXML(Request(method: .GET, path: endpoint.bucketPath, query: query, context: context))
    let (page, answeredV1) = try Self.listPage(
      from: root, v2: v2, endpoint: endpoint, fullPrefix: fullPrefix, marker: marker, after: after, context: context)
    if v2 && answeredV1 { listing.learnNoV2() }
    return page
  }

  /// A listing page from its XML answer (no I/O: fuzzed as is, `FuzzTargets`); `answeredV1` when a
  /// truncated v2 request was answered in v1's form.
  ///
  /// - Throws: ``S3Error`` `.malformed` for an answer that is not a listing, an entry without its
  ///   key, size or ETag, a key outside the prefix, or a truncated page that does not move on.
  package static func listPage(
    from root: S3XMLElement, v2: Bool, endpoint: S3Endpoint, fullPrefix: [UInt8], marker: [UInt8]?, after: [UInt8]?,
    context: String
  ) throws -> (page: S3ListPage, answeredV1: Bool) {
    guard root.name == "ListBucketResult" else {
      throw S3Error.malformed("\(context): a \(root.name) instead of a listing")
    }

    let keys = KeyReader(
      encoded: root.string("EncodingType") == "url", endpoint: endpoint, prefix: fullPrefix, context: context)
    var page = S3ListPage(objects: [], commonPrefixes: [], isTruncated: root.string("IsTruncated") == "true")
    for entry in root.children("Contents") {
      guard let key = try keys.relative(entry.string("Key")), let size = entry.string("Size").flatMap({ Int64($0) }),
        let etag = entry.string("ETag")
      else { throw S3Error.malformed("\(context): an entry without its key, size or ETag") }
      page.objects.append(
        S3ObjectSummary(
          key: key, size: size, etag: etag, lastModified: entry.string("LastModified").flatMap(S3Date.parseISO8601),
          storageClass: entry.string("StorageClass")))
    }
    for common in root.children("CommonPrefixes") {
      guard let folder = try keys.relative(common.string("Prefix")) else {
        throw S3Error.malformed("\(context): a common prefix without its text")
      }
      page.commonPrefixes.append(folder)
    }
    guard page.isTruncated else { return (page, false) }
    if v2, let next = root.string("NextContinuationToken"), !next.isEmpty {
      page.nextContinuationToken = next
      return (page, false)
    }
    let answeredV1 = root.child("NextMarker") != nil || root.child("Marker") != nil
    guard !v2 || answeredV1 else {
      throw S3Error.malformed("\(context): a truncated page without a continuation token")
    }
    // v1: NextMarker where the store sends it (AWS: only with a delimiter; URL-encoded with the
    // keys), else the greatest key or prefix of the page, as the ListObjects documentation says.
    let stated = try root.string("NextMarker").flatMap { text -> [UInt8]? in
      guard !text.isEmpty else { return nil }
      guard keys.encoded else { return Array(text.utf8) }
      guard let decoded = S3URIEncoding.decodeURLEncoded(text) else {
        throw S3Error.malformed("\(context): a NextMarker with a bad %-escape")
      }
      return decoded
    }
    let greatest = [page.objects.last?.key, page.commonPrefixes.last].compactMap { $0 }
      .max { $0.lexicographicallyPrecedes($1) }.map { endpoint.prefix + $0 }
    guard let next = stated ?? greatest, next != (marker ?? after.map { endpoint.prefix + $0 }) else {
      throw S3Error.malformed("\(context): a truncated page that does not move past its marker")
    }
    page.nextContinuationToken = S3ListingDialect.token(marker: next)
    return (page, true)
  }

  /// Reads the keys of a listing: decodes them when the server says they are URL-encoded, checks
  /// they are under the requested prefix (an entry outside it is a broken answer, never a name to
  /// show: test-plan F08) and makes them relative to the endpoint's prefix.
  struct KeyReader {
    let encoded: Bool
    let endpoint: S3Endpoint
    let prefix: [UInt8]
    let context: String

    /// Nil when `text` is nil.
    func relative(_ text: String?) throws -> [UInt8]? {
      guard let text else { return nil }
      let bytes: [UInt8]
      if encoded {
        guard let decoded = S3URIEncoding.decodeURLEncoded(text) else {
          throw S3Error.malformed("\(context): a key with a bad %-escape: \(S3DisplayText.escape(Array(text.utf8)))")
        }
        bytes = decoded
      } else {
        bytes = Array(text.utf8)
      }
      guard bytes.starts(with: prefix), let relative = endpoint.relativeKey(bytes) else {
        throw S3Error.malformed("\(context): the key \(S3DisplayText.escape(bytes)) is outside the prefix asked for")
      }
      return relative
    }
  }
}
