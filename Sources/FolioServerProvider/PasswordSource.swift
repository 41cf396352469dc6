import ProviderAPI

/// Where a FolioServer domain's password comes from when the provider has to sign in.
///
/// A closure rather than a string, so that the secret is fetched only when a sign-in is needed
/// (a listing of a local folder never runs `password_command`) and never sits in a configuration
/// value that could be printed. The provider never logs what it returns, keeps it in memory only
/// and never writes it anywhere; it answers nil when there is no password to try, and the
/// provider then says `notAuthenticated` so that a person can sign in.
public struct PasswordSource: Sendable {
  let fetch: @Sendable () async throws(ProviderError) -> String?

  /// - Parameter fetch: Returns the password, nil when none is known, or throws when getting it
  ///   failed (a `password_command` that exited with an error).
  public init(_ fetch: @escaping @Sendable () async throws(ProviderError) -> String?) {
    self.fetch = fetch
  }

  /// No password: every sign-in waits for `authenticate` (the UI's prompt, `folio domain login`).
  public static let none = PasswordSource { nil }

  /// A password known in advance (`--password-stdin`, tests).
  public static func fixed(_ password: String) -> PasswordSource { PasswordSource { password } }
}
