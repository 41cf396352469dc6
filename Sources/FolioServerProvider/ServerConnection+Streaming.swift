import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI

extension ServerConnection {
  /// Sends a bodiless `request` and streams its 2xx body into the sink `accept` makes from the
  /// head (or throws for: the headers do not fit, and nothing is read). The same sign-in and error
  /// rules as ``send(_:)``: a refused token signs in again once, another status is its error, a
  /// pooled connection found closed before the head is tried once more.
  ///
  /// Returns once the body has ended (or failed) on the wire; the sink may still be writing and
  /// hashing (``ContentSink/drained()``). Cancelling the calling task cancels the request.
  func stream(
    _ request: ServerRequest, into accept: (HTTPResponseHead) throws(ProviderError) -> ContentSink
  ) async throws(ProviderError) -> ContentSink {
    var signedInAgain = false
    var attempt = 0
    while true {
      attempt += 1
      let token: String? = request.authenticated ? try await currentToken() : nil
      let receiver = ResponseReceiver()
      let task = HTTPTransport.client.execute(
        request: try clientRequest(request, token: token), delegate: receiver, eventLoop: .indifferent)
      let timeout = request.timeout ?? firstByteTimeout
      let timer = task.eventLoop.scheduleTask(in: timeout) {
        if !receiver.hasHead { task.fail(reason: HTTPClientError.deadlineExceeded) }
      }
      let head: HTTPResponseHead
      do {
        head = try await withTaskCancellationHandler {
          try await receiver.responseHead()
        } onCancel: {
          task.cancel()
        }
      } catch {
        timer.cancel()
        if request.isIdempotentRead, attempt == 1, let e = error as? HTTPClientError, e == .remoteConnectionClosed,
          !Task.isCancelled
        {
          continue
        }
        throw ServerErrorMapping.transport(error, server: serverName, ownCertificates: account.trustedCertificates != nil)
      }
      timer.cancel()
      guard (200..<300).contains(head.status.code) else {
        receiver.collect(upTo: 1 << 20)
        _ = try? await withTaskCancellationHandler {
          try await task.futureResult.get()
        } onCancel: {
          task.cancel()
        }
        if Task.isCancelled { throw .cancelledError }
        try await refused(
          status: head.status, headers: head.headers, body: receiver.collected, token: token,
          signedInAgain: &signedInAgain)
        attempt = 0  // a fresh request: its own retry for a stale pooled connection
        continue
      }
      let sink: ContentSink
      do throws(ProviderError) {
        sink = try accept(head)
      } catch {
        task.cancel()
        receiver.refuse()
        throw error
      }
      receiver.stream(into: sink)
      do {
        try await withTaskCancellationHandler {
          try await task.futureResult.get()
        } onCancel: {
          task.cancel()
        }
      } catch {
        // The sink has the error in terms of the download (how many bytes came); a cancelled task
        // is said as such.
        sink.fail(Task.isCancelled ? .cancelledError : ResponseReceiver.bodyError(error, sink: sink))
      }
      return sink
    }
  }

  /// The delegate API's request: the same URL and headers as ``execute(_:token:)`` sends, no body.
  private func clientRequest(_ r: ServerRequest, token: String?) throws(ProviderError) -> HTTPClient.Request {
    try checkTrustedCertificates()
    var headers = HTTPHeaders()
    headers.add(name: "User-Agent", value: "folio")
    if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
    for (name, value) in r.headers { headers.add(name: name, value: value) }
    do {
      return try HTTPClient.Request(
        url: r.url(base: account.baseURL), method: r.method, headers: headers, tlsConfiguration: tlsConfiguration)
    } catch {
      throw ProviderError(.invalidArgument, "not a usable server address: \(TerminalText.escape(account.baseURL.absoluteString))")
    }
  }
}
