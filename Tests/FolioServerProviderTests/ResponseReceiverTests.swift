import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI
import TestSupport
import Testing

@testable import FolioServerProvider

/// The delegate behind downloads (ResponseReceiver), against a real `folio serve`.
@Suite("ResponseReceiver")
struct ResponseReceiverTests {
  /// A head the download refuses (a header missing, a file that cannot be opened) when the whole
  /// small answer is already read: AsyncHTTPClient holds it until the go-ahead, and acts on the
  /// cancel only then. `refuse()` gives that go-ahead; without it the request never ended (found
  /// in review: every refused head leaked its request).
  @Test func aRefusedHeadStillEndsTheRequest() async throws {
    let fx = try await ServerFixture()
    let item = try await fx.provider().createItem(fileTemplate("tiny.txt"), fields: [], contents: try temporaryFile(5), options: [])
    let connection = ServerConnection(
      account: ServerAccount(baseURL: fx.server.baseURL, user: "ana"), password: .fixed("ana-password"), signInHint: nil,
      afterSignIn: { _, _ in })
    let token = try await connection.currentToken()
    var headers = HTTPHeaders()
    headers.add(name: "Authorization", value: "Bearer \(token)")
    let request = try HTTPClient.Request(
      url: fx.server.baseURL.absoluteString + "/v1/items/\(try WireItemMapper.wireID(item.identifier))/content",
      method: .GET, headers: headers)
    let receiver = ResponseReceiver()
    let task = HTTPTransport.client.execute(request: request, delegate: receiver, eventLoop: .indifferent)
    #expect(try await receiver.responseHead().status == .ok)
    // The 5 bytes and the end arrive while the head waits for its go-ahead.
    try await Task.sleep(for: .milliseconds(300))
    task.cancel()
    receiver.refuse()
    let ended = Ended()
    task.futureResult.whenComplete { _ in ended.set() }
    for _ in 0..<200 where !ended.value { try await Task.sleep(for: .milliseconds(50)) }
    #expect(ended.value, "the refused request never ended")
  }
}

private final class Ended: @unchecked Sendable {
  private let lock = NSLock()
  private var done = false
  func set() { lock.withLock { done = true } }
  var value: Bool { lock.withLock { done } }
}
