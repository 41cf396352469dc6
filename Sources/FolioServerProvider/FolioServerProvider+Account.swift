import AsyncHTTPClient
import FolioProtocol
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI

extension FolioServerProvider: AccountStatusProviding {
  /// Signs in with what a person typed. The password stays in memory (for re-signing in when the
  /// token expires) and is never written; saving it is the caller's choice (the credentials file).
  ///
  /// - Throws: `notAuthenticated` for a wrong user name or password.
  public func authenticate(_ credentials: Credentials) async throws(ProviderError) {
    let token = try await connection.logIn(user: credentials.user, password: credentials.secret)
    await connection.signIn.signedIn(user: credentials.user, password: credentials.secret, token: token)
  }

  /// Revokes the token on the server and forgets it and any typed password.
  public func signOut() async {
    if let token = await connection.signIn.currentTokenIfAny {
      _ = try? await connection.execute(ServerRequest(.POST, ["logout"]), token: token)
    }
    await connection.signIn.signOut()
  }

  /// The domain's state: one `GET /v1/account` (signing in if needed).
  public func accountStatus() async -> AccountStatus {
    do {
      let a = try await account()
      if let quota = a.quotaBytes, a.usedBytes >= quota { return .overQuota(usedBytes: a.usedBytes, quotaBytes: quota) }
      return .online(usedBytes: a.usedBytes, quotaBytes: a.quotaBytes)
    } catch {
      switch error.code {
      case .notAuthenticated: return .needsSignIn(error.message)
      case .serverUnreachable, .serverBusy: return .offline(error.message)
      default: return .failed(error)
      }
    }
  }

  /// Runs a server-declared action (`lock`, `unlock`, …) on the server.
  public func performAction(_ action: ActionIdentifier, on items: [ItemIdentifier]) async throws(ProviderError) {
    guard actionDeclarations.contains(where: { $0.identifier == action }) || actionDeclarations.isEmpty else {
      throw ProviderError(.noSuchItem, "\(connection.serverName) declares no action '\(TerminalText.escape(action.rawValue))'")
    }
    var ids: [String] = []
    for item in items { ids.append(try WireItemMapper.wireID(item)) }
    try await connection.perform(
      ServerRequest(.POST, ["actions", action.rawValue], body: try jsonBody(PerformActionRequest(items: ids))))
  }

  /// Loads the declarations again (they are loaded at every sign-in).
  public func reloadDeclarations() async throws(ProviderError) {
    let token = try await connection.currentToken()
    _ = try await Self.loadDeclarations(connection, token: token)
  }

  /// `GET /v1/declarations`, turned into ProviderAPI declarations. An action whose rule does not
  /// parse, or a decoration of an unknown category, is left out rather than failing the rest.
  static func loadDeclarations(_ connection: ServerConnection, token: String) async throws(ProviderError) -> Declarations {
    let response = try await connection.execute(ServerRequest(.GET, ["declarations"]), token: token)
    guard (200..<300).contains(response.status.code) else {
      _ = try? await response.body.collect(upTo: 1 << 20)
      throw ProviderError(.serverBusy, "\(connection.serverName) did not send its declarations")
    }
    let answer = try await connection.decode(response, as: DeclarationsResponse.self, what: "its declarations")
    var out = Declarations()
    for a in answer.actions {
      guard !a.id.isEmpty, let rule = try? ActivationRule(parsing: a.rule) else { continue }
      out.actions.append(ActionDeclaration(identifier: ActionIdentifier(a.id), name: a.name, activationRule: rule))
    }
    for d in answer.decorations {
      guard let category = DecorationDeclaration.Category(rawValue: d.category) else { continue }
      out.decorations.append(
        DecorationDeclaration(
          identifier: DecorationIdentifier(d.id), category: category, label: d.label, labelKey: d.labelKey,
          glyph: d.glyph, asciiGlyph: d.asciiGlyph))
    }
    return out
  }
}
