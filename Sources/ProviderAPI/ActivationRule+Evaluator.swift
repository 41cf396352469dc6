import Foundation

/// Evaluates a parsed rule against a context. Total by construction: every key yields a value
/// (NULL when absent), and every operator answers false for operands it cannot compare.
struct RuleEvaluator {
  let context: ActivationContext
  /// The item bare keys (`filename`, `size`) refer to, in an item-scoped rule.
  var implicitItem: Item?
  /// Items bound to SUBQUERY variables, by name without the `$`.
  var bindings: [String: Item] = [:]

  func evaluate(_ predicate: RulePredicate) -> Bool {
    switch predicate {
    case .constant(let b): return b
    case .not(let p): return !evaluate(p)
    case .and(let ps): return ps.allSatisfy { evaluate($0) }
    case .or(let ps): return ps.contains { evaluate($0) }
    case .comparison(let c): return evaluate(c)
    }
  }

  func value(of operand: RuleOperand) -> RuleValue {
    switch operand {
    case .literal(let v):
      return v
    case .itemKey(let key, let variable):
      guard let item = item(named: variable) else { return .null }
      return key.value(of: item)
    case .collectionCount(let key, let variable):
      guard let item = item(named: variable) else { return .null }
      return .number(Double(key.value(of: item).elements.count))
    case .domainUserInfo(let key):
      return RuleValue(context.domainUserInfo[key])
    case .selectionCount:
      return .number(Double(context.selection.count))
    case .subqueryCount(let variable, let predicate):
      var inner = self
      var n = 0
      for item in context.selection {
        inner.bindings[variable] = item
        if inner.evaluate(predicate) { n += 1 }
      }
      return .number(Double(n))
    }
  }

  /// The predicate with every selection-level operand (counts, SUBQUERYs, domainUserInfo) replaced
  /// by its value.
  ///
  /// An item-scoped rule is evaluated once per selected item; without this, a SUBQUERY in it would
  /// be recomputed for each item, quadratic in the selection ("select all" in a large folder).
  /// Outside SUBQUERYs no variable is bound, so these operands cannot depend on the item.
  func hoistingSelectionOperands(_ p: RulePredicate) -> RulePredicate {
    switch p {
    case .constant: return p
    case .not(let q): return .not(hoistingSelectionOperands(q))
    case .and(let qs): return .and(qs.map { hoistingSelectionOperands($0) })
    case .or(let qs): return .or(qs.map { hoistingSelectionOperands($0) })
    case .comparison(var c):
      c.lhs = hoisted(c.lhs)
      c.rhs = hoisted(c.rhs)
      if c.op == .matches, c.regex == nil, case .literal(.string(let pattern)) = c.rhs {
        c.regex = RuleRegex(pattern: pattern, options: c.options)
      }
      return .comparison(c)
    }
  }

  private func hoisted(_ o: RuleOperand) -> RuleOperand {
    switch o {
    case .selectionCount, .subqueryCount, .domainUserInfo: return .literal(value(of: o))
    case .literal, .itemKey, .collectionCount: return o
    }
  }

  private func item(named variable: String?) -> Item? {
    guard let variable else { return implicitItem }
    return bindings[variable]
  }

  // MARK: - Comparisons

  func evaluate(_ c: RuleComparison) -> Bool {
    let lhs = value(of: c.lhs)
    let rhs = value(of: c.rhs)
    guard let quantifier = c.quantifier else { return test(c, lhs, rhs) }
    let elements = lhs.elements
    switch quantifier {
    case .any: return elements.contains { test(c, $0, rhs) }
    case .all: return elements.allSatisfy { test(c, $0, rhs) }
    case .none: return !elements.contains { test(c, $0, rhs) }
    }
  }

  private func test(_ c: RuleComparison, _ lhs: RuleValue, _ rhs: RuleValue) -> Bool {
    let o = c.options
    switch c.op {
    case .equal: return Self.equal(lhs, rhs, o)
    // `!=` is exactly `NOT ==`, so `userInfo.inUse != NULL` holds whenever the key is set.
    case .notEqual: return !Self.equal(lhs, rhs, o)
    case .less: return Self.order(lhs, rhs, o) == .orderedAscending
    case .lessOrEqual: return Self.order(lhs, rhs, o).map { $0 != .orderedDescending } ?? false
    case .greater: return Self.order(lhs, rhs, o) == .orderedDescending
    case .greaterOrEqual: return Self.order(lhs, rhs, o).map { $0 != .orderedAscending } ?? false
    case .in:
      switch rhs {
      case .list(let l): return l.contains { Self.equal(lhs, $0, o) }
      case .string(let s): return Self.strings(lhs, .string(s), o).map { $1.contains($0) } ?? false
      default: return false
      }
    case .contains:
      switch lhs {
      case .list(let l): return l.contains { Self.equal($0, rhs, o) }
      default: return Self.strings(lhs, rhs, o).map { $0.contains($1) } ?? false
      }
    case .beginsWith: return Self.strings(lhs, rhs, o).map { $0.hasPrefix($1) } ?? false
    case .endsWith: return Self.strings(lhs, rhs, o).map { $0.hasSuffix($1) } ?? false
    case .like: return Self.strings(lhs, rhs, o).map { Self.like(Array($0), Array($1)) } ?? false
    case .matches: return matches(lhs, rhs, c)
    case .conformsTo: return Self.conforms(lhs, rhs)
    }
  }

  /// Equality with NSPredicate's leniencies: numbers and booleans compare numerically, strings
  /// after folding, lists element by element, NULL only with NULL; anything else is unequal.
  static func equal(_ a: RuleValue, _ b: RuleValue, _ o: RuleComparisonOptions) -> Bool {
    switch (a, b) {
    case (.null, .null): return true
    case (.string(let x), .string(let y)): return o.fold(x) == o.fold(y)
    case (.list(let x), .list(let y)):
      return x.count == y.count && zip(x, y).allSatisfy { equal($0, $1, o) }
    default:
      guard let x = a.numeric, let y = b.numeric else { return false }
      return x == y
    }
  }

  /// Ordering of two numbers or two strings; nil (so the comparison is false) otherwise.
  static func order(_ a: RuleValue, _ b: RuleValue, _ o: RuleComparisonOptions) -> ComparisonResult? {
    if let x = a.numeric, let y = b.numeric {
      return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
    }
    guard let (x, y) = strings(a, b, o) else { return nil }
    return x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame
  }

  /// Both sides folded, when both are strings.
  static func strings(_ a: RuleValue, _ b: RuleValue, _ o: RuleComparisonOptions) -> (String, String)? {
    guard case .string(let x) = a, case .string(let y) = b else { return nil }
    return (o.fold(x), o.fold(y))
  }

  /// LIKE: `*` matches any run of characters, `?` exactly one; the whole string must match.
  ///
  /// Iterative with a single backtrack point (the last `*`), so it is linear-ish and cannot blow up
  /// on patterns like `*a*a*a*b`, unlike a naive recursive matcher.
  static func like(_ s: [Character], _ p: [Character]) -> Bool {
    var i = 0
    var j = 0
    var star: Int?
    var resume = 0
    while i < s.count {
      if j < p.count && (p[j] == "?" || (p[j] != "*" && p[j] == s[i])) {
        i += 1
        j += 1
      } else if j < p.count && p[j] == "*" {
        star = j
        resume = i
        j += 1
      } else if let st = star {
        j = st + 1
        resume += 1
        i = resume
      } else {
        return false
      }
    }
    while j < p.count && p[j] == "*" { j += 1 }
    return j == p.count
  }

  /// MATCHES: a whole-string regular expression match. The pattern is compiled at parse time when
  /// it is a literal; one read from domainUserInfo is compiled here, and a bad one never matches.
  private func matches(_ lhs: RuleValue, _ rhs: RuleValue, _ c: RuleComparison) -> Bool {
    guard case .string(var subject) = lhs else { return false }
    if c.options.contains(.diacriticInsensitive) {
      subject = subject.folding(options: .diacriticInsensitive, locale: nil)
    }
    if let regex = c.regex { return regex.fullyMatches(subject) }
    guard case .string(let pattern) = rhs, let regex = RuleRegex(pattern: pattern, options: c.options) else {
      return false
    }
    return regex.fullyMatches(subject)
  }

  /// UTI-CONFORMS-TO: `lhs` is a type identifier conforming to `rhs`, or to any type of a list.
  static func conforms(_ lhs: RuleValue, _ rhs: RuleValue) -> Bool {
    guard case .string(let type) = lhs else { return false }
    switch rhs {
    case .string(let parent): return ContentType(type).conforms(to: ContentType(parent))
    case .list(let parents): return parents.contains { conforms(lhs, $0) }
    default: return false
    }
  }
}
