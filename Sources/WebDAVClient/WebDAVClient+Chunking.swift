import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Nextcloud's chunked upload v2, the requests one at a time (Nextcloud developer manual,
/// "Chunked file upload", client_apis/WebDAV/chunking.rst). A client for this is made on the
/// account's uploads collection, `…/remote.php/dav/uploads/USER/`; the file's place is named by
/// `destination`, the absolute URL of the file in the account's files (``absoluteURL(_:)`` of
/// the files client), which every request but the abort carries as `Destination`:
///
/// 1. MKCOL of an upload folder (``startChunkedUpload(_:destination:)``);
/// 2. PUT of chunks named 1 … 10000, 5 MB to 5 GB each but the last, with `OC-Total-Length` so
///    that the quota is checked at once (``uploadChunk(of:range:number:in:destination:totalLength:progress:)``);
/// 3. MOVE of the folder's `.file` to the destination, which assembles the chunks in the order
///    of their names (``assembleChunks(in:destination:totalLength:condition:)``);
/// 4. DELETE of the folder to give the upload up (``abortChunkedUpload(_:)``).
///
/// The folder and its chunks stay on the server until the MOVE or 24 hours of inactivity, which
/// is what makes an upload resumable: ``uploadedChunks(in:)`` says which chunks are there.
extension WebDAVClient {
  /// The absolute URL of `path` below this client's base, as `Destination` names it.
  public func absoluteURL(_ path: WebDAVPath) throws(WebDAVError) -> String { try url(path) }

  /// The chunk name of number `n`: zero-padded to five digits, as the manual's examples name them,
  /// so that names sort as numbers do.
  public static func chunkName(_ n: Int) -> String {
    let digits = String(n)
    return String(repeating: "0", count: max(0, 5 - digits.count)) + digits
  }

  /// The chunks an upload folder holds, by number, with their sizes; nil when there is no such
  /// folder (never started, assembled, given up, or expired).
  public func uploadedChunks(in folder: WebDAVPath) async throws -> [Int: Int64]? {
    let found = ChunkList()
    do {
      _ = try await list(folder, properties: [.resourceType, .contentLength]) { batch in
        for entry in batch where !entry.isCollection {
          if let n = Int(String(decoding: entry.name, as: UTF8.self)) { found.add(n, entry.size ?? -1) }
        }
      }
    } catch let error as WebDAVError where error.code == .notFound {
      return nil
    }
    return found.chunks
  }

  /// MKCOL of the upload folder, with the `Destination` it is for.
  public func startChunkedUpload(_ folder: WebDAVPath, destination: String) async throws(WebDAVError) {
    let response = try await send(
      .MKCOL, try url(folder, collection: true), headers: headers([("Destination", destination)]), operation: .mkcol,
      subject: folder)
    await drain(response)
  }

  /// PUT of bytes `range` of `file` as chunk `number` of the upload folder, streamed with its
  /// `Content-Length`.
  ///
  /// - Parameter progress: Bytes of this chunk handed to the connection so far.
  /// - Throws: `insufficientStorage` (507) when `totalLength` is over the quota; the status's error.
  public func uploadChunk(
    of file: String, range: Range<Int64>, number: Int, in folder: WebDAVPath, destination: String, totalLength: Int64,
    progress: (@Sendable (Int64) -> Void)? = nil
  ) async throws(WebDAVError) {
    let fd = Glibc.open(file, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw WebDAVError(.localIO, "cannot open \(TerminalText.escape(file)): \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }
    var body = UploadBody(source: .file(fd: fd, path: file), length: Int64(range.count), progress: progress)
    body.base = range.lowerBound
    let chunk = try folder.appending(Array(Self.chunkName(number).utf8))
    let response = try await send(
      .PUT, try url(chunk),
      headers: headers([
        ("Destination", destination), ("OC-Total-Length", String(totalLength)), ("Content-Type", "application/octet-stream"),
      ]), body: .stream(body, length: .known(body.length)), operation: .put, subject: chunk, timeout: .seconds(7 * 24 * 3600))
    await drain(response)
    progress?(body.length)
  }

  /// MOVE of the upload folder's `.file` to `destination`: the server assembles the chunks there.
  ///
  /// The condition is the destination's, which a plain `If-Match` would not say (it applies to
  /// the request's own URL, the `.file`): a replace sends RFC 4918's tagged `If: <destination>
  /// (["etag"])`, as Nextcloud's desktop client does for this MOVE (propagateuploadng.cpp,
  /// `finishUpload`); a create sends `Overwrite: F`, which SabreDAV checks before the move.
  ///
  /// - Throws: `preconditionFailed` (412) when the destination is no longer at the version, or
  ///   exists for a create; `insufficientStorage` (507); the status's error.
  public func assembleChunks(
    in folder: WebDAVPath, destination: String, totalLength: Int64, condition: WebDAVWriteCondition
  ) async throws(WebDAVError) -> WebDAVUpload {
    var extra = [("Destination", destination), ("OC-Total-Length", String(totalLength))]
    switch condition {
    case .ifMatch(let etag):
      extra.append(("If", "<\(destination)> ([\(etag)])"))
      extra.append(("Overwrite", "T"))
    case .ifNoneMatch: extra.append(("Overwrite", "F"))
    case .none: extra.append(("Overwrite", "T"))
    }
    let file = try folder.appending(Array(".file".utf8))
    let response = try await send(
      .MOVE, try url(file), headers: headers(extra), operation: .move, subject: file, timeout: .seconds(24 * 3600))
    let etag = response.headers.first(name: "OC-ETag") ?? response.headers.first(name: "ETag")
    let created = response.status.code == 201
    await drain(response)
    return WebDAVUpload(created: created, etag: etag)
  }

  /// DELETE of the upload folder: the upload is given up and its chunks freed. One that is not
  /// there is success.
  public func abortChunkedUpload(_ folder: WebDAVPath) async throws(WebDAVError) {
    do {
      try await delete(folder, isCollection: true)
    } catch where error.code == .notFound {
      return
    }
  }
}

/// Chunk sizes gathered from a streamed listing.
private final class ChunkList: @unchecked Sendable {
  private let lock = NSLock()
  private var found: [Int: Int64] = [:]
  func add(_ n: Int, _ size: Int64) { lock.withLock { found[n] = size } }
  var chunks: [Int: Int64] { lock.withLock { found } }
}
