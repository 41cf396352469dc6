import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import ProviderAPI

/// A WebDAV (RFC 4918) account: listings streamed from PROPFIND, transfers streamed to and from
/// local files, the namespace methods, RFC 4331 quota, and a probe of what the server really does
/// with conditional writes (remote-providers.md §1.1, §4).
///
/// Paths are ``WebDAVPath``s below the configuration's base URL: bytes, percent-encoded on the way
/// out and decoded from hrefs on the way in. Every request carries Basic credentials; a 401 is
/// `needsSignIn` with the realm, never retried here. Failures are ``WebDAVError``s.
///
/// Stateless apart from the shared connection pool: any number of requests may run at once.
public final class WebDAVClient: Sendable {
  public let configuration: WebDAVConfiguration
  let resolver: HrefResolver
  /// For a configuration with its own CA file: every request's TLS configuration (AsyncHTTPClient
  /// pools connections per configuration). Nil: the client's, with the system's roots.
  let tlsConfiguration: TLSConfiguration?

  public init(_ configuration: WebDAVConfiguration) {
    self.configuration = configuration
    resolver = HrefResolver(basePath: configuration.basePathBytes)
    if let caFile = configuration.caFile {
      var tls = TLSConfiguration.makeClientConfiguration()
      tls.trustRoots = .file(caFile)
      tlsConfiguration = tls
    } else {
      tlsConfiguration = nil
    }
  }

  var server: String { configuration.serverName }

  // MARK: Requests

  /// The URL of `path`, checked to reach the wire as built.
  ///
  /// AsyncHTTPClient sends `URL.path`'s percent-encoded form, and Foundation's `URL.path` is empty
  /// when the escapes decode to bytes that are not UTF-8: the request would then go to `/` — a
  /// DELETE of the server's root instead of a file named `caf\xE9`. Such a path is refused here
  /// (`nameNotAddressable`), never sent (docs/DECISIONS.md).
  func url(_ path: WebDAVPath, collection: Bool = false) throws(WebDAVError) -> String {
    let text = configuration.url(path, collection: collection)
    guard let url = URL(string: text), !url.path.isEmpty,
      let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
      text.hasSuffix(components.percentEncodedPath)
    else {
      throw WebDAVError(
        .nameNotAddressable,
        "\(path) cannot be sent to a WebDAV server by this client: its name is not valid UTF-8")
    }
    return text
  }

  /// Authorization and User-Agent, plus `extra`.
  func headers(_ extra: [(String, String)] = []) -> HTTPHeaders {
    var headers = HTTPHeaders()
    headers.add(name: "User-Agent", value: "folio")
    headers.add(name: "Authorization", value: configuration.authorization)
    for (name, value) in extra { headers.add(name: name, value: value) }
    return headers
  }

  /// One exchange through the async API, for requests whose answer is small: returns a 2xx
  /// response (its body unread), or throws the status's error with up to 4 KiB of its body read.
  func send(
    _ method: HTTPMethod, _ url: String, headers: HTTPHeaders, body: HTTPClientRequest.Body? = nil,
    operation: DAVOperation, subject: WebDAVPath, timeout: Duration? = nil
  ) async throws(WebDAVError) -> HTTPClientResponse {
    var request = HTTPClientRequest(url: url)
    request.method = method
    request.headers = headers
    request.body = body
    request.tlsConfiguration = tlsConfiguration
    let response: HTTPClientResponse
    do {
      response = try await DAVTransport.client.execute(request, timeout: .nanoseconds(Int64(nanoseconds(timeout ?? configuration.firstByteTimeout))))
    } catch {
      throw StatusMapping.transport(error, server: server)
    }
    guard (200..<300).contains(response.status.code) else {
      let text = try? await response.body.collect(upTo: 4096)
      throw StatusMapping.error(
        status: Int(response.status.code), headers: response.headers, operation: operation,
        subject: subject.description, server: server, body: text.map { String(buffer: $0) })
    }
    return response
  }

  /// Reads and drops what is left of a small answer, so that its connection goes back to the pool.
  func drain(_ response: HTTPClientResponse) async {
    _ = try? await response.body.collect(upTo: 1 << 20)
  }

  /// One exchange through the delegate API, for answers streamed to a ``BodyConsumer``: returns
  /// once the head came. The caller then says where the body goes and waits for `task`.
  func open(
    _ method: HTTPMethod, _ url: String, headers: HTTPHeaders, body: [UInt8]? = nil
  ) async throws(WebDAVError) -> (task: HTTPClient.Task<Void>, response: StreamingResponse, head: HTTPResponseHead) {
    let request: HTTPClient.Request
    do {
      request = try HTTPClient.Request(
        url: url, method: method, headers: headers, body: body.map { .bytes($0) }, tlsConfiguration: tlsConfiguration)
    } catch {
      throw WebDAVError(.badConfiguration, "not a usable URL: \(TerminalText.escape(url))")
    }
    let response = StreamingResponse()
    let task = DAVTransport.client.execute(request: request, delegate: response, eventLoop: .indifferent)
    let timer = task.eventLoop.scheduleTask(in: .nanoseconds(Int64(nanoseconds(configuration.firstByteTimeout)))) {
      if !response.hasHead { task.fail(reason: HTTPClientError.deadlineExceeded) }
    }
    do {
      let head = try await withTaskCancellationHandler {
        try await response.responseHead()
      } onCancel: {
        task.cancel()
      }
      timer.cancel()
      return (task, response, head)
    } catch {
      timer.cancel()
      throw StatusMapping.transport(error, server: server)
    }
  }

  /// The error for a streamed answer whose status is not the one expected: its body is collected
  /// (4 KiB at most) and mapped.
  func refusal(
    _ opened: (task: HTTPClient.Task<Void>, response: StreamingResponse, head: HTTPResponseHead), operation: DAVOperation,
    subject: WebDAVPath
  ) async -> WebDAVError {
    opened.response.collect(upTo: 4096)
    _ = try? await opened.task.futureResult.get()
    let status = Int(opened.head.status.code)
    if (200..<300).contains(status) {
      return WebDAVError(
        .unexpectedStatus, "unexpected answer (HTTP \(status)) to \(operation.rawValue) \(subject) on \(server)", status: status)
    }
    return StatusMapping.error(
      status: status, headers: opened.head.headers, operation: operation, subject: subject.description, server: server,
      body: opened.response.collected)
  }

  /// Waits for a streamed request to end; cancelling the caller cancels it.
  func finish(_ task: HTTPClient.Task<Void>) async throws(WebDAVError) {
    do {
      try await withTaskCancellationHandler {
        try await task.futureResult.get()
      } onCancel: {
        task.cancel()
      }
    } catch {
      throw StatusMapping.transport(error, server: server)
    }
  }

  private func nanoseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
  }
}
