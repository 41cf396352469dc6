import Foundation

/// A parsed activation rule: a predicate over the selection (see ActivationRule+Parser.swift).
///
/// NOTE: the full parser and evaluator land in the ActivationRule+*.swift files.
public struct ActivationRule: Sendable, Hashable, CustomStringConvertible {
  public let source: String

  public init(parsing source: String) throws(ProviderError) {
    self.source = source
    guard source.trimmingCharacters(in: .whitespaces) == "TRUEPREDICATE" else {
      throw ProviderError(.badRule, "rule parser not built yet")
    }
  }

  public func matches(_ context: ActivationContext) -> Bool { true }

  public var description: String { source }
}

/// What a rule is evaluated against: the selection and the domain's userInfo.
public struct ActivationContext: Sendable {
  public var selection: [Item]
  public var domainUserInfo: [String: UserInfoValue]

  public init(selection: [Item], domainUserInfo: [String: UserInfoValue] = [:]) {
    self.selection = selection
    self.domainUserInfo = domainUserInfo
  }
}
