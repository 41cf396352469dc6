import ProviderAPI

/// Which program opens a file: the first rule (in config order) whose `match` fits the item wins.
public struct OpenerRule: Sendable, Equatable {
  public enum Match: Sendable, Equatable {
    /// Extensions, lowercased and without the dot (`["md", "txt"]`).
    case extensions([String])
    /// A content type; items of this type or of any type conforming to it match.
    case contentType(ContentType)
  }

  public var match: Match
  /// The command, with ``CommandPlaceholder``s as whole arguments.
  public var argv: [String]

  public init(match: Match, argv: [String]) {
    self.match = match
    self.argv = argv
  }

  /// True when this rule opens an item with this name and content type.
  public func matches(name: ItemName, contentType: ContentType) -> Bool {
    match.matches(name: name, contentType: contentType)
  }

  /// The arguments that open `path` (see ``CommandTemplate/expand(_:focused:selection:)``).
  public func arguments(for path: ItemPath, selection: [ItemPath]? = nil) -> [[UInt8]] {
    CommandTemplate.expand(argv, focused: path, selection: selection ?? [path])
  }
}

extension OpenerRule.Match {
  /// True when an item with this name and content type is one this match names (openers and
  /// previewers match files the same way).
  public func matches(name: ItemName, contentType: ContentType) -> Bool {
    switch self {
    case .extensions(let extensions):
      let ext = name.pathExtension
      return !ext.isEmpty && extensions.contains(ext)
    case .contentType(let type):
      return contentType.conforms(to: type)
    }
  }
}
