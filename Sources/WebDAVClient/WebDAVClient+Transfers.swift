import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Bytes `offset ..< offset + length` of a file; to its end when `length` is nil.
public struct WebDAVByteRange: Sendable, Equatable {
  public var offset: Int64
  public var length: Int64?
  public init(offset: Int64, length: Int64? = nil) {
    self.offset = offset
    self.length = length
  }

  /// `bytes=a-b` or `bytes=a-`.
  var header: String {
    if let length { return "bytes=\(offset)-\(offset + max(length, 1) - 1)" }
    return "bytes=\(offset)-"
  }
}

/// What a GET delivered.
public struct WebDAVDownload: Sendable, Equatable {
  /// Bytes written to the file.
  public var bytes: Int64
  /// The `ETag` of the version read, as sent.
  public var etag: String?
  public var lastModified: Date?
  /// The whole file's size: the total of `Content-Range` on a 206, `Content-Length` on a 200.
  public var totalSize: Int64?
  /// Whether the answer was a 206 part.
  public var isPartial: Bool
}

/// The condition a write is sent with (remote-providers.md §4.3).
public enum WebDAVWriteCondition: Sendable, Equatable {
  /// Whatever is there is replaced.
  case none
  /// Only over this version: `If-Match: <etag>` (the ETag as the server sent it, quotes included).
  case ifMatch(String)
  /// Only where nothing is: `If-None-Match: *`.
  case ifNoneMatch

  var headers: [(String, String)] {
    switch self {
    case .none: []
    case .ifMatch(let etag): [("If-Match", etag)]
    case .ifNoneMatch: [("If-None-Match", "*")]
    }
  }
}

/// What a PUT did.
public struct WebDAVUpload: Sendable, Equatable {
  /// 201: a new item; 204 or 200: an existing one replaced (rclone answers 201 for both).
  public var created: Bool
  /// The new version's `ETag` when the answer carried one (Apache and nginx send none: stat for it).
  public var etag: String?
}

extension WebDAVClient {
  /// GET, written into `fd` at `fileOffset` as it arrives (`pwrite`: the descriptor's position is
  /// left alone), with memory bounded by ``FileSink/limit`` whatever the size.
  ///
  /// - Parameters:
  ///   - range: A part of the file (`Range`); the answer must then be a 206 for exactly that start.
  ///   - ifMatch: Only this version (`If-Match`): pins the version a resumed download continues
  ///     (remote-providers.md §1.4); another one is `preconditionFailed`.
  ///   - progress: Bytes written so far, every MiB and at the end.
  /// - Throws: `rangeIgnored` when a range was asked and the whole file came (nothing is written);
  ///   the status's error; `unreachable` for a body cut short.
  public func download(
    _ path: WebDAVPath, to fd: Int32, fileOffset: Int64 = 0, range: WebDAVByteRange? = nil, ifMatch: String? = nil,
    progress: (@Sendable (Int64) -> Void)? = nil
  ) async throws(WebDAVError) -> WebDAVDownload {
    try await download(path, to: fd, fileOffset: fileOffset, range: range, ifMatch: ifMatch, progress: progress, observe: nil)
  }

  /// ``download(_:to:fileOffset:range:ifMatch:progress:)``, showing its sink to `observe` (tests).
  func download(
    _ path: WebDAVPath, to fd: Int32, fileOffset: Int64 = 0, range: WebDAVByteRange? = nil, ifMatch: String? = nil,
    progress: (@Sendable (Int64) -> Void)? = nil, observe: ((FileSink) -> Void)?
  ) async throws(WebDAVError) -> WebDAVDownload {
    let url = try url(path)
    var extra: [(String, String)] = []
    if let range { extra.append(("Range", range.header)) }
    if let ifMatch { extra.append(("If-Match", ifMatch)) }
    let opened = try await open(.GET, url, headers: headers(extra))
    let status = opened.head.status.code
    let answer = opened.head.headers
    var totalSize: Int64?
    let length = answer.first(name: "Content-Length").flatMap { Int64($0) }
    switch status {
    case 200 where range != nil:
      opened.task.cancel()
      _ = try? await opened.task.futureResult.get()
      throw WebDAVError(
        .rangeIgnored, "\(server) sent the whole of \(path) when a part was asked for; nothing was written", status: 200)
    case 200:
      totalSize = length
    case 206:
      guard let range, let answered = Self.contentRange(answer.first(name: "Content-Range")), answered.start == range.offset,
        range.length.map({ answered.end - answered.start + 1 <= $0 }) ?? true
      else {
        opened.task.cancel()
        _ = try? await opened.task.futureResult.get()
        throw WebDAVError(
          .malformedResponse, "\(server) answered another part of \(path) than the one asked for", status: 206)
      }
      totalSize = answered.total
    default:
      throw await refusal(opened, operation: .get, subject: path)
    }
    let sink = FileSink(fd: fd, start: fileOffset, expected: length, server: server, progress: progress)
    observe?(sink)
    opened.response.stream(into: sink)
    do throws(WebDAVError) {
      try await finish(opened.task)
    } catch {
      _ = try? await sink.drained()
      throw error
    }
    let bytes = try await sink.drained()
    sink.reportEnd()
    return WebDAVDownload(
      bytes: bytes, etag: answer.first(name: "ETag"),
      lastModified: answer.first(name: "Last-Modified").flatMap { HTTPDate.parse($0) }, totalSize: totalSize,
      isPartial: status == 206)
  }

  /// PUT of a local file, streamed with its `Content-Length`.
  ///
  /// The file's size is read once when it is opened; exactly that many bytes are sent.
  ///
  /// - Parameters:
  ///   - condition: `If-Match` or `If-None-Match: *`; only trustworthy where ``probe(scratchName:)``
  ///     found the server honours them.
  ///   - progress: Bytes handed to the connection so far.
  /// - Throws: `preconditionFailed` when the condition did not hold; `parentMissing` (409);
  ///   `insufficientStorage` (507); `localIO` when the file cannot be read.
  public func upload(
    file: String, to path: WebDAVPath, condition: WebDAVWriteCondition = .none, contentType: String? = nil,
    progress: (@Sendable (Int64) -> Void)? = nil
  ) async throws(WebDAVError) -> WebDAVUpload {
    let fd = Glibc.open(file, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw WebDAVError(.localIO, "cannot open \(TerminalText.escape(file)): \(String(cString: strerror(errno)))")
    }
    defer { close(fd) }
    var st = Glibc.stat()
    guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
      throw WebDAVError(.localIO, "\(TerminalText.escape(file)) is not a regular file")
    }
    let body = UploadBody(source: .file(fd: fd, path: file), length: Int64(st.st_size), progress: progress)
    return try await put(body, to: path, condition: condition, contentType: contentType)
  }

  /// PUT of bytes in memory (small items: the probe, tests).
  public func upload(
    bytes: [UInt8], to path: WebDAVPath, condition: WebDAVWriteCondition = .none, contentType: String? = nil
  ) async throws(WebDAVError) -> WebDAVUpload {
    try await put(UploadBody(source: .bytes(bytes), length: Int64(bytes.count)), to: path, condition: condition, contentType: contentType)
  }

  func put(
    _ body: UploadBody, to path: WebDAVPath, condition: WebDAVWriteCondition, contentType: String?
  ) async throws(WebDAVError) -> WebDAVUpload {
    let url = try url(path)
    var extra = condition.headers
    extra.append(("Content-Type", contentType ?? "application/octet-stream"))
    // The deadline covers the whole body's sending, so it is not the first-byte one: a stall is
    // caught by the client's 60 s write and read timeouts instead.
    let response = try await send(
      .PUT, url, headers: headers(extra), body: .stream(body, length: .known(body.length)), operation: .put,
      subject: path, timeout: .seconds(7 * 24 * 3600))
    let etag = response.headers.first(name: "ETag")
    let created = response.status.code == 201
    await drain(response)
    body.progress?(body.length)
    return WebDAVUpload(created: created, etag: etag)
  }

  /// `bytes a-b/total` (total may be `*`).
  static func contentRange(_ value: String?) -> (start: Int64, end: Int64, total: Int64?)? {
    guard let value, value.lowercased().hasPrefix("bytes ") else { return nil }
    let spec = value.dropFirst(6).trimmingCharacters(in: .whitespaces)
    let halves = spec.split(separator: "/", maxSplits: 1)
    guard halves.count == 2 else { return nil }
    let bounds = halves[0].split(separator: "-", maxSplits: 1)
    guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), end >= start else { return nil }
    return (start, end, Int64(halves[1]))
  }
}
