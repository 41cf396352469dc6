import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// An S3 bucket (or a prefix of one) spoken to over HTTP with SigV4: listings, objects, multipart
/// uploads, versions. Every operation is one or a few requests, async, and throws ``S3Error``
/// (or `CancellationError` when its task is cancelled).
///
/// Keys are bytes (`[UInt8]`), relative to ``S3Endpoint/prefix``: Swift's `String` equality would
/// merge NFC and NFD twins, which are two keys to S3. A key must be UTF-8 text (S3's rule), which
/// is checked before anything is sent.
///
/// Nothing is retried here except once after a `RequestTimeTooSkewed`, with the clock offset read
/// from the server's `Date` (docs/remote-providers.md §3.1): ``S3Error/isRetryable`` tells the
/// caller's transfer queue what is worth retrying, with its own backoff and journal.
public final class S3Client: Sendable {
  public let endpoint: S3Endpoint
  public let credentials: S3Credentials
  let httpClient: HTTPClient
  /// Whether the store has ListObjectsV2; share one between the clients of a location.
  public let listing: S3ListingDialect
  private let clock = ClockOffset()
  /// How long a request may wait for the head of its answer, unless it sends a body first or the
  /// server works before it answers (``Request/serverWork``): a server that accepts and never
  /// answers reads as unreachable after this, not after the read timeout's 60 s.
  public let firstByteTimeout: Duration

  /// Bodies of XML answers are read whole; a listing page of 1000 long keys is well under this.
  static let xmlLimit = 32 << 20
  /// Error bodies are read up to this; the rest is dropped.
  static let errorLimit = 64 << 10

  /// One HTTP client for every S3Client of the process, with the timeouts a transfer needs: a
  /// connection in 10 s, no read or write idle for more than 60 s (a stall: bytes must keep
  /// flowing), no whole-request deadline (a large object takes what it takes). The short wait for
  /// an answer's first byte is per request (``firstByteTimeout``). Redirects are never followed: S3 answers a wrong region
  /// with a 301, and following it would send the signature to another host.
  public static let sharedHTTPClient: HTTPClient = {
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

  /// - Parameters:
  ///   - httpClient: Another client for other TLS settings (a private CA); it must not follow
  ///     redirects.
  ///   - listing: What is known of the store's listings (a location's clients share one, so a
  ///     store without ListObjectsV2 is found out once).
  public init(
    endpoint: S3Endpoint, credentials: S3Credentials, httpClient: HTTPClient = S3Client.sharedHTTPClient,
    listing: S3ListingDialect = S3ListingDialect(), firstByteTimeout: Duration = S3Client.defaultFirstByteTimeout
  ) {
    self.firstByteTimeout = firstByteTimeout
    self.endpoint = endpoint
    self.credentials = credentials
    self.httpClient = httpClient
    self.listing = listing
  }

  /// Ten seconds: a listing page, a HEAD or a probe is answered well within it by a live store.
  public static let defaultFirstByteTimeout: Duration = .seconds(30)

  /// Seconds to add to this machine's clock to get the server's, learnt from a skew refusal.
  public var clockOffset: TimeInterval { clock.value }

  // MARK: Requests

  struct Request {
    var method: HTTPMethod
    /// The encoded path (``S3Endpoint/path(forFullKey:)`` or ``S3Endpoint/bucketPath``).
    var path: String
    var query: [(name: String, value: String)] = []
    var headers: [(name: String, value: String)] = []
    var body: Body = .empty
    /// Says what was being done, for messages: "reading a/b.txt".
    var context: String
    /// The server works before it answers (CopyObject, UploadPartCopy, CompleteMultipartUpload:
    /// minutes for gigabytes), so the answer's head has no first-byte deadline; the client's idle
    /// timeouts still end a dead connection.
    var serverWork = false

    /// The head of the answer may be waited for only ``S3Client/firstByteTimeout``: not for an
    /// upload (its head comes after the body) nor for server work.
    var waitsBriefly: Bool {
      if serverWork { return false }
      if case .file = body { return false }
      return true
    }

    enum Body {
      case empty
      case bytes([UInt8])
      /// A range of a file with its SHA-256 (hex), streamed.
      case file(path: String, offset: Int64, length: Int64, sha256: String, progress: S3ProgressHandler?)
    }
  }

  /// Signs and sends a request; the response when its status is 2xx, its body not yet read.
  ///
  /// - Throws: ``S3Error`` from the error body or the status; `.transport` when no answer came.
  func send(_ request: Request) async throws -> HTTPClientResponse {
    var retriedSkew = false
    while true {
      let response: HTTPClientResponse
      do {
        // AsyncHTTPClient's deadline ends when the head arrives; the body is read under the
        // client's read timeout (a stall), however long it takes.
        let deadline: NIODeadline = request.waitsBriefly ? .now() + Self.timeAmount(firstByteTimeout) : .distantFuture
        response = try await httpClient.execute(prepare(request), deadline: deadline)
      } catch let error as S3Error {
        throw error
      } catch let error as CancellationError {
        throw error
      } catch {
        if Task.isCancelled { throw CancellationError() }
        throw S3Error(.transport, "\(request.context): \(Self.describe(error))")
      }
      if (200..<300).contains(response.status.code) { return response }
      let failure = await Self.error(from: response, context: request.context)
      if failure.code == .clockSkewed, !retriedSkew, let date = response.headers.first(name: "date"),
        let serverNow = S3Date.parseHTTPDate(date)
      {
        clock.value = serverNow.timeIntervalSinceNow
        retriedSkew = true
        continue
      }
      throw failure
    }
  }

  /// Sends a request whose answer is XML, and parses it. An `<Error>` document is an error even
  /// under a 200: CopyObject and CompleteMultipartUpload send their failures that way, after the
  /// status line has gone (docs/remote-providers.md §3.1, §7 trap 3).
  func sendForXML(_ request: Request) async throws -> S3XMLElement {
    let response = try await send(request)
    let bytes = try await Self.collect(response, limit: Self.xmlLimit, context: request.context)
    guard !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else {
      throw S3Error.malformed("\(request.context): the answer was empty")
    }
    let root = try S3XMLElement.parse(bytes, what: "the answer to \(request.context)")
    if root.name == "Error" {
      throw Self.error(
        fromXML: root, status: Int(response.status.code), headers: response.headers, context: request.context)
    }
    return root
  }

  /// Sends a request whose answer has no body worth reading; the response headers.
  @discardableResult
  func sendDiscardingBody(_ request: Request) async throws -> HTTPHeaders {
    let response = try await send(request)
    _ = try await Self.collect(response, limit: Self.errorLimit, context: request.context, truncate: true)
    return response.headers
  }

  private func prepare(_ request: Request) -> HTTPClientRequest {
    var headers = request.headers
    headers.append((name: "host", value: endpoint.hostHeader))
    let payloadHash: String
    switch request.body {
    case .empty: payloadHash = SigV4Signer.emptyPayloadHash
    case .bytes(let bytes): payloadHash = SigV4Signer.hex(SHA256.hash(data: bytes))
    case .file(_, _, _, let sha256, _): payloadHash = sha256
    }
    headers.append((name: "x-amz-content-sha256", value: payloadHash))
    if case .bytes(let bytes) = request.body {
      // Bucket settings (versioning, and DeleteObjects) require it on AWS; harmless elsewhere.
      headers.append((name: "Content-MD5", value: Data(Insecure.MD5.hash(data: bytes)).base64EncodedString()))
    }
    let signer = SigV4Signer(credentials: credentials, region: endpoint.region, service: "s3")
    let signed = signer.sign(
      method: request.method.rawValue, encodedPath: request.path, query: request.query, headers: headers,
      payloadHash: payloadHash, date: Date().addingTimeInterval(clock.value))
    let query = SigV4Signer.canonicalQuery(request.query)
    var http = HTTPClientRequest(url: endpoint.origin + request.path + (query.isEmpty ? "" : "?" + query))
    http.method = request.method
    for (name, value) in signed.headers { http.headers.add(name: name, value: value) }
    switch request.body {
    case .empty: break
    case .bytes(let bytes): http.body = .bytes(ByteBuffer(bytes: bytes))
    case .file(let path, let offset, let length, _, let progress):
      let body = S3FileBody(
        path: path, offset: offset, length: length, eventLoops: httpClient.eventLoopGroup, progress: progress)
      http.body = .stream(body, length: .known(length))
    }
    return http
  }

  // MARK: Answers

  /// Reads a body whole, up to `limit` bytes; past it, an error (or, with `truncate`, the rest dropped).
  static func collect(
    _ response: HTTPClientResponse, limit: Int, context: String, truncate: Bool = false
  ) async throws -> [UInt8] {
    var bytes: [UInt8] = []
    do {
      for try await buffer in response.body {
        if bytes.count + buffer.readableBytes > limit {
          if truncate { continue }
          throw S3Error.malformed("\(context): the answer is larger than \(limit) bytes")
        }
        bytes += buffer.readableBytesView
      }
    } catch let error as S3Error {
      throw error
    } catch let error as CancellationError {
      throw error
    } catch {
      throw S3Error(.transport, "\(context): the answer was cut: \(describe(error))")
    }
    return bytes
  }

  /// The error a non-2xx answer means: its XML body's code and message when it has one.
  static func error(from response: HTTPClientResponse, context: String) async -> S3Error {
    let status = Int(response.status.code)
    let bytes = (try? await collect(response, limit: errorLimit, context: context, truncate: true)) ?? []
    if let root = try? S3XMLElement.parse(bytes, what: "an error"), root.name == "Error" {
      return error(fromXML: root, status: status, headers: response.headers, context: context)
    }
    let code = S3Error.code(serverCode: nil, status: status)
    var message = "\(context): the server answered \(status) \(response.status.reasonPhrase)"
    if code == .wrongRegion, let region = response.headers.first(name: "x-amz-bucket-region") {
      message += " (the bucket is in \(region))"
    }
    return S3Error(code, message, httpStatus: status, requestID: response.headers.first(name: "x-amz-request-id"))
  }

  package static func error(fromXML root: S3XMLElement, status: Int, headers: HTTPHeaders, context: String) -> S3Error {
    let serverCode = root.string("Code")
    var said = root.string("Message").map { S3DisplayText.escape(Array($0.utf8)) } ?? ""
    if said.isEmpty { said = "failed" }
    if let region = root.string("Region") ?? headers.first(name: "x-amz-bucket-region") {
      said += " (the bucket is in \(S3DisplayText.escape(Array(region.utf8))))"
    }
    let codeText = serverCode.map { " (\(S3DisplayText.escape(Array($0.utf8))))" } ?? ""
    return S3Error(
      S3Error.code(serverCode: serverCode, status: status), "\(context): \(said)\(codeText)", httpStatus: status,
      serverCode: serverCode, requestID: root.string("RequestId") ?? headers.first(name: "x-amz-request-id"))
  }

  static func timeAmount(_ d: Duration) -> TimeAmount {
    let (seconds, attoseconds) = d.components
    return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
  }

  static func describe(_ error: any Error) -> String {
    if let http = error as? HTTPClientError {
      if http == .deadlineExceeded { return "no answer came in time" }
      return "\(http)"
    }
    return String(describing: error)
  }

  /// A key for messages: the full key, escaped.
  func display(_ fullKey: [UInt8]) -> String { S3DisplayText.escape(fullKey) }
}

/// The clock offset, shared by the requests of one client.
private final class ClockOffset: @unchecked Sendable {
  private let lock = NSLock()
  private var seconds: TimeInterval = 0

  var value: TimeInterval {
    get { lock.withLock { seconds } }
    set { lock.withLock { seconds = newValue } }
  }
}
