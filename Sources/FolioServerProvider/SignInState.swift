import ProviderAPI

/// The bearer token of one FolioServer domain, and how to get a new one.
///
/// The token lives in memory only, never on disk, so a stolen config or cache holds no session.
/// When it is missing or the server refused it, the next request signs in again with the password
/// a person typed (`authenticate`) or else the domain's `PasswordSource`; concurrent requests that
/// all find the token gone share one sign-in rather than each starting their own.
actor SignInState {
  private var token: String?
  private(set) var user: String
  /// What `authenticate` was given: tried before the password source, never logged.
  private var typedPassword: String?
  private let source: PasswordSource
  private var pending: Task<String, any Error>?

  init(user: String, source: PasswordSource) {
    self.user = user
    self.source = source
  }

  /// The current token, signing in first when there is none.
  ///
  /// - Parameter signIn: Sends the sign-in request: (user, password) → token.
  /// - Throws: `notAuthenticated` when no password is known or the server refuses it.
  func currentToken(
    signIn: @escaping @Sendable (String, String) async throws(ProviderError) -> String,
    missing: @escaping @Sendable () -> ProviderError
  ) async throws(ProviderError) -> String {
    if let token { return token }
    let task: Task<String, any Error>
    if let pending {
      task = pending
    } else {
      let user = self.user
      let typed = typedPassword
      let source = self.source
      task = Task {
        let password: String?
        if let typed { password = typed } else { password = try await source.fetch() }
        guard let password else { throw missing() }
        return try await signIn(user, password)
      }
      pending = task
    }
    do {
      let value = try await task.value
      if pending == task { pending = nil }
      token = value
      return value
    } catch {
      if pending == task { pending = nil }
      throw (error as? ProviderError) ?? ProviderError(.notAuthenticated, String(describing: error))
    }
  }

  /// Forgets `used` after the server refused it (a newer token is kept).
  func invalidate(_ used: String) {
    if token == used { token = nil }
  }

  /// Records a sign-in a person asked for (the prompt): the token, who, and the password they typed.
  func signedIn(user: String, password: String, token: String) {
    self.user = user
    typedPassword = password
    self.token = token
  }

  /// The token, if signed in (for sign-out).
  var currentTokenIfAny: String? { token }

  func signOut() {
    token = nil
    typedPassword = nil
  }
}
