import FolioProtocol
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ProviderAPI

/// What every request passes through first: fault injection (with `--faults`), errors turned into
/// their wire body, the `X-Folio-Server: 1` header, and one log line on stderr.
///
/// The log line holds the method, the path without its query, the status and the time in ms —
/// never a header, so never a token or a password (those travel in headers and bodies only).
struct FrontMiddleware: RouterMiddleware {
  typealias Context = FolioRequestContext
  let faults: FaultInjector?

  static let serverHeader = HTTPField.Name(WireRoutes.serverHeader)!

  func handle(
    _ request: Request, context: FolioRequestContext,
    next: (Request, FolioRequestContext) async throws -> Response
  ) async throws -> Response {
    let start = ContinuousClock.now
    let path = request.uri.path
    var context = context
    var request = request
    var truncate = false
    var corrupt = false
    var stallResponse: Int?
    var response: Response
    do {
      if let faults, let rule = faults.take(method: request.method.rawValue, path: path) {
        if let ms = rule.delayMs, ms > 0, rule.kind != .stall { try await Task.sleep(for: .milliseconds(ms)) }
        switch rule.kind {
        case .delay: break
        case .status:
          let status = rule.status ?? 503
          let code = rule.code ?? Self.code(forStatus: status)
          var r = Self.json(WireErrorBody(code: code, message: "injected fault"), status: status)
          if let after = rule.retryAfter { r.headers[.retryAfter] = String(after) }
          r.headers[Self.serverHeader] = "1"
          Self.log(request, status: String(status), start: start)
          return r
        case .drop:
          Self.log(request, status: "dropped", start: start)
          try? await context.channel.close()
          throw InjectedDrop()
        case .truncate:
          truncate = true
          context.bodyFault = true
        case .empty: context.emptyFault = true
        case .corrupt:
          corrupt = true
          context.bodyFault = true
        case .stall:
          let ms = rule.delayMs ?? 0
          if let text = request.headers[.contentLength], let length = Int(text), length > 0 {
            request.body = Self.stalled(request.body, after: length / 2, ms: ms)
          } else {
            stallResponse = ms
            context.bodyFault = true
          }
        case .ignoreRange:
          var head = request.head
          head.headerFields[.range] = nil
          request = Request(head: head, body: request.body)
        }
      }
      response = try await next(request, context)
    } catch is InjectedDrop {
      throw InjectedDrop()
    } catch let error as HTTPError where error.status == .notFound {
      response = Self.error(ServerError(.invalidArgument, "no such endpoint", status: 404))
    } catch let error as HTTPError {
      response = Self.error(ServerError(.invalidArgument, error.body ?? "bad request", status: error.status.code))
    } catch {
      response = Self.error(asServerError(error))
    }
    response.headers[Self.serverHeader] = "1"
    if let ms = stallResponse, let full = response.body.contentLength {
      Self.log(request, status: "\(response.status.code) stalled", start: start)
      let original = response.body
      response.body = ResponseBody(contentLength: full) { writer in
        try await original.write(StallingWriter(base: writer, left: full / 2, ms: ms))
      }
      return response
    }
    if corrupt {
      Self.log(request, status: "\(response.status.code) corrupted", start: start)
      return Self.corrupted(response)
    }
    if truncate, let full = response.body.contentLength {
      Self.log(request, status: "\(response.status.code) truncated", start: start)
      return Self.truncated(response, full: full)
    }
    Self.log(request, status: String(response.status.code), start: start)
    return response
  }

  /// The same head with the whole length promised, half the body sent, then the connection closed
  /// (the body writer fails, and Hummingbird closes a connection whose response failed).
  private static func truncated(_ response: Response, full: Int) -> Response {
    var response = response
    let original = response.body
    let half = full / 2
    response.body = ResponseBody(contentLength: full) { writer in
      try await original.write(CuttingWriter(base: writer, left: half))
      // Give the half a moment to leave the socket before the connection goes.
      try await Task.sleep(for: .milliseconds(50))
      throw InjectedDrop()
    }
    return response
  }

  /// The request body with a pause of `ms` once `half` bytes were read.
  private static func stalled(_ body: RequestBody, after half: Int, ms: Int) -> RequestBody {
    let seen = ByteCounter()
    return RequestBody(
      asyncSequence: body.map { buffer in
        if seen.add(buffer.readableBytes, crossing: half) { try await Task.sleep(for: .milliseconds(ms)) }
        return buffer
      })
  }

  /// The same head and length, every byte of the body inverted.
  private static func corrupted(_ response: Response) -> Response {
    var response = response
    let original = response.body
    response.body = ResponseBody(contentLength: original.contentLength) { writer in
      try await original.write(InvertingWriter(base: writer))
    }
    return response
  }

  static func json(_ value: some Encodable, status: Int) -> Response {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
    return Response(
      status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
  }

  static func error(_ e: ServerError) -> Response { json(e.body, status: e.httpStatus) }

  static func code(forStatus status: Int) -> String {
    switch status {
    case 401: "notAuthenticated"
    case 403: "noPermission"
    case 404: "noSuchItem"
    case 507: "insufficientQuota"
    default: "serverError"
    }
  }

  static func log(_ request: Request, status: String, start: ContinuousClock.Instant) {
    let elapsed = ContinuousClock.now - start
    let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    let line = "\(request.method.rawValue) \(TerminalText.escape(request.uri.path)) \(status) \(String(format: "%.1f", ms))ms\n"
    FileHandle.standardError.write(Data(line.utf8))
  }
}

/// Thrown to end a connection on purpose (the `drop` and `truncate` faults).
struct InjectedDrop: Error {}

/// Passes bytes through until its budget is spent, then swallows the rest.
private struct CuttingWriter: ResponseBodyWriter {
  var base: any ResponseBodyWriter
  var left: Int

  mutating func write(_ buffer: ByteBuffer) async throws {
    let n = min(left, buffer.readableBytes)
    guard n > 0 else { return }
    try await base.write(buffer.getSlice(at: buffer.readerIndex, length: n)!)
    left -= n
  }

  consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// Passes every byte through inverted (the `corrupt` fault).
private struct InvertingWriter: ResponseBodyWriter {
  var base: any ResponseBodyWriter

  mutating func write(_ buffer: ByteBuffer) async throws {
    var out = ByteBuffer()
    out.reserveCapacity(buffer.readableBytes)
    buffer.withUnsafeReadableBytes { raw in
      for b in raw { out.writeInteger(~b) }
    }
    try await base.write(out)
  }

  consuming func finish(_ trailingHeaders: HTTPFields?) async throws { try await base.finish(trailingHeaders) }
}

/// Passes bytes through, pausing once when `left` of them have gone (the `stall` fault); -1 once
/// it paused.
private struct StallingWriter: ResponseBodyWriter {
  var base: any ResponseBodyWriter
  var left: Int
  let ms: Int

  mutating func write(_ buffer: ByteBuffer) async throws {
    guard left >= 0, buffer.readableBytes >= left else {
      if left >= 0 { left -= buffer.readableBytes }
      try await base.write(buffer)
      return
    }
    if left > 0 { try await base.write(buffer.getSlice(at: buffer.readerIndex, length: left)!) }
    try await Task.sleep(for: .milliseconds(ms))
    if buffer.readableBytes > left {
      try await base.write(buffer.getSlice(at: buffer.readerIndex + left, length: buffer.readableBytes - left)!)
    }
    left = -1
  }

  consuming func finish(_ trailingHeaders: HTTPFields?) async throws { try await base.finish(trailingHeaders) }
}

/// Counts the bytes of a request body as they pass (the `stall` fault).
private final class ByteCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0

  /// Adds `n` and says whether this addition reached `mark`.
  func add(_ n: Int, crossing mark: Int) -> Bool {
    lock.withLock {
      let before = count
      count += n
      return before < mark && count >= mark
    }
  }
}
