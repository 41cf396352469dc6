import ProviderAPI

/// A menu command the user declares in `[[action]]`: a name, when it shows, and what it runs.
public struct CustomActionConfig: Sendable, Equatable {
  /// `id` from the config, else `user.` and the name in lowercase words joined by dashes.
  public var identifier: ActionIdentifier
  /// The menu title.
  public var name: String
  /// When the action is offered for a selection.
  public var rule: ActivationRule
  /// The command, with ``CommandPlaceholder``s as whole arguments.
  public var command: [String]
  /// Ask before running.
  public var confirm: Bool

  public init(
    identifier: ActionIdentifier, name: String, rule: ActivationRule, command: [String], confirm: Bool = false
  ) {
    self.identifier = identifier
    self.name = name
    self.rule = rule
    self.command = command
    self.confirm = confirm
  }

  /// The action as the menu sees it, next to the ones providers declare.
  public var declaration: ActionDeclaration {
    ActionDeclaration(identifier: identifier, name: name, activationRule: rule)
  }

  /// The arguments to run for a selection (see ``CommandTemplate/expand(_:focused:selection:)``).
  public func arguments(focused: ItemPath, selection: [ItemPath]) -> [[UInt8]] {
    CommandTemplate.expand(command, focused: focused, selection: selection)
  }

  /// The identifier an action gets when the config gives none: "Compress to .tar.gz" becomes
  /// `user.compress-to-tar-gz`. Nil when the name has no letter or digit to build one from.
  public static func derivedIdentifier(fromName name: String) -> ActionIdentifier? {
    var slug = ""
    var pendingDash = false
    for c in name.lowercased() {
      if c.isLetter || c.isNumber {
        if pendingDash && !slug.isEmpty { slug.append("-") }
        slug.append(c)
        pendingDash = false
      } else {
        pendingDash = true
      }
    }
    return slug.isEmpty ? nil : ActionIdentifier("user." + slug)
  }
}
