import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// The one HTTP client every FolioServer domain of the process shares, with Folio's timeouts.
///
/// A process-wide client, like `HTTPClient.shared`: it lives as long as the process, so no provider
/// has to shut it down (an `HTTPClient` that is released without `shutdown()` traps in debug
/// builds), and domains on the same server share its connection pool.
///
/// Timeouts, by phase (test-plan F04):
/// - connect: 10 s (`Configuration.Timeout.connect`);
/// - first byte: 30 s for ordinary requests — the deadline of `execute`, which covers everything
///   up to the response head; uploads and the long-poll get a deadline that fits them instead;
/// - idle stall: 60 s without a byte read or written (`read`/`write` timeouts), also in the middle
///   of a body.
///
/// Redirects are not followed: a FolioServer never sends one, and following one to another host
/// would hand it the bearer token (test-plan K4, F12). A failed connection is not retried by the
/// pool (`retryConnectionEstablishment = false`): a server that is down answers `serverUnreachable`
/// at once, and the core's backoff — not a hidden loop here — decides when to try again.
enum HTTPTransport {
  static let connectTimeout: TimeAmount = .seconds(10)
  static let firstByteTimeout: TimeAmount = .seconds(30)
  static let idleTimeout: TimeAmount = .seconds(60)

  static let client: HTTPClient = {
    var configuration = HTTPClient.Configuration(
      redirectConfiguration: .disallow,
      timeout: .init(connect: connectTimeout, read: idleTimeout, write: idleTimeout))
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.httpVersion = .http1Only
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
  }()
}
