import AsyncHTTPClient
import NIOCore

/// The one HTTP client every WebDAV account of the process shares.
///
/// Process-wide, like FolioServerProvider's: it lives as long as the process (an `HTTPClient`
/// released without `shutdown()` traps in debug builds) and accounts on one server share its
/// connection pool.
///
/// - Redirects are not followed: one to another host, or from https to http, would take the
///   Basic credentials along (test-plan F12). A redirect is an error that names where it pointed.
/// - A failed connection is not retried inside the pool: a server that is down answers
///   `unreachable` at once, and the caller's backoff decides when to try again.
/// - Connect within 10 s; a transfer that moves no byte for 60 s fails (test-plan F04).
enum DAVTransport {
  static let client: HTTPClient = {
    var configuration = HTTPClient.Configuration(
      redirectConfiguration: .disallow,
      timeout: .init(connect: .seconds(10), read: .seconds(60), write: .seconds(300)))
    // A write may sit idle longer than a read: the body is produced by a task of the cooperative
    // pool, and in the test process (a thousand tests at once) that pool stalled for over 60 s at
    // the start of a run, failing every S3 PUT of that moment with writeTimeout (issue 11 note).
    configuration.connectionPool.retryConnectionEstablishment = false
    configuration.httpVersion = .http1Only
    return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
  }()

  /// Waits until every event loop of the client has run what was queued on it, so that the
  /// previous chunk of an upload has reached its connection before the next one is read.
  ///
  /// AsyncHTTPClient asks for the next chunk as soon as it has queued the last one's write, and
  /// stops asking only once the loop has run that write and found the socket full; reading a file
  /// from the page cache outruns a loaded loop, and the chunks queued meanwhile took an upload's
  /// peak memory up by tens of MiB (FolioServerProvider's `FileBodySequence`, docs/BENCHMARKS.md).
  static func letWritesCatchUp() async throws {
    for loop in client.eventLoopGroup.makeIterator() {
      try await loop.submit {}.get()
    }
  }
}
