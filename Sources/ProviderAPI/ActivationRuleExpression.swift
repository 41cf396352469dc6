import Foundation

// The parsed form of an activation rule. Everything here is internal: the public surface is
// `ActivationRule` alone, so the tree can change shape without breaking clients.

/// A boolean node of a parsed rule.
indirect enum RulePredicate: Sendable {
  case constant(Bool)
  case not(RulePredicate)
  /// n-ary, so a long `a AND b AND …` chain is one node and evaluation does not recurse per link.
  case and([RulePredicate])
  case or([RulePredicate])
  case comparison(RuleComparison)
}

/// One `lhs OP[options] rhs`, optionally quantified (`ANY tags BEGINSWITH 'R'`).
struct RuleComparison: Sendable {
  var quantifier: RuleQuantifier?
  var lhs: RuleOperand
  var op: RuleOperator
  var options: RuleComparisonOptions
  var rhs: RuleOperand
  /// Compiled once at parse time when MATCHES has a literal pattern, so a bad pattern is a parse
  /// error and evaluation never recompiles it.
  var regex: RuleRegex?
}

/// What a comparison side can be.
indirect enum RuleOperand: Sendable {
  case literal(RuleValue)
  /// A key of an item: of the SUBQUERY variable named, or of the implicit item when nil.
  case itemKey(RuleItemKey, variable: String?)
  /// `tags.@count`, `$x.capabilities.@count`.
  case collectionCount(RuleItemKey, variable: String?)
  case domainUserInfo(String)
  /// `fileproviderItems.@count`, `selection.@count`, `count`.
  case selectionCount
  /// `SUBQUERY(fileproviderItems, $variable, predicate).@count`.
  case subqueryCount(variable: String, predicate: RulePredicate)
}

enum RuleQuantifier: String, Sendable {
  case any = "ANY"
  case all = "ALL"
  case none = "NONE"
}

enum RuleOperator: String, Sendable {
  case equal = "=="
  case notEqual = "!="
  case less = "<"
  case lessOrEqual = "<="
  case greater = ">"
  case greaterOrEqual = ">="
  case `in` = "IN"
  case contains = "CONTAINS"
  case beginsWith = "BEGINSWITH"
  case endsWith = "ENDSWITH"
  case like = "LIKE"
  case matches = "MATCHES"
  case conformsTo = "UTI-CONFORMS-TO"

  /// Operators whose both sides must be strings; a number or boolean literal next to them is
  /// rejected at parse time rather than silently never matching.
  var wantsStrings: Bool {
    switch self {
    case .beginsWith, .endsWith, .like, .matches, .conformsTo: return true
    default: return false
    }
  }
}

/// `[c]`, `[d]`, `[cd]`: case- and diacritic-insensitive string comparison.
struct RuleComparisonOptions: OptionSet, Sendable {
  let rawValue: UInt8
  static let caseInsensitive = RuleComparisonOptions(rawValue: 1 << 0)
  static let diacriticInsensitive = RuleComparisonOptions(rawValue: 1 << 1)

  /// The string as these options see it; equal folded strings compare equal.
  func fold(_ s: String) -> String {
    var o: String.CompareOptions = []
    if contains(.caseInsensitive) { o.insert(.caseInsensitive) }
    if contains(.diacriticInsensitive) { o.insert(.diacriticInsensitive) }
    return o.isEmpty ? s : s.folding(options: o, locale: nil)
  }
}

/// A value as rules see it. Dates are numbers (seconds since 1970) so they compare with literals;
/// booleans compare equal to 1 and 0, as NSNumber does in NSPredicate.
enum RuleValue: Sendable, Equatable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case list([RuleValue])

  init(_ v: UserInfoValue?) {
    switch v {
    case nil: self = .null
    case .string(let s)?: self = .string(s)
    case .number(let d)?: self = .number(d)
    case .bool(let b)?: self = .bool(b)
    case .date(let d)?: self = .number(d.timeIntervalSince1970)
    }
  }

  init(_ date: Date?) { self = date.map { .number($0.timeIntervalSince1970) } ?? .null }

  /// The numeric reading of numbers and booleans; nil for anything else.
  var numeric: Double? {
    switch self {
    case .number(let d): return d
    case .bool(let b): return b ? 1 : 0
    default: return nil
    }
  }

  /// The elements a quantifier ranges over: a list's elements, nothing for NULL, else the value.
  var elements: [RuleValue] {
    switch self {
    case .list(let l): return l
    case .null: return []
    default: return [self]
    }
  }
}

/// The wrapped `NSRegularExpression` is immutable and documented as safe to share between
/// threads; the box states that for Swift 6 on SDKs where the class is not marked Sendable.
final class RuleRegex: @unchecked Sendable {
  let regex: NSRegularExpression

  /// Compiles `pattern` for a whole-string match, or returns nil when it is not a valid pattern.
  ///
  /// The raw pattern is checked on its own first: wrapping it in `\A(?:…)\z` could otherwise make
  /// an unbalanced pattern such as `a)(b` valid.
  init?(pattern: String, options: RuleComparisonOptions) {
    var o: NSRegularExpression.Options = []
    if options.contains(.caseInsensitive) { o.insert(.caseInsensitive) }
    let p =
      options.contains(.diacriticInsensitive)
      ? pattern.folding(options: .diacriticInsensitive, locale: nil) : pattern
    guard (try? NSRegularExpression(pattern: p, options: o)) != nil,
      let anchored = try? NSRegularExpression(pattern: "\\A(?:" + p + ")\\z", options: o)
    else { return nil }
    regex = anchored
  }

  func fullyMatches(_ s: String) -> Bool {
    regex.firstMatch(in: s, options: [], range: NSRange(location: 0, length: s.utf16.count)) != nil
  }
}
