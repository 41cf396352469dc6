import BrowserUI
import ProviderAPI

/// What the app needs about remote locations that only the composition root can answer, because
/// only it knows which kind of provider a domain is and where secrets live: the browser never
/// imports a concrete provider or the credentials file.
public struct RemoteHooks: Sendable {
  /// How a remote location is doing (one cheap request, e.g. FolioServer's `GET /v1/account`).
  public var status: @Sendable (DomainIdentifier) async -> LocationStatus?
  /// Keeps a secret a person typed in the sign-in prompt and the server accepted, for the next
  /// start. Returns what to tell them (nil: nothing to add).
  public var saveSecret: @Sendable (DomainIdentifier, _ user: String, _ secret: String) throws(ProviderError) -> String?

  public init(
    status: @escaping @Sendable (DomainIdentifier) async -> LocationStatus?,
    saveSecret: @escaping @Sendable (DomainIdentifier, String, String) throws(ProviderError) -> String?
  ) {
    self.status = status
    self.saveSecret = saveSecret
  }

  /// No remote locations, or nothing known about them (tests, local-only use).
  public static let none = RemoteHooks(
    status: { _ in nil }, saveSecret: { _, _, _ in nil })
}
