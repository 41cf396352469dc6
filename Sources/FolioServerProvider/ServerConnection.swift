import AsyncHTTPClient
import FolioProtocol
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import ProviderAPI

/// Sends requests to one FolioServer account: URLs, the bearer token, one transparent re-login,
/// and every failure turned into a `ProviderError`.
///
/// A request whose token the server refuses (401: expired, revoked, the server's database was
/// replaced) is sent once more after signing in again, when a password is at hand; a second 401,
/// or none at hand, is `notAuthenticated` with `signInHint` appended, so the command line can say
/// how to sign in.
final class ServerConnection: Sendable {
  let account: ServerAccount
  /// "host:port", for messages.
  let serverName: String
  let signIn: SignInState
  /// Appended to `notAuthenticated` messages ("run `folio domain login work`"); nil for none.
  let signInHint: String?
  /// Runs after every successful sign-in with the new token (the provider loads its declarations).
  let afterSignIn: @Sendable (ServerConnection, String) async -> Void
  /// How long an ordinary request may wait for the head of its answer.
  let firstByteTimeout: TimeAmount
  /// For an account with its own trusted certificates: the TLS configuration of every request
  /// (AsyncHTTPClient pools connections per configuration). Nil: the client's, the system's roots.
  let tlsConfiguration: TLSConfiguration?

  /// Answers larger than this are refused rather than read into memory (F08: a 1 GB "listing").
  static let maxJSONBytes = 64 << 20

  init(
    account: ServerAccount, password: PasswordSource, signInHint: String?,
    firstByteTimeout: TimeAmount = HTTPTransport.firstByteTimeout,
    afterSignIn: @escaping @Sendable (ServerConnection, String) async -> Void
  ) {
    self.firstByteTimeout = firstByteTimeout
    self.account = account
    if let trusted = account.trustedCertificates {
      var tls = TLSConfiguration.makeClientConfiguration()
      tls.trustRoots = .file(trusted.path)
      tlsConfiguration = tls
    } else {
      tlsConfiguration = nil
    }
    var name = account.baseURL.host ?? account.baseURL.absoluteString
    if let port = account.baseURL.port { name += ":\(port)" }
    serverName = TerminalText.escape(name)
    signIn = SignInState(user: account.user, source: password)
    self.signInHint = signInHint
    self.afterSignIn = afterSignIn
  }

  // MARK: Sending

  /// Sends `request` (signing in first when needed) and returns the 2xx answer, whose body the
  /// caller reads.
  func send(_ request: ServerRequest) async throws(ProviderError) -> HTTPClientResponse {
    var signedInAgain = false
    while true {
      let token: String? = request.authenticated ? try await currentToken() : nil
      let response = try await execute(request, token: token)
      if (200..<300).contains(response.status.code) { return response }
      let body = try? await response.body.collect(upTo: 1 << 20)
      try await refused(
        status: response.status, headers: response.headers, body: body, token: token, signedInAgain: &signedInAgain)
    }
  }

  /// A non-2xx answer: returns when the request is to be sent again (a refused token, signed in
  /// once more), else throws its error (`notAuthenticated` with the sign-in hint the second time).
  func refused(
    status: HTTPResponseStatus, headers: HTTPHeaders, body: ByteBuffer?, token: String?, signedInAgain: inout Bool
  ) async throws(ProviderError) {
    let error = ServerErrorMapping.error(
      status: status, headers: headers, body: body.map { Data($0.readableBytesView) }, server: serverName)
    guard error.code == .notAuthenticated, let token else { throw error }
    await signIn.invalidate(token)
    guard !signedInAgain else {
      throw hinted(ProviderError(.notAuthenticated, "\(serverName) refused the sign-in of \(TerminalText.escape(account.user))"))
    }
    signedInAgain = true
  }

  /// Sends `request` and decodes its JSON answer.
  func json<T: Decodable>(_ request: ServerRequest, as type: T.Type, what: String) async throws(ProviderError) -> T {
    let response = try await send(request)
    return try await decode(response, as: type, what: what)
  }

  /// Sends `request` and reads (and drops) its answer's body.
  func perform(_ request: ServerRequest) async throws(ProviderError) {
    let response = try await send(request)
    _ = try? await response.body.collect(upTo: Self.maxJSONBytes)
  }

  func decode<T: Decodable>(_ response: HTTPClientResponse, as type: T.Type, what: String) async throws(ProviderError) -> T {
    let buffer: ByteBuffer
    do {
      buffer = try await response.body.collect(upTo: Self.maxJSONBytes)
    } catch is NIOTooManyBytesError {
      throw ProviderError(.cannotSynchronize, "\(serverName) sent \(what) larger than \(Self.maxJSONBytes >> 20) MiB")
    } catch {
      throw ServerErrorMapping.transport(error, server: serverName, ownCertificates: account.trustedCertificates != nil)
    }
    do {
      return try JSONDecoder().decode(T.self, from: Data(buffer.readableBytesView))
    } catch {
      throw ServerErrorMapping.unreadable(what, server: serverName, error: error)
    }
  }

  /// One HTTP exchange, without any sign-in logic. A read whose pooled connection turned out to be
  /// closed is sent once more on a new one (nothing reached the server).
  func execute(_ request: ServerRequest, token: String?) async throws(ProviderError) -> HTTPClientResponse {
    var attempt = 0
    while true {
      attempt += 1
      do {
        return try await HTTPTransport.client.execute(
          try httpRequest(request, token: token), timeout: request.timeout ?? firstByteTimeout)
      } catch {
        if request.isIdempotentRead, attempt == 1, let e = error as? HTTPClientError, e == .remoteConnectionClosed,
          !Task.isCancelled
        {
          continue
        }
        throw ServerErrorMapping.transport(error, server: serverName, ownCertificates: account.trustedCertificates != nil)
      }
    }
  }

  /// The account's own certificates must be readable for its requests: said as what it is, not as
  /// a refused TLS connection.
  func checkTrustedCertificates() throws(ProviderError) {
    guard let file = account.trustedCertificates, !FileManager.default.isReadableFile(atPath: file.path) else { return }
    throw ProviderError(
      .badConfig,
      "the certificates to trust for \(serverName) (tls_ca) cannot be read: \(TerminalText.escape(file.path))")
  }

  private func httpRequest(_ r: ServerRequest, token: String?) throws(ProviderError) -> HTTPClientRequest {
    try checkTrustedCertificates()
    var request = HTTPClientRequest(url: r.url(base: account.baseURL))
    request.method = r.method
    request.tlsConfiguration = tlsConfiguration
    request.headers.add(name: "User-Agent", value: "folio")
    request.headers.add(name: "Accept", value: "application/json")
    if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
    for (name, value) in r.headers { request.headers.add(name: name, value: value) }
    switch r.body {
    case .none:
      break
    case .json(let data):
      request.headers.add(name: "Content-Type", value: "application/json")
      request.body = .bytes(ByteBuffer(bytes: data))
    case .file(let url, let size, let sha256):
      request.headers.add(name: "Content-Type", value: "application/octet-stream")
      request.headers.add(name: WireRoutes.sha256Header, value: sha256)
      request.body = .stream(FileBodySequence(url: url, size: size, progress: r.uploadProgress), length: .known(size))
    }
    return request
  }

  // MARK: Signing in

  /// The token, signing in with the known password when there is none.
  func currentToken() async throws(ProviderError) -> String {
    let hint = signInHint
    let server = serverName
    let user = account.user
    return try await signIn.currentToken(
      signIn: { [self] (user, password) async throws(ProviderError) -> String in
        do throws(ProviderError) {
          return try await self.logIn(user: user, password: password)
        } catch {
          throw self.hinted(error)
        }
      },
      missing: {
        var message = "not signed in to \(server) as \(TerminalText.escape(user))"
        if let hint { message += ": \(hint)" }
        return ProviderError(.notAuthenticated, message)
      })
  }

  /// `POST /v1/login`: a new token for `user`.
  ///
  /// - Throws: `notAuthenticated` ("wrong user name or password") when the server refuses.
  func logIn(user: String, password: String) async throws(ProviderError) -> String {
    let body: Data
    do {
      body = try JSONEncoder().encode(LoginRequest(user: user, password: password))
    } catch {
      throw ProviderError(.invalidArgument, "the user name or password cannot be sent")
    }
    let request = ServerRequest(.POST, ["login"], body: .json(body), authenticated: false)
    let response = try await execute(request, token: nil)
    guard (200..<300).contains(response.status.code) else {
      let data = try? await response.body.collect(upTo: 1 << 20)
      let error = ServerErrorMapping.error(
        status: response.status, headers: response.headers, body: data.map { Data($0.readableBytesView) },
        server: serverName)
      if error.code == .notAuthenticated {
        throw ProviderError(.notAuthenticated, "wrong user name or password for \(TerminalText.escape(user)) on \(serverName)")
      }
      throw error
    }
    let answer = try await decode(response, as: LoginResponse.self, what: "a sign-in answer")
    // The token goes into a header: anything but printable ASCII could split it.
    guard !answer.token.isEmpty, answer.token.utf8.count <= 4096,
      answer.token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
    else {
      throw ProviderError(.cannotSynchronize, "\(serverName) sent an unusable token")
    }
    await afterSignIn(self, answer.token)
    return answer.token
  }

  func hinted(_ error: ProviderError) -> ProviderError {
    guard error.code == .notAuthenticated, let signInHint else { return error }
    return ProviderError(.notAuthenticated, error.message + ": " + signInHint)
  }
}
