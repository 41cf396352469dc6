import Foundation

/// The identifier of a custom action ("com.example.pin", "user.compress").
public struct ActionIdentifier: Hashable, Sendable, Codable, CustomStringConvertible {
  public let rawValue: String
  public init(_ rawValue: String) { self.rawValue = rawValue }
  public var description: String { rawValue }
}

/// A menu command a provider (or the user, in config) declares, shown when its activation rule
/// matches the selection.
public struct ActionDeclaration: Sendable, Hashable {
  public var identifier: ActionIdentifier
  /// The menu title.
  public var name: String
  public var activationRule: ActivationRule

  public init(identifier: ActionIdentifier, name: String, activationRule: ActivationRule) {
    self.identifier = identifier
    self.name = name
    self.activationRule = activationRule
  }
}

/// The identifier of a decoration a provider declared.
public struct DecorationIdentifier: Hashable, Sendable, Codable, CustomStringConvertible {
  public let rawValue: String
  public init(_ rawValue: String) { self.rawValue = rawValue }
  public var description: String { rawValue }
}

/// A decoration a provider may put on items: a small badge next to the name, or a sharing label.
public struct DecorationDeclaration: Sendable, Hashable {
  public enum Category: String, Sendable, Codable {
    /// A badge on the item (only the first one is shown).
    case badge
    /// A label such as "Shared by Ana" (only the first one is shown).
    case sharing
    /// A badge on folders only.
    case folderBadge
  }

  public var identifier: DecorationIdentifier
  public var category: Category
  /// The text shown in Info and menus; `%@` is replaced by `labelKey`'s userInfo value.
  public var label: String
  public var labelKey: String?
  /// The glyph drawn on a UTF-8 terminal, and its ASCII fallback.
  public var glyph: String
  public var asciiGlyph: String

  public init(
    identifier: DecorationIdentifier, category: Category, label: String, labelKey: String? = nil,
    glyph: String, asciiGlyph: String
  ) {
    self.identifier = identifier
    self.category = category
    self.label = label
    self.labelKey = labelKey
    self.glyph = glyph
    self.asciiGlyph = asciiGlyph
  }

  /// The label for one item, with `%@` filled from its userInfo.
  public func label(for item: Item) -> String {
    guard let key = labelKey, let v = item.userInfo[key] else { return label }
    return label.replacingOccurrences(of: "%@", with: v.description)
  }
}
