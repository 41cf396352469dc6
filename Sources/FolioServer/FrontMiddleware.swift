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
    var truncate = false
    var response: Response
    do {
      if let faults, let rule = faults.take(method: request.method.rawValue, path: path) {
        if let ms = rule.delayMs, ms > 0 { try await Task.sleep(for: .milliseconds(ms)) }
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
        case .truncate: truncate = true
        case .empty: context.emptyFault = true
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
