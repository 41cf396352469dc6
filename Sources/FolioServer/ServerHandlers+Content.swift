import FolioProtocol
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// Content: streamed uploads and ranged downloads.
extension ServerHandlers {
  static let sha256Header = HTTPField.Name(WireRoutes.sha256Header)!
  static let contentVersionHeader = HTTPField.Name(WireRoutes.contentVersionHeader)!

  /// `POST /v1/uploads?parent=P&name=N`: a new file.
  func upload(_ request: Request, _ context: FolioRequestContext) async throws -> Response {
    let user = try await user(request)
    let q = QueryParameters(request.uri.query)
    let parent = try q.require("parent")
    guard let nameBytes = q.bytes("name") else { throw ServerError.invalid("name is missing") }
    let name = try NameRules.validate(bytes: nameBytes)
    let length: Int64
    let sha: String
    do {
      (length, sha) = try uploadHeaders(request)
      try await items.precheckNewFile(parent: parent, name: name, size: length, user: user)
    } catch {
      return await refusedBeforeBody(error, context)
    }
    let staged = try await receive(request, length: length, sha256: sha)
    do {
      let item = try await items.createFile(parent: parent, name: name, staged: staged, user: user)
      return json(UploadResponse(item: item, contentAccepted: true, conflictCopy: nil), status: 201)
    } catch {
      staged.discard()
      throw error
    }
  }

  /// `PUT /v1/items/{id}/content?base=C`: new content, or a conflict copy when C is stale.
  func replace(_ request: Request, _ context: FolioRequestContext) async throws -> Response {
    let user = try await user(request)
    let id = try id(context)
    guard let base = try QueryParameters(request.uri.query).int("base") else {
      throw ServerError.invalid("base (the content revision the bytes were based on) is missing")
    }
    let length: Int64
    let sha: String
    do {
      (length, sha) = try uploadHeaders(request)
      try await items.precheckReplace(id: id, base: base, size: length, user: user)
    } catch {
      return await refusedBeforeBody(error, context)
    }
    let staged = try await receive(request, length: length, sha256: sha)
    do {
      return json(try await items.replaceContent(id: id, base: base, staged: staged, user: user))
    } catch {
      staged.discard()
      throw error
    }
  }

  /// An upload refused before its body was read: the answer closes the connection, so the client
  /// learns at once (507, 409, 403) instead of the server reading and dropping gigabytes first.
  ///
  /// Hummingbird drains an unread body before it reads the next request; closing the input side
  /// ends that drain at once, and the server then closes the connection after the answer.
  private func refusedBeforeBody(_ error: any Error, _ context: FolioRequestContext) async -> Response {
    var response = FrontMiddleware.error(asServerError(error))
    response.headers[.connection] = "close"
    try? await context.channel.close(mode: .input)
    return response
  }

  /// Content-Length (required: the quota is checked against it before any byte is read) and the
  /// stated SHA-256.
  private func uploadHeaders(_ request: Request) throws -> (Int64, String) {
    guard let text = request.headers[.contentLength], let length = Int64(text), length >= 0 else {
      throw ServerError.invalid("an upload needs Content-Length")
    }
    guard let sha = request.headers[Self.sha256Header]?.lowercased(), sha.utf8.count == 64,
      sha.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
    else { throw ServerError.invalid("an upload needs \(WireRoutes.sha256Header): 64 hex digits") }
    return (length, sha)
  }

  /// Streams the body into `uploads/`, chunk by chunk as it arrives: memory stays at one chunk
  /// whatever the size. A short or long body, a wrong hash or a dropped connection stores nothing.
  private func receive(_ request: Request, length: Int64, sha256: String) async throws -> StagedUpload {
    let sink = try content.beginUpload()
    do {
      for try await buffer in request.body {
        try buffer.withUnsafeReadableBytes { try sink.append($0, limit: length) }
      }
    } catch let e as ServerError {
      throw e
    } catch {
      throw ServerError(.contentMismatch, "the upload was cut off after \(sink.count) bytes; nothing was stored")
    }
    return try sink.finish(expectedSize: length, expectedSHA256: sha256)
  }

  /// `GET /v1/items/{id}/content`, whole or one `Range: bytes=…`.
  ///
  /// Sent with `sendfile` (``SendfileBody``) on plain HTTP; read into a ring of buffers and written
  /// through Hummingbird over TLS, and when a test fault rewrites the body.
  func download(_ request: Request, _ context: FolioRequestContext) async throws -> Response {
    _ = try await user(request)
    let id = try id(context)
    let record = try await items.pool.read { db in try ItemRecord.live(db, id: id) }
    guard !record.isFolder else { throw ServerError.invalid("\(id) is a folder") }
    if let asked = try QueryParameters(request.uri.query).int("version"), asked != record.contentVersion {
      throw ServerError(.versionNoLongerAvailable, "content revision \(asked) of \(id) is gone; it is \(record.contentVersion) now")
    }
    // Open before answering: a newer upload may unlink this revision, and an open descriptor keeps
    // its bytes readable to the end.
    let file = try OpenFile(content.url(id: record.id, revision: record.contentVersion))
    let size = record.size
    // Checked before the head goes out: a body cut short later could only drop the connection.
    guard let actual = file.size, actual >= size else {
      throw ServerError(.serverError, "the content of this item is shorter on the server than its record")
    }
    var status = HTTPResponse.Status.ok
    var start: Int64 = 0
    var count = size
    var headers: HTTPFields = [
      .contentType: "application/octet-stream", .acceptRanges: "bytes",
      Self.sha256Header: record.sha256 ?? "", Self.contentVersionHeader: String(record.contentVersion),
    ]
    if let range = request.headers[.range] {
      switch ByteRange.parse(range, size: size) {
      case .whole: break
      case .unsatisfiable:
        var refused = FrontMiddleware.error(
          ServerError(.invalidArgument, "the range \(range) is outside the \(size) bytes", status: 416))
        refused.headers[.contentRange] = "bytes */\(size)"
        return refused
      case .part(let a, let b):
        status = .partialContent
        start = a
        count = b - a + 1
        headers[.contentRange] = "bytes \(a)-\(b)/\(size)"
      }
    }
    let first = start
    let total = count
    if sendfile && !context.bodyFault {
      let sender = SendfileBody(file: file, channel: context.channel)
      let body = ResponseBody(contentLength: Int(total)) { writer in
        try await sender.send(from: first, count: total)
        try await writer.finish(nil)
      }
      return Response(status: status, headers: headers, body: body)
    }
    let body = ResponseBody(contentLength: Int(total)) { writer in
      var offset = first
      var left = total
      var ring = ReadBufferRing()
      while left > 0 {
        let n = Int(min(Int64(ReadBufferRing.chunk), left))
        var buffer = ring.take()
        try file.read(into: &buffer, at: offset, count: n)
        if buffer.readableBytes == 0 { break }
        ring.keep(buffer)
        try await writer.write(buffer)
        offset += Int64(buffer.readableBytes)
        left -= Int64(buffer.readableBytes)
      }
      try await writer.finish(nil)
    }
    return Response(status: status, headers: headers, body: body)
  }
}
