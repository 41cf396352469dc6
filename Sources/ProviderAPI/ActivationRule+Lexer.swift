import Foundation

/// One lexical unit of a rule, with where it came from so errors can point at it.
struct RuleToken: Sendable, Equatable {
  enum Kind: Sendable, Equatable {
    /// Keys and keywords alike (`filename`, `AND`, `UTI-CONFORMS-TO`): only the parser knows which
    /// is which, because keywords are contextual (`count` is a key, `IN` an operator).
    case word(String)
    /// `$item`, without the `$`.
    case variable(String)
    /// `@count`, without the `@`.
    case aggregate(String)
    case string(String)
    case number(Double)
    case options(RuleComparisonOptions)
    /// Operators and punctuation, normalised: `=` is `==`, `<>` is `!=`, `=<` is `<=`, `=>` is `>=`.
    case symbol(String)
    case end
  }

  var kind: Kind
  /// 1-based column of the first character, counted in characters as a person counts them.
  var column: Int
  /// The characters as written, for error messages.
  var text: String

  /// The column just past the token.
  var endColumn: Int { column + text.count }

  func isWord(_ keyword: String) -> Bool {
    if case .word(let w) = kind { return w.caseInsensitiveCompare(keyword) == .orderedSame }
    return false
  }

  func isSymbol(_ s: String) -> Bool { kind == .symbol(s) }

  var isEnd: Bool { kind == .end }

  /// How messages name the token: quoted as written (a string literal already is), or "the end of
  /// the rule".
  var quoted: String {
    switch kind {
    case .end: return "the end of the rule"
    case .string: return text
    default: return "'\(text)'"
    }
  }
}

/// Builds the `.badRule` error every parse failure becomes, with the column first so a person can
/// find the spot in a long Info.plist or config string.
/// The messages quote the rule's own text (a character, a key, a number), and a provider's rule is
/// untrusted: escaped here, once for every message (a NUL or an ESC went out raw: folio-fuzz).
func ruleError(_ column: Int, _ message: String) -> ProviderError {
  ProviderError(.badRule, "rule error at column \(column): \(TerminalText.escapeMessage(message))")
}

/// Splits a rule into tokens.
struct RuleLexer {
  private let chars: [Character]
  private var i = 0
  private var tokens: [RuleToken] = []

  init(_ source: String) { chars = Array(source) }

  static func tokenize(_ source: String) throws(ProviderError) -> [RuleToken] {
    var lexer = RuleLexer(source)
    return try lexer.run()
  }

  private mutating func run() throws(ProviderError) -> [RuleToken] {
    while i < chars.count {
      let c = chars[i]
      let start = i
      if c.isWhitespace {
        i += 1
        continue
      }
      if c == "'" || c == "\"" {
        let s = try lexString(quote: c)
        emit(.string(s), from: start)
      } else if startsNumber(at: i) && !followsDot(start) {
        try lexNumber(from: start)
      } else if isWordStart(c) || (followsDot(start) && isWordChar(c)) {
        // After a dot any word character may start a key: `userInfo.2fa` names a userInfo key.
        emit(.word(lexWord()), from: start)
      } else if c == "$" || c == "@" {
        i += 1
        guard i < chars.count, isWordStart(chars[i]) else {
          throw ruleError(
            start + 1,
            c == "$"
              ? "expected a variable name after '$'" : "expected an aggregate such as '@count' after '@'")
        }
        let name = lexWord()
        emit(c == "$" ? .variable(name) : .aggregate(name), from: start)
      } else if c == "[" {
        emit(.options(try lexOptions()), from: start)
      } else {
        try lexSymbol()
      }
    }
    tokens.append(RuleToken(kind: .end, column: chars.count + 1, text: ""))
    return tokens
  }

  private mutating func emit(_ kind: RuleToken.Kind, from start: Int) {
    tokens.append(RuleToken(kind: kind, column: start + 1, text: String(chars[start..<i])))
  }

  private func isWordStart(_ c: Character) -> Bool { c.isLetter || c == "_" }
  private func isWordChar(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }

  /// True when the previous token is a `.` written right before this character.
  private func followsDot(_ start: Int) -> Bool {
    guard let last = tokens.last else { return false }
    return last.isSymbol(".") && last.endColumn == start + 1
  }

  /// Letters, digits and `_`; a `-` continues a word only before a letter, so `UTI-CONFORMS-TO`
  /// is one word while `size>-1` still reads a negative number.
  private mutating func lexWord() -> String {
    let start = i
    while i < chars.count {
      if isWordChar(chars[i]) {
        i += 1
      } else if chars[i] == "-", i + 1 < chars.count, chars[i + 1].isLetter {
        i += 2
      } else {
        break
      }
    }
    return String(chars[start..<i])
  }

  /// Reads a quoted string. `\\`, `\'`, `\"`, `\n`, `\t` and `\r` are escapes; any other backslash
  /// is kept with the character after it, so regular expressions read naturally (`'\d+\.md'`).
  private mutating func lexString(quote: Character) throws(ProviderError) -> String {
    let openColumn = i + 1
    i += 1
    var s = ""
    while i < chars.count {
      let c = chars[i]
      if c == quote {
        i += 1
        return s
      }
      if c == "\\" {
        guard i + 1 < chars.count else { break }
        let e = chars[i + 1]
        switch e {
        case "\\", "'", "\"": s.append(e)
        case "n": s.append("\n")
        case "t": s.append("\t")
        case "r": s.append("\r")
        default:
          s.append(c)
          s.append(e)
        }
        i += 2
      } else {
        s.append(c)
        i += 1
      }
    }
    throw ruleError(chars.count + 1, "unterminated string starting at column \(openColumn)")
  }

  private func isDigit(_ c: Character) -> Bool { c.isASCII && c.isNumber }

  private func startsNumber(at j: Int) -> Bool {
    if isDigit(chars[j]) { return true }
    return (chars[j] == "-" || chars[j] == "+") && j + 1 < chars.count && isDigit(chars[j + 1])
  }

  /// `-12`, `3.5`, `1e6`. A number running into letters (`10kb`) is an error rather than two
  /// tokens, because it is almost always a unit the rule language does not have.
  private mutating func lexNumber(from start: Int) throws(ProviderError) {
    if chars[i] == "-" || chars[i] == "+" { i += 1 }
    while i < chars.count && isDigit(chars[i]) { i += 1 }
    if i + 1 < chars.count && chars[i] == "." && isDigit(chars[i + 1]) {
      i += 1
      while i < chars.count && isDigit(chars[i]) { i += 1 }
    }
    if i < chars.count && (chars[i] == "e" || chars[i] == "E") {
      var j = i + 1
      if j < chars.count && (chars[j] == "-" || chars[j] == "+") { j += 1 }
      if j < chars.count && isDigit(chars[j]) {
        i = j
        while i < chars.count && isDigit(chars[i]) { i += 1 }
      }
    }
    if i < chars.count && isWordChar(chars[i]) {
      while i < chars.count && isWordChar(chars[i]) { i += 1 }
      throw ruleError(start + 1, "invalid number '\(String(chars[start..<i]))'")
    }
    let text = String(chars[start..<i])
    guard let value = Double(text) else { throw ruleError(start + 1, "invalid number '\(text)'") }
    emit(.number(value), from: start)
  }

  /// `[c]`, `[d]`, `[cd]` (in any order). `[n]` (NSPredicate's "normalized") is accepted and has no
  /// effect, since Swift strings already compare canonically equivalent forms as equal.
  private mutating func lexOptions() throws(ProviderError) -> RuleComparisonOptions {
    let open = i
    i += 1
    var options: RuleComparisonOptions = []
    while i < chars.count && chars[i] != "]" {
      switch chars[i].lowercased() {
      case "c": options.insert(.caseInsensitive)
      case "d": options.insert(.diacriticInsensitive)
      case "n": break
      default:
        if chars[i].isWhitespace || !chars[i].isLetter {
          throw ruleError(open + 1, "expected ']' to close '[' at column \(open + 1)")
        }
        throw ruleError(i + 1, "unknown comparison option '\(chars[i])' (use [c], [d] or [cd])")
      }
      i += 1
    }
    guard i < chars.count else {
      throw ruleError(open + 1, "expected ']' to close '[' at column \(open + 1)")
    }
    i += 1
    return options
  }

  private static let symbols: [(String, String)] = [
    ("==", "=="), ("!=", "!="), ("<>", "!="), ("<=", "<="), ("=<", "<="), (">=", ">="), ("=>", ">="),
    ("&&", "&&"), ("||", "||"), ("=", "=="), ("<", "<"), (">", ">"), ("!", "!"), ("(", "("),
    (")", ")"), ("{", "{"), ("}", "}"), (",", ","), (".", "."),
  ]

  private mutating func lexSymbol() throws(ProviderError) {
    let start = i
    for (written, normal) in Self.symbols {
      let w = Array(written)
      if i + w.count <= chars.count && Array(chars[i..<(i + w.count)]) == w {
        i += w.count
        emit(.symbol(normal), from: start)
        return
      }
    }
    let c = chars[i]
    if c == "&" || c == "|" { throw ruleError(start + 1, "unexpected '\(c)' (did you mean '\(c)\(c)'?)") }
    throw ruleError(start + 1, "unexpected character '\(c)'")
  }
}
