import Foundation

/// A recursive-descent parser from tokens to a ``RulePredicate``.
///
/// Grammar (keywords are case-insensitive, keys are not):
///
///     rule       := or END
///     or         := and (("OR" | "||") and)*
///     and        := not (("AND" | "&&") not)*
///     not        := ("NOT" | "!") not | primary
///     primary    := "(" or ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
///     comparison := [ANY | SOME | ALL | NONE] operand operator [options] operand
///     operator   := == = != <> < <= =< > >= => | IN | CONTAINS | BEGINSWITH | ENDSWITH | LIKE
///                 | MATCHES | UTI-CONFORMS-TO | CONFORMSTO | CONFORMS TO
///     operand    := string | number | TRUE | YES | FALSE | NO | NULL | NIL | "{" literals "}"
///                 | keyPath | "$" var "." keyPath | "domainUserInfo." key
///                 | ("fileproviderItems" | "selection") ".@count" | "count"
///                 | SUBQUERY "(" ("fileproviderItems" | "selection") "," "$" var "," or ")" ".@count"
///     keyPath    := itemKey [".@count"] | ("userInfo" | "resolvedUserInfo") "." key
///                 | "contentType.identifier"
///     key        := word ("." word)*        (userInfo.pinned.inherited is the key "pinned.inherited")
struct RuleParser {
  private let tokens: [RuleToken]
  private let chars: [Character]
  private var index = 0
  /// Variables bound by the SUBQUERYs being parsed, innermost last.
  private var variables: [String] = []
  /// Set when an item key appears outside every SUBQUERY: the rule is then tested per item.
  private(set) var usesImplicitItem = false

  init(source: String) throws(ProviderError) {
    tokens = try RuleLexer.tokenize(source)
    chars = Array(source)
  }

  mutating func parseRule() throws(ProviderError) -> RulePredicate {
    if current.isEnd { throw ruleError(current.column, "unexpected end of rule (the rule is empty)") }
    let predicate = try parseOr()
    guard current.isEnd else {
      let hint = isConnectiveStart(current) ? "" : " (missing AND or OR?)"
      throw ruleError(current.column, "unexpected \(current.quoted) after a complete rule\(hint)")
    }
    return predicate
  }

  // MARK: - Tokens

  private var current: RuleToken { tokens[index] }
  private var next: RuleToken { tokens[min(index + 1, tokens.count - 1)] }

  @discardableResult
  private mutating func advance() -> RuleToken {
    let t = tokens[index]
    if !t.isEnd { index += 1 }
    return t
  }

  /// The source between two columns, for messages that quote what the user wrote.
  private func text(from column: Int, to endColumn: Int) -> String {
    String(chars[(column - 1)..<min(endColumn - 1, chars.count)])
  }

  private var previousEndColumn: Int { index == 0 ? 1 : tokens[index - 1].endColumn }

  private func isConnectiveStart(_ t: RuleToken) -> Bool {
    t.isWord("AND") || t.isWord("OR") || t.isSymbol("&&") || t.isSymbol("||")
  }

  /// Words that can never start an operand, so `filename == AND` reports the keyword instead of an
  /// unknown key 'AND'.
  private static let reserved: Set<String> = [
    "AND", "OR", "NOT", "IN", "CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES",
    "UTI-CONFORMS-TO", "CONFORMSTO", "CONFORMS", "ANY", "SOME", "ALL", "NONE", "TRUEPREDICATE",
    "FALSEPREDICATE",
  ]

  // MARK: - Predicates

  private mutating func parseOr() throws(ProviderError) -> RulePredicate {
    var terms = [try parseAnd()]
    while current.isWord("OR") || current.isSymbol("||") {
      advance()
      terms.append(try parseAnd())
    }
    return terms.count == 1 ? terms[0] : .or(terms)
  }

  private mutating func parseAnd() throws(ProviderError) -> RulePredicate {
    var terms = [try parseNot()]
    while current.isWord("AND") || current.isSymbol("&&") {
      advance()
      terms.append(try parseNot())
    }
    return terms.count == 1 ? terms[0] : .and(terms)
  }

  /// How deep parentheses, NOT and SUBQUERY may nest. Far beyond any real rule; it exists so a
  /// hostile or corrupt rule is an error rather than a stack overflow in this recursive parser.
  static let maximumDepth = 64
  private var depth = 0

  private mutating func enter(_ t: RuleToken) throws(ProviderError) {
    depth += 1
    if depth > Self.maximumDepth {
      throw ruleError(t.column, "the rule nests more than \(Self.maximumDepth) levels deep")
    }
  }

  private mutating func parseNot() throws(ProviderError) -> RulePredicate {
    if current.isWord("NOT") || current.isSymbol("!") {
      try enter(advance())
      defer { depth -= 1 }
      return .not(try parseNot())
    }
    return try parsePrimary()
  }

  private mutating func parsePrimary() throws(ProviderError) -> RulePredicate {
    if current.isSymbol("(") {
      let open = advance()
      try enter(open)
      defer { depth -= 1 }
      let inner = try parseOr()
      guard current.isSymbol(")") else {
        throw ruleError(current.column, "expected ')' to close '(' at column \(open.column)\(foundSuffix)")
      }
      advance()
      return inner
    }
    if current.isWord("TRUEPREDICATE") {
      advance()
      return .constant(true)
    }
    if current.isWord("FALSEPREDICATE") {
      advance()
      return .constant(false)
    }
    return .comparison(try parseComparison())
  }

  /// ", found 'x'" when a token is there; nothing at the end (the column already says so).
  private var foundSuffix: String { current.isEnd ? "" : ", found \(current.quoted)" }

  // MARK: - Comparisons

  private static let operatorList =
    "(==, !=, <, <=, >, >=, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES, UTI-CONFORMS-TO)"

  private mutating func parseComparison() throws(ProviderError) -> RuleComparison {
    var quantifier: (RuleQuantifier, RuleToken)?
    for (word, q) in [("ANY", RuleQuantifier.any), ("SOME", .any), ("ALL", .all), ("NONE", .none)]
    where current.isWord(word) {
      quantifier = (q, advance())
      break
    }
    let lhsStart = current
    let lhs = try parseOperand(after: quantifier?.1)
    let lhsText = text(from: lhsStart.column, to: previousEndColumn)

    if let (q, token) = quantifier, !isCollection(lhs) {
      throw ruleError(
        token.column,
        "\(q.rawValue) needs a collection such as 'tags' or 'capabilities' after it, found '\(lhsText)'")
    }

    let opToken = current
    guard let op = try parseOperator() else {
      var message = "expected a comparison operator \(Self.operatorList) after '\(lhsText)'"
      if case .word(let w) = opToken.kind,
        let s = RuleItemKey.suggestion(
          for: w, among: ["CONTAINS", "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES"])
      {
        message += " (did you mean '\(s)'?)"
      }
      throw ruleError(opToken.column, message)
    }

    var options: RuleComparisonOptions = []
    if case .options(let o) = current.kind {
      if op == .conformsTo {
        throw ruleError(current.column, "comparison options such as [c] do not apply to UTI-CONFORMS-TO")
      }
      options = o
      advance()
    }

    let rhsStart = current
    let rhs = try parseOperand(after: opToken)
    try checkTypes(op: op, lhs: lhs, lhsStart: lhsStart, rhs: rhs, rhsStart: rhsStart)

    var regex: RuleRegex?
    if op == .matches, case .literal(.string(let pattern)) = rhs {
      guard let compiled = RuleRegex(pattern: pattern, options: options) else {
        throw ruleError(rhsStart.column, "invalid regular expression \(rhsStart.text)")
      }
      regex = compiled
    }
    return RuleComparison(
      quantifier: quantifier?.0, lhs: lhs, op: op, options: options, rhs: rhs, regex: regex)
  }

  private func isCollection(_ operand: RuleOperand) -> Bool {
    if case .itemKey(let key, _) = operand { return key.isCollection }
    return false
  }

  /// Reads an operator, or returns nil (consuming nothing) when the current token is not one.
  private mutating func parseOperator() throws(ProviderError) -> RuleOperator? {
    if case .symbol(let s) = current.kind {
      let symbolic: [String: RuleOperator] = [
        "==": .equal, "!=": .notEqual, "<": .less, "<=": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual,
      ]
      guard let op = symbolic[s] else { return nil }
      advance()
      return op
    }
    let words: [(String, RuleOperator)] = [
      ("IN", .in), ("CONTAINS", .contains), ("BEGINSWITH", .beginsWith), ("ENDSWITH", .endsWith),
      ("LIKE", .like), ("MATCHES", .matches), ("UTI-CONFORMS-TO", .conformsTo), ("CONFORMSTO", .conformsTo),
    ]
    for (word, op) in words where current.isWord(word) {
      advance()
      return op
    }
    if current.isWord("CONFORMS") {
      advance()
      guard current.isWord("TO") else {
        throw ruleError(current.column, "expected 'TO' after 'CONFORMS'\(foundSuffix)")
      }
      advance()
      return .conformsTo
    }
    return nil
  }

  /// Rejects literals that can never satisfy the operator, such as `filename BEGINSWITH 3` or
  /// `size IN 10`, so they fail loudly instead of never matching.
  private func checkTypes(
    op: RuleOperator, lhs: RuleOperand, lhsStart: RuleToken, rhs: RuleOperand, rhsStart: RuleToken
  ) throws(ProviderError) {
    let name = op.rawValue
    if op.wantsStrings {
      for (operand, token, isRight) in [(lhs, lhsStart, false), (rhs, rhsStart, true)] {
        guard case .literal(let v) = operand else { continue }
        switch v {
        case .string: continue
        // `contentType UTI-CONFORMS-TO {'public.image', 'public.movie'}` means "any of these".
        case .list where op == .conformsTo && isRight: continue
        default: throw ruleError(token.column, "\(name) compares strings, found \(token.quoted)")
        }
      }
    }
    if op == .in, case .literal(let v) = rhs {
      switch v {
      case .list, .string: break
      default:
        throw ruleError(
          rhsStart.column,
          "IN needs a list such as {'a', 'b'} or a collection on its right, found \(rhsStart.quoted)")
      }
    }
  }

  // MARK: - Operands

  /// Parses one side of a comparison. `after` is the token before it, for messages.
  private mutating func parseOperand(after previous: RuleToken?) throws(ProviderError) -> RuleOperand {
    let t = current
    switch t.kind {
    case .string(let s):
      advance()
      return .literal(.string(s))
    case .number(let d):
      advance()
      return .literal(.number(d))
    case .symbol("{"):
      return .literal(try parseList())
    case .variable(let name):
      return try parseVariableKeyPath(name)
    case .word(let w):
      if let literal = Self.wordLiterals[w.uppercased()] {
        advance()
        return .literal(literal)
      }
      if t.isWord("SUBQUERY") { return try parseSubquery() }
      if Self.reserved.contains(w.uppercased()) {
        throw ruleError(t.column, "expected a key or a value\(afterText(previous)), found '\(t.text)'")
      }
      return try parseKeyPath()
    case .end:
      throw ruleError(t.column, "unexpected end of rule (expected a key or a value\(afterText(previous)))")
    default:
      throw ruleError(t.column, "expected a key or a value\(afterText(previous)), found \(t.quoted)")
    }
  }

  private func afterText(_ token: RuleToken?) -> String { token.map { " after '\($0.text)'" } ?? "" }

  private static let wordLiterals: [String: RuleValue] = [
    "TRUE": .bool(true), "YES": .bool(true), "FALSE": .bool(false), "NO": .bool(false),
    "NULL": .null, "NIL": .null,
  ]

  /// `{'a', 2, YES}`: literals only, as in NSPredicate.
  private mutating func parseList() throws(ProviderError) -> RuleValue {
    let open = advance()
    var values: [RuleValue] = []
    if current.isSymbol("}") {
      advance()
      return .list(values)
    }
    while true {
      let t = current
      switch t.kind {
      case .string(let s): values.append(.string(s))
      case .number(let d): values.append(.number(d))
      case .word(let w) where Self.wordLiterals[w.uppercased()] != nil:
        values.append(Self.wordLiterals[w.uppercased()]!)
      case .end:
        throw ruleError(
          t.column, "unexpected end of rule (expected '}' to close '{' at column \(open.column))")
      default:
        throw ruleError(t.column, "expected a string, number, boolean or NULL in the list, found \(t.quoted)")
      }
      advance()
      if current.isSymbol("}") {
        advance()
        return .list(values)
      }
      guard current.isSymbol(",") else {
        throw ruleError(
          current.column, "expected ',' or '}' in the list starting at column \(open.column)\(foundSuffix)")
      }
      advance()
    }
  }

  /// `word ("." word)*` after `userInfo.` or `domainUserInfo.`: the whole dotted tail is one key.
  private mutating func parseDottedKey(after owner: RuleToken) throws(ProviderError) -> String {
    guard current.isSymbol(".") else {
      throw ruleError(current.column, "expected '.KEY' after '\(owner.text)'\(foundSuffix)")
    }
    advance()
    guard case .word(var key) = current.kind else {
      throw ruleError(current.column, "expected a key after '\(owner.text).'\(foundSuffix)")
    }
    advance()
    while current.isSymbol("."), case .word(let more) = next.kind {
      advance()
      advance()
      key += "." + more
    }
    return key
  }

  /// A key path starting with a word: a selection-level name or a key of the implicit item.
  private mutating func parseKeyPath() throws(ProviderError) -> RuleOperand {
    let t = current
    guard case .word(let w) = t.kind else { preconditionFailure("parseKeyPath on a non-word") }
    switch w {
    case "fileproviderItems", "selection":
      advance()
      try expectCount(after: t.text)
      return .selectionCount
    case "count":
      advance()
      return .selectionCount
    case "domainUserInfo":
      advance()
      return .domainUserInfo(try parseDottedKey(after: t))
    default:
      if let variable = variables.last {
        throw ruleError(t.column, "inside SUBQUERY, write '$\(variable).\(t.text)' to name a key of the item")
      }
      let key = try parseItemKey()
      usesImplicitItem = true
      return try countSuffix(key, variable: nil)
    }
  }

  /// `$x.key`, where `$x` is bound by an enclosing SUBQUERY.
  private mutating func parseVariableKeyPath(_ name: String) throws(ProviderError) -> RuleOperand {
    let t = advance()
    guard variables.contains(name) else {
      let hint =
        variables.last.map { " (this SUBQUERY binds '$\($0)')" } ?? " (variables exist only inside SUBQUERY)"
      throw ruleError(t.column, "unknown variable '\(t.text)'\(hint)")
    }
    guard current.isSymbol("."), case .word = next.kind else {
      throw ruleError(current.column, "expected '.' and a key after '\(t.text)'\(foundSuffix)")
    }
    advance()
    let key = try parseItemKey()
    return try countSuffix(key, variable: name)
  }

  /// Reads an item key at the current word.
  private mutating func parseItemKey() throws(ProviderError) -> RuleItemKey {
    let t = advance()
    guard case .word(let w) = t.kind else { preconditionFailure("parseItemKey on a non-word") }
    if w == "userInfo" || w == "resolvedUserInfo" { return .userInfo(try parseDottedKey(after: t)) }
    if w == "contentType", current.isSymbol("."), next.isWord("identifier") {
      // NSPredicate rules read the UTType's identifier; here contentType already is that string.
      advance()
      advance()
      return .contentType
    }
    if let key = RuleItemKey.named[w] { return key }
    var message = "unknown key '\(t.text)'"
    if let s = RuleItemKey.suggestion(for: w, among: RuleItemKey.suggestable) {
      message += " (did you mean '\(s)'?)"
    }
    throw ruleError(t.column, message)
  }

  /// An optional `.@count` after a collection key; an error after any other key.
  private mutating func countSuffix(_ key: RuleItemKey, variable: String?) throws(ProviderError)
    -> RuleOperand
  {
    guard current.isSymbol("."), case .aggregate = next.kind else { return .itemKey(key, variable: variable) }
    advance()
    guard key.isCollection else {
      throw ruleError(current.column, "'@count' applies only to tags, capabilities and fileproviderItems")
    }
    try expectAggregateCount()
    return .collectionCount(key, variable: variable)
  }

  /// Requires `.@count` next (after `fileproviderItems` or a SUBQUERY).
  private mutating func expectCount(after what: String) throws(ProviderError) {
    guard current.isSymbol(".") else {
      throw ruleError(current.column, "expected '.@count' after '\(what)'\(foundSuffix)")
    }
    advance()
    try expectAggregateCount()
  }

  private mutating func expectAggregateCount() throws(ProviderError) {
    guard case .aggregate(let name) = current.kind else {
      throw ruleError(current.column, "expected '@count'\(foundSuffix)")
    }
    guard name == "count" else {
      throw ruleError(current.column, "unknown aggregate '@\(name)' (only @count is supported)")
    }
    advance()
  }

  /// `SUBQUERY(fileproviderItems, $x, predicate).@count`.
  private mutating func parseSubquery() throws(ProviderError) -> RuleOperand {
    advance()
    guard current.isSymbol("(") else {
      throw ruleError(current.column, "expected '(' after SUBQUERY\(foundSuffix)")
    }
    let open = advance()
    try enter(open)
    defer { depth -= 1 }
    guard current.isWord("fileproviderItems") || current.isWord("selection") else {
      throw ruleError(
        current.column, "expected 'fileproviderItems' as the collection of SUBQUERY\(foundSuffix)")
    }
    advance()
    guard current.isSymbol(",") else {
      throw ruleError(current.column, "expected ',' after the SUBQUERY collection\(foundSuffix)")
    }
    advance()
    guard case .variable(let name) = current.kind else {
      throw ruleError(current.column, "expected a variable such as '$item' in SUBQUERY\(foundSuffix)")
    }
    if variables.contains(name) {
      throw ruleError(current.column, "variable '\(current.text)' is already bound by an enclosing SUBQUERY")
    }
    advance()
    guard current.isSymbol(",") else {
      throw ruleError(
        current.column, "expected ',' and a predicate after the SUBQUERY variable\(foundSuffix)")
    }
    advance()
    variables.append(name)
    let predicate = try parseOr()
    variables.removeLast()
    guard current.isSymbol(")") else {
      throw ruleError(
        current.column, "expected ')' to close 'SUBQUERY(' at column \(open.column)\(foundSuffix)")
    }
    advance()
    try expectCount(after: "SUBQUERY(…)")
    return .subqueryCount(variable: name, predicate: predicate)
  }
}
