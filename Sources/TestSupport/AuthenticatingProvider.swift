import Foundation
import ProviderAPI

/// A provider that demands credentials: every call fails with `notAuthenticated` until
/// `authenticate` is given the expected user and secret, then it forwards to an InMemoryProvider.
/// It is how the authentication prompt is built and tested before the remote providers exist.
public actor AuthenticatingProvider: Provider {
  public nonisolated let domain: DomainIdentifier
  public let backing: InMemoryProvider
  private let expected: Credentials
  public private(set) var signedIn = false
  public private(set) var attempts: [String] = []

  public init(backing: InMemoryProvider, user: String, secret: String) {
    self.backing = backing
    self.domain = backing.domain
    self.expected = Credentials(user: user, secret: secret)
  }

  private func check() throws(ProviderError) {
    guard signedIn else { throw ProviderError(.notAuthenticated, "sign in to \(domain) to continue") }
  }

  public func authenticate(_ credentials: Credentials) async throws(ProviderError) {
    attempts.append(credentials.user)
    guard credentials == expected else {
      throw ProviderError(.notAuthenticated, "wrong user name or password")
    }
    signedIn = true
  }

  public func signOut() { signedIn = false }

  public func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item {
    try check()
    return try await backing.item(for: identifier, pathHint: pathHint)
  }

  public func item(at path: ItemPath) async throws(ProviderError) -> Item {
    try check()
    return try await backing.item(at: path)
  }

  public func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    try check()
    return try await backing.enumerate(request, page: page, progress: progress)
  }

  public func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor {
    try check()
    return try await backing.currentSyncAnchor(for: container)
  }

  public func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch {
    try check()
    return try await backing.changes(in: container, since: anchor)
  }

  public func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try check()
    return try await backing.fetchContents(identifier, version: version, to: destination, progress: progress)
  }

  public func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try check()
    return try await backing.createItem(template, fields: fields, contents: contents, options: options, progress: progress)
  }

  public func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try check()
    return try await backing.modifyItem(
      template, baseVersion: baseVersion, changedFields: changedFields, contents: contents, progress: progress)
  }

  public func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    try check()
    try await backing.deleteItem(identifier, baseVersion: baseVersion, options: options)
  }

  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?) async throws(ProviderError) -> Item {
    try check()
    return try await backing.restoreItem(identifier, to: parent)
  }

  public func restoreItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier?, as name: ItemName?) async throws(ProviderError)
    -> Item
  {
    try check()
    return try await backing.restoreItem(identifier, to: parent, as: name)
  }
}
