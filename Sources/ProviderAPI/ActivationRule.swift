import Foundation

/// A parsed activation rule: the predicate that decides whether a custom action is offered for the
/// current selection (File Provider semantics §7, `NSExtensionFileProviderActionActivationRule`).
///
/// Rules are written as in Apple's Info.plists, in an NSPredicate-like language, so a provider's
/// rules carry over unchanged; Folio parses them itself because NSPredicate does not exist on
/// Linux and because a rule should fail when it is loaded, with a column, not silently at use.
///
/// ```
/// SUBQUERY(fileproviderItems, $item, $item.userInfo.pinned == YES).@count > 0
/// contentType UTI-CONFORMS-TO "public.image" AND size < 10000000
/// count == 1 AND isFolder == YES AND domainUserInfo.plan != 'free'
/// ```
///
/// **Values.** Strings (`'…'` or `"…"`, with `\\ \' \" \n \t \r`; other backslashes are kept for
/// regular expressions), numbers (`-1`, `2.5`, `1e6`), `TRUE`/`YES`, `FALSE`/`NO`, `NULL`/`NIL`,
/// and lists of those in braces. Dates are seconds since 1970; booleans equal 1 and 0.
///
/// **Keys of an item.** `filename` (`name`), `extension`, `path`, `kind` (file, folder, symlink,
/// special), `contentType` (its identifier; `contentType.identifier` too), `size`
/// (`documentSize`), `childItemCount`, `isFolder`, `isSymlink`, `isDownloaded`, `isDownloading`,
/// `isMostRecentVersionDownloaded`, `isUploaded`, `isUploading`, `isShared`,
/// `isSharedByCurrentUser`, `ownerName`, `isTrashed`, `isFavorite`, `favoriteRank`, `tags`,
/// `capabilities` (names such as "renaming"), `itemIdentifier`, `parentItemIdentifier`,
/// `modified` (`contentModificationDate`), `created` (`creationDate`), `lastUsed`
/// (`lastUsedDate`) and `userInfo.KEY` (`resolvedUserInfo.KEY`), where KEY is everything after the
/// first dot, so `userInfo.pinned.inherited` reads the key "pinned.inherited". `tags.@count` and
/// `capabilities.@count` count a list. Unknown keys are parse errors; missing userInfo keys and
/// unset optional values are NULL.
///
/// **Keys of the selection.** `fileproviderItems.@count` (also `selection.@count` or `count`),
/// `domainUserInfo.KEY`, and `SUBQUERY(fileproviderItems, $x, <predicate over $x.key>).@count`.
/// SUBQUERYs nest, and an inner one may read an outer variable.
///
/// **Operators.** `==` `=` `!=` `<>` `<` `<=` `>` `>=`, `IN` (list membership, or substring of a
/// string), `CONTAINS` (substring, or membership of a list such as `tags`), `BEGINSWITH`,
/// `ENDSWITH`, `LIKE` (`*` and `?`), `MATCHES` (a whole-string regular expression, checked at
/// parse time), and `UTI-CONFORMS-TO` (also `CONFORMS TO`, `CONFORMSTO`; the right side may be a
/// list, meaning any of them). `[c]`, `[d]` and `[cd]` make string comparisons case- and/or
/// diacritic-insensitive. `ANY`, `ALL`, `NONE` quantify over a list key (`ANY tags BEGINSWITH 'R'`).
/// Combine with `AND`/`&&`, `OR`/`||`, `NOT`/`!`, parentheses, `TRUEPREDICATE`, `FALSEPREDICATE`.
/// Keywords are case-insensitive; key names are not.
///
/// **Evaluation never fails.** `!=` is exactly `NOT ==`, so `userInfo.inUse != NULL` holds when the
/// key is set. Equality between different types is false; ordering and string operators are false
/// when either side is NULL or of the wrong type.
///
/// **Item keys outside SUBQUERY** make the rule *item-scoped*: it matches when the selection is
/// non-empty and the whole predicate holds for every selected item, with bare keys read from that
/// item and selection-level parts (counts, SUBQUERYs, domainUserInfo) the same for all. So
/// `count == 1 AND isFolder == YES` means "exactly one item, and it is a folder", and
/// `NOT isFolder == YES` means "no folder is selected". A rule without bare item keys is evaluated
/// once and may match an empty selection (`fileproviderItems.@count == 0`). The two forms were
/// chosen over quantifying each comparison separately because a whole rule read for "each item"
/// is what people mean by `filename ENDSWITH '.md' AND size > 10`, and NOT stays intuitive. For
/// "at least one item" write a SUBQUERY; inside one, item keys must name its variable (`$x.size`),
/// which keeps each key's subject obvious.
public struct ActivationRule: Sendable, Hashable, CustomStringConvertible {
  public let source: String
  let predicate: RulePredicate
  /// True when a bare item key appears outside every SUBQUERY (see the type's documentation).
  let isItemScoped: Bool

  /// Parses a rule.
  ///
  /// - Parameter source: The rule text, as written in an Info.plist or in config.
  /// - Throws: `ProviderError` with code `.badRule` and a message of the form
  ///   "rule error at column N: …" naming what was expected, for any lexical, syntax, unknown-key or
  ///   regular-expression error.
  public init(parsing source: String) throws(ProviderError) {
    var parser = try RuleParser(source: source)
    predicate = try parser.parseRule()
    isItemScoped = parser.usesImplicitItem
    self.source = source
  }

  /// Whether the action should be offered for this selection.
  ///
  /// - Returns: For an item-scoped rule, true when the selection is non-empty and the rule holds for
  ///   every selected item; otherwise the rule's value, evaluated once.
  public func matches(_ context: ActivationContext) -> Bool {
    let evaluator = RuleEvaluator(context: context)
    guard isItemScoped else { return evaluator.evaluate(predicate) }
    guard !context.selection.isEmpty else { return false }
    let perItem = evaluator.hoistingSelectionOperands(predicate)
    return context.selection.allSatisfy { item in
      var e = evaluator
      e.implicitItem = item
      return e.evaluate(perItem)
    }
  }

  public var description: String { source }

  /// Two rules are the same when written the same: the parsed tree is derived from the source.
  public static func == (a: ActivationRule, b: ActivationRule) -> Bool { a.source == b.source }

  public func hash(into hasher: inout Hasher) { hasher.combine(source) }
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
