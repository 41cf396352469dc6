import FolioConfig
import Foundation
import ProviderAPI

/// A custom action offered for a selection: declared by a provider (performed by it) or by the
/// user in config (a program run with an argv).
public struct CustomAction: Sendable, Equatable {
  public enum Source: Sendable, Equatable {
    case provider(DomainIdentifier)
    case user(CustomActionConfig)
  }

  public var identifier: ActionIdentifier
  public var name: String
  public var rule: ActivationRule
  public var source: Source

  public var needsConfirmation: Bool {
    if case .user(let c) = source { return c.confirm }
    return false
  }
}

/// Finds the custom actions whose activation rules match a selection, and runs them.
///
/// Matching reads only the items already at hand (from a listing or the index): it never calls a
/// provider, so building a context menu is instant even when a server is slow.
public struct ActionRunner: Sendable {
  public let userActions: [CustomActionConfig]

  public init(userActions: [CustomActionConfig]) { self.userActions = userActions }

  /// Every action declared for the domain: the provider's first, then the user's.
  public func declaredActions(for domain: Domain) -> [CustomAction] {
    domain.provider.actionDeclarations.map {
      CustomAction(identifier: $0.identifier, name: $0.name, rule: $0.activationRule, source: .provider(domain.identifier))
    } + userActions.map { CustomAction(identifier: $0.identifier, name: $0.name, rule: $0.rule, source: .user($0)) }
  }

  /// The actions whose rules match the selection.
  public func actions(for selection: [Item], in domain: Domain, domainUserInfo: [String: UserInfoValue] = [:]) -> [CustomAction] {
    let context = ActivationContext(selection: selection, domainUserInfo: domainUserInfo)
    return declaredActions(for: domain).filter { $0.rule.matches(context) }
  }

  /// The action named `name` (its identifier or its menu title, case-insensitive).
  public func action(named name: String, in domain: Domain) -> CustomAction? {
    let all = declaredActions(for: domain)
    return all.first { $0.identifier.rawValue == name } ?? all.first { $0.name.lowercased() == name.lowercased() }
  }

  /// Runs an action on a selection whose rule must match.
  ///
  /// - Parameters:
  ///   - domainUserInfo: the domain's userInfo, as given to ``actions(for:in:domainUserInfo:)``:
  ///     a rule that reads `domainUserInfo` is checked against the same values it was offered for.
  /// - Returns: the program's outcome for user actions, nil for provider actions.
  public func run(
    _ action: CustomAction, on selection: [Item], in domain: Domain, domainUserInfo: [String: UserInfoValue] = [:]
  ) async throws(ProviderError) -> ProgramRunner.Outcome? {
    guard let focused = selection.first else { throw ProviderError(.invalidArgument, "no item selected") }
    guard action.rule.matches(ActivationContext(selection: selection, domainUserInfo: domainUserInfo)) else {
      throw ProviderError(.invalidArgument, "the action '\(TerminalText.escape(action.name))' does not apply to this selection (rule: \(TerminalText.escape(action.rule.source)))")
    }
    switch action.source {
    case .provider(let owner):
      // An action identifier means something only to the provider that declared it.
      guard owner == domain.identifier else {
        throw ProviderError(
          .invalidArgument,
          "the action '\(TerminalText.escape(action.name))' belongs to the location '\(TerminalText.escape(owner.rawValue))', not '\(TerminalText.escape(domain.identifier.rawValue))'")
      }
      try await domain.provider.performAction(action.identifier, on: selection.map(\.identifier))
      return nil
    case .user(let config):
      let argv = config.arguments(focused: focused.path, selection: selection.map(\.path))
      return try await ProgramRunner.run(argv)
    }
  }
}
