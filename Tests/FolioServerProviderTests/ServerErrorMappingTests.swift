import AsyncHTTPClient
import FolioProtocol
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI
import Testing

@testable import FolioServerProvider

@Suite("ServerErrorMapping")
struct ServerErrorMappingTests {
  func body(_ code: String, _ message: String = "m", existing: String? = nil) -> Data {
    try! JSONEncoder().encode(WireErrorBody(code: code, message: message, existing: existing))
  }

  func map(_ status: Int, _ body: Data?, headers: HTTPHeaders = [:]) -> ProviderError {
    ServerErrorMapping.error(status: HTTPResponseStatus(statusCode: status), headers: headers, body: body, server: "srv")
  }

  @Test(arguments: [
    ("notAuthenticated", 401, ProviderError.Code.notAuthenticated), ("filenameCollision", 409, .filenameCollision),
    ("syncAnchorExpired", 410, .syncAnchorExpired), ("pageExpired", 410, .pageExpired),
    ("insufficientQuota", 507, .insufficientQuota), ("noSuchItem", 404, .noSuchItem),
    ("directoryNotEmpty", 409, .directoryNotEmpty), ("versionNoLongerAvailable", 410, .versionNoLongerAvailable),
    ("noPermission", 403, .noPermission), ("invalidArgument", 400, .invalidArgument), ("contentMismatch", 400, .ioError),
    ("serverError", 500, .serverBusy),
  ])
  func wireCodesDecide(_ code: String, _ status: Int, _ expected: ProviderError.Code) {
    #expect(map(status, body(code)).code == expected)
    // The code wins over a status that disagrees.
    #expect(map(400, body(code)).code == expected)
  }

  @Test func collisionsNameTheHolder() {
    #expect(map(409, body("filenameCollision", existing: "i7")).existingItem == ItemIdentifier("i7"))
  }

  @Test func statusesWithoutAFolioBody() {
    #expect(map(502, Data("<html>bad gateway</html>".utf8)).code == .serverBusy)
    #expect(map(503, nil).code == .serverBusy)
    #expect(map(429, nil).code == .serverBusy)
    #expect(map(507, nil).code == .insufficientQuota)
    #expect(map(401, nil).code == .notAuthenticated)
    #expect(map(404, Data("{".utf8)).code == .noSuchItem)
    #expect(map(418, nil).code == .cannotSynchronize)
  }

  @Test func retryAfterIsCarried() {
    #expect(map(503, nil, headers: ["Retry-After": "7"]).retryAfter == 7)
    #expect(map(500, body("serverError"), headers: ["Retry-After": "2"]).retryAfter == 2)
    let now = Date(timeIntervalSince1970: 1_000_000_000)
    let headers: HTTPHeaders = ["Retry-After": "Sun, 09 Sep 2001 01:47:00 GMT"]
    #expect(ServerErrorMapping.retryAfterSeconds(headers, now: now) == 20)
    #expect(ServerErrorMapping.retryAfterSeconds(["Retry-After": "soon"]) == nil)
  }

  /// A hostile server's message reaches the terminal escaped, on one line.
  @Test func serverMessagesAreSanitized() {
    let e = map(400, body("invalidArgument", "bad\u{1B}[2J\nname"))
    #expect(!e.message.contains("\u{1B}") && !e.message.contains("\n"))
  }

  @Test func transportFailures() {
    #expect(ServerErrorMapping.transport(HTTPClientError.connectTimeout, server: "s").code == .serverUnreachable)
    #expect(ServerErrorMapping.transport(HTTPClientError.readTimeout, server: "s").code == .serverUnreachable)
    #expect(ServerErrorMapping.transport(HTTPClientError.remoteConnectionClosed, server: "s").code == .serverUnreachable)
    #expect(ServerErrorMapping.transport(HTTPClientError.cancelled, server: "s").code == .cancelled)
    let refused = ServerErrorMapping.transport(IOError(errnoCode: ECONNREFUSED, reason: "connection reset (error set)"), server: "work")
    #expect(refused.code == .serverUnreachable)
    #expect(refused.message == "cannot reach work: connection refused")
    #expect(ServerErrorMapping.transport(CancellationError(), server: "s").code == .cancelled)
  }

  @Test func urlsEscapeEverythingButUnreservedBytes() {
    let r = ServerRequest(.GET, ["items", "a/b c", "children"], query: [("page", "x+y&z=1%"), ("path", "/é")])
    #expect(
      r.url(base: URL(string: "http://h:1/prefix/")!)
        == "http://h:1/prefix/v1/items/a%2Fb%20c/children?page=x%2By%26z%3D1%25&path=%2F%C3%A9")
  }
}

@Suite("Malformed answers")
struct MalformedAnswerTests {
  /// F08: truncated, mistyped, deeply nested or non-UTF-8 JSON is `cannotSynchronize`, never a crash.
  @Test func malformedJSONIsCannotSynchronize() async throws {
    let connection = ServerConnection(
      account: ServerAccount(baseURL: URL(string: "http://127.0.0.1:9")!, user: "ana"), password: .none,
      signInHint: nil
    ) { _, _ in }
    let bodies: [[UInt8]] = [
      Array("{".utf8), Array("[1,2]".utf8), Array("{\"items\": 5, \"total\": 1}".utf8),
      Array(String(repeating: "[", count: 100_000).utf8), [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D],
      Array("{\"items\":[{\"id\":\"a\"}],\"total\":1}".utf8),
    ]
    for bytes in bodies {
      let response = HTTPClientResponse(status: .ok, headers: [:], body: .bytes(ByteBuffer(bytes: bytes)))
      let error = await #expect(throws: ProviderError.self) {
        try await connection.decode(response, as: PageResponse.self, what: "a listing")
      }
      #expect(error?.code == .cannotSynchronize)
    }
  }
}
