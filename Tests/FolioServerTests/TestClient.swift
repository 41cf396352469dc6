import AsyncHTTPClient
import Crypto
import FolioProtocol
import Foundation
import NIOCore
import NIOHTTP1
import TestSupport

/// A signed-in (or not) client of a real `folio serve`, speaking docs/PROTOCOL.md with
/// AsyncHTTPClient. Answers are kept whole (status, headers, bytes): tests look at all three.
struct TestClient: Sendable {
  struct Answer: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
      try JSONDecoder().decode(T.self, from: Data(body))
    }

    /// The wire error code of a non-2xx answer.
    var errorCode: String? { (try? decode(WireErrorBody.self))?.error.code }
    var existing: String? { (try? decode(WireErrorBody.self))?.error.existing }
    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers[name].first }
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  let baseURL: URL
  var token: String?
  var user: String?

  init(_ server: ServerProcess) { baseURL = server.baseURL }
  init(baseURL: URL) { self.baseURL = baseURL }

  /// Signs in and returns a client carrying the token.
  static func signedIn(_ server: ServerProcess, _ user: String = "ana", _ password: String? = nil) async throws
    -> TestClient
  {
    try await TestClient(server).signIn(user, password ?? "\(user)-password")
  }

  func signIn(_ user: String, _ password: String) async throws -> TestClient {
    let answer = try await send("POST", "/v1/login", json: LoginRequest(user: user, password: password))
    guard answer.status == 200 else { throw Failure(description: "login \(user): \(answer.status) \(answer.text)") }
    var c = self
    c.token = try answer.decode(LoginResponse.self).token
    c.user = user
    return c
  }

  /// Sends one request; `path` may carry a query already percent-encoded.
  func send(
    _ method: String, _ path: String, body: [UInt8]? = nil, headers: [(String, String)] = [], timeout: Int64 = 30
  ) async throws -> Answer {
    var request = HTTPClientRequest(url: baseURL.absoluteString + path)
    request.method = HTTPMethod(rawValue: method)
    if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
    for (k, v) in headers { request.headers.add(name: k, value: v) }
    if let body { request.body = .bytes(body) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(timeout))
    let buffer = try await response.body.collect(upTo: 256 << 20)
    return Answer(status: Int(response.status.code), headers: response.headers, body: Array(buffer.readableBytesView))
  }

  func send(_ method: String, _ path: String, json: some Encodable) async throws -> Answer {
    try await send(method, path, body: Array(try JSONEncoder().encode(json)), headers: [("Content-Type", "application/json")])
  }

  /// Sends and requires `status`, decoding the body as `T`.
  func expect<T: Decodable>(
    _ type: T.Type, _ status: Int, _ method: String, _ path: String, json: (any Encodable)? = nil
  ) async throws -> T {
    let answer: Answer
    if let json {
      answer = try await send(method, path, body: Array(try JSONEncoder().encode(json)), headers: [("Content-Type", "application/json")])
    } else {
      answer = try await send(method, path)
    }
    guard answer.status == status else {
      throw Failure(description: "\(method) \(path): expected \(status), got \(answer.status) \(answer.text)")
    }
    return try answer.decode(T.self)
  }

  // MARK: Protocol helpers

  func item(_ id: String) async throws -> WireItem { try await expect(WireItem.self, 200, "GET", "/v1/items/\(id)") }

  func mkdir(_ name: String, in parent: String = "root") async throws -> WireItem {
    try await expect(WireItem.self, 201, "POST", "/v1/items", json: CreateFolderRequest(parent: parent, name: name))
  }

  func uploadAnswer(_ name: String, _ bytes: [UInt8], in parent: String = "root", sha: String? = nil) async throws
    -> Answer
  {
    try await send(
      "POST", "/v1/uploads?parent=\(Self.encode(parent))&name=\(Self.encode(name))", body: bytes,
      headers: [("X-Folio-SHA256", sha ?? Self.sha256(bytes)), ("Content-Type", "application/octet-stream")])
  }

  func upload(_ name: String, _ bytes: [UInt8], in parent: String = "root") async throws -> WireItem {
    let a = try await uploadAnswer(name, bytes, in: parent)
    guard a.status == 201 else { throw Failure(description: "upload \(name): \(a.status) \(a.text)") }
    return try a.decode(UploadResponse.self).item
  }

  func put(_ id: String, base: Int64, _ bytes: [UInt8]) async throws -> Answer {
    try await send(
      "PUT", "/v1/items/\(id)/content?base=\(base)", body: bytes,
      headers: [("X-Folio-SHA256", Self.sha256(bytes)), ("Content-Type", "application/octet-stream")])
  }

  func content(_ id: String, headers: [(String, String)] = []) async throws -> Answer {
    try await send("GET", "/v1/items/\(id)/content", headers: headers)
  }

  func patch(_ id: String, _ change: ModifyRequest) async throws -> Answer {
    try await send("PATCH", "/v1/items/\(id)", json: change)
  }

  func children(_ id: String, query: String = "") async throws -> PageResponse {
    try await expect(PageResponse.self, 200, "GET", "/v1/items/\(id)/children\(query.isEmpty ? "" : "?" + query)")
  }

  /// Every child of `id`, page by page.
  func allChildren(_ id: String, query: String = "limit=1000") async throws -> [WireItem] {
    var out: [WireItem] = []
    var page: String? = nil
    repeat {
      let q = query + (page.map { "&page=\(Self.encode($0))" } ?? "")
      let p = try await children(id, query: q)
      out += p.items
      page = p.nextPage
    } while page != nil
    return out
  }

  func anchor() async throws -> String { try await expect(AnchorResponse.self, 200, "GET", "/v1/anchor").anchor }

  func changes(since: String, limit: Int = 200) async throws -> ChangesResponse {
    try await expect(ChangesResponse.self, 200, "GET", "/v1/changes?since=\(Self.encode(since))&limit=\(limit)")
  }

  /// Every change after `since` until `more` is false.
  func allChanges(since: String) async throws -> (updated: [WireItem], deleted: [String], anchor: String) {
    var anchor = since
    var updated: [WireItem] = []
    var deleted: [String] = []
    while true {
      let batch = try await changes(since: anchor)
      updated += batch.updated
      deleted += batch.deleted
      anchor = batch.anchor
      if !batch.more { return (updated, deleted, anchor) }
    }
  }

  static func sha256(_ bytes: [UInt8]) -> String { SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() }

  /// Percent-encodes every byte outside the unreserved set (a name's bytes exactly).
  static func encode(_ s: String) -> String { encode(bytes: Array(s.utf8)) }

  static func encode(bytes: [UInt8]) -> String {
    let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
    return bytes.map { unreserved.contains($0) ? String(UnicodeScalar($0)) : String(format: "%%%02X", $0) }.joined()
  }
}

/// Deterministic test bytes: `count` bytes from a seed, different for different seeds.
func testBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
  var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
  return (0..<count).map { _ in
    state ^= state << 13
    state ^= state >> 7
    state ^= state << 17
    return UInt8(truncatingIfNeeded: state)
  }
}
