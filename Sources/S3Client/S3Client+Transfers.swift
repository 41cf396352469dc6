import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

#if canImport(Glibc)
  import Glibc
#endif

/// Bytes `start` through `end` (inclusive, as HTTP writes it), or from `start` to the end.
public struct S3ByteRange: Sendable, Equatable {
  public var start: Int64
  public var end: Int64?

  public init(start: Int64, end: Int64? = nil) {
    self.start = start
    self.end = end
  }

  var header: String { "bytes=\(start)-" + (end.map(String.init) ?? "") }
}

/// What a GET wrote.
public struct S3Download: Sendable, Equatable {
  /// The object's headers; ``S3ObjectInfo/size`` is the whole object's size, even for a range.
  public var info: S3ObjectInfo
  public var bytesWritten: Int64
  /// The SHA-256 (hex) of the bytes written, when asked for.
  public var sha256: String?
}

extension S3Client {
  /// GET an object (or a range of it) into an open file, at `offset`, as the bytes arrive.
  ///
  /// Memory stays bounded: each buffer AsyncHTTPClient hands over is written and let go before
  /// the next is asked for, and the connection is read no faster than that (backpressure).
  /// The body must have exactly the announced length; a range the server ignored (a 200 to a
  /// ranged GET) is refused before a byte is written, since its bytes would land at the wrong place.
  ///
  /// - Parameters:
  ///   - ifMatch: Only that version (pin a resumed or ranged read: a concurrent overwrite must not
  ///     splice two versions into one file, docs/remote-providers.md §1.4).
  ///   - file: A descriptor open for writing; it stays open (the caller fsyncs and closes it).
  ///   - computeSHA256: Hash the bytes as they are written (to check `x-amz-meta-folio-sha256`).
  /// - Throws: ``S3Error``: `.preconditionFailed` when `ifMatch` no longer holds, `.malformed` for
  ///   a short, long or misplaced body, `.localIO` when the file cannot be written.
  public func getObject(
    _ key: [UInt8], versionID: String? = nil, range: S3ByteRange? = nil, ifMatch: String? = nil,
    to file: Int32, at offset: Int64 = 0, computeSHA256: Bool = false, progress: S3ProgressHandler? = nil
  ) async throws -> S3Download {
    let full = try endpoint.fullKey(key)
    let context = "reading \(display(full))"
    var query: [(name: String, value: String)] = []
    if let versionID { query.append(("versionId", versionID)) }
    var headers: [(name: String, value: String)] = []
    if let range { headers.append(("Range", range.header)) }
    if let ifMatch { headers.append(("If-Match", ifMatch)) }
    let response = try await send(
      Request(method: .GET, path: endpoint.path(forFullKey: full), query: query, headers: headers, context: context))

    guard let length = response.headers.first(name: "content-length").flatMap({ Int64($0) }) else {
      throw S3Error.malformed("\(context): no Content-Length")
    }
    var total = length
    if let range {
      guard response.status.code == 206, let contentRange = response.headers.first(name: "content-range"),
        let (first, size) = Self.parseContentRange(contentRange), first == range.start
      else {
        throw S3Error.malformed("\(context): the server did not answer the range \(range.header) with that range")
      }
      total = size
    }
    let info = S3ObjectInfo(headers: response.headers, size: total)

    var hasher = computeSHA256 ? SHA256() : nil
    var written: Int64 = 0
    progress?(0, length)
    do {
      for try await buffer in response.body {
        guard written + Int64(buffer.readableBytes) <= length else {
          throw S3Error.malformed("\(context): more bytes than the \(length) announced")
        }
        try buffer.withUnsafeReadableBytes { raw in
          var done = 0
          while done < raw.count {
            let n = pwrite(file, raw.baseAddress! + done, raw.count - done, off_t(offset + written) + off_t(done))
            if n < 0 {
              if errno == EINTR { continue }
              throw S3Error(.localIO, "\(context): cannot write the file: \(String(cString: strerror(errno)))")
            }
            done += n
          }
          hasher?.update(bufferPointer: raw)
        }
        written += Int64(buffer.readableBytes)
        progress?(written, length)
      }
    } catch let error as S3Error {
      throw error
    } catch let error as CancellationError {
      throw error
    } catch {
      throw S3Error(.transport, "\(context): the connection failed after \(written) bytes: \(Self.describe(error))")
    }
    guard written == length else {
      throw S3Error.malformed("\(context): the body ended after \(written) of \(length) bytes")
    }
    return S3Download(
      info: info, bytesWritten: written, sha256: hasher.map { SigV4Signer.hex($0.finalize()) })
  }

  /// PUT a local file as one object, streamed (never whole in memory), signed with the SHA-256
  /// the caller computed when it staged the file.
  ///
  /// - Parameters:
  ///   - size: The bytes to send from the start of the file (`Content-Length`).
  ///   - sha256: The SHA-256 of those bytes, lower-case hex: the signed payload hash.
  ///   - metadata: `x-amz-meta-*`, e.g. `["folio-sha256": sha256]` (multipart ETags are not MD5s,
  ///     so this is the version proof that works everywhere).
  ///   - condition: `.ifNoneMatch` to create only, `.ifMatch(etag)` to replace only that version.
  /// - Throws: ``S3Error``: `.preconditionFailed` when the condition does not hold; `.localIO`
  ///   when the file cannot be read or became shorter.
  public func putObject(
    _ key: [UInt8], fromFile path: String, size: Int64, sha256: String, contentType: String? = nil,
    metadata: [String: String] = [:], condition: S3WriteCondition = .none, progress: S3ProgressHandler? = nil
  ) async throws -> S3WriteResult {
    let full = try endpoint.fullKey(key)
    try Self.checkDigest(sha256)
    guard size >= 0 else { throw S3Error(.invalidArgument, "a negative size") }
    var headers = condition.headers + (try Self.metadataHeaders(metadata))
    if let contentType { headers.append(("Content-Type", contentType)) }
    let headersBack = try await sendDiscardingBody(
      Request(
        method: .PUT, path: endpoint.path(forFullKey: full), headers: headers,
        body: .file(path: path, offset: 0, length: size, sha256: sha256, progress: progress),
        context: "writing \(display(full))"))
    progress?(size, size)
    guard let etag = headersBack.first(name: "etag") else {
      throw S3Error.malformed("writing \(display(full)): no ETag")
    }
    return S3WriteResult(etag: etag, versionID: headersBack.first(name: "x-amz-version-id"))
  }

  static func checkDigest(_ sha256: String) throws {
    guard sha256.utf8.count == 64,
      sha256.utf8.allSatisfy({
        ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f"))
      })
    else {
      throw S3Error(.invalidArgument, "\(S3DisplayText.escape(Array(sha256.utf8))) is not a SHA-256 in lower-case hex")
    }
  }

  /// `bytes FIRST-LAST/TOTAL` → (FIRST, TOTAL); TOTAL `*` is refused (S3 always knows it).
  static func parseContentRange(_ value: String) -> (Int64, Int64)? {
    guard value.hasPrefix("bytes ") else { return nil }
    let parts = value.dropFirst(6).split(separator: "/")
    guard parts.count == 2, let total = Int64(parts[1]) else { return nil }
    let bounds = parts[0].split(separator: "-")
    guard bounds.count == 2, let first = Int64(bounds[0]), Int64(bounds[1]) != nil else { return nil }
    return (first, total)
  }
}
