/// How one language family's code is lexed: its comments, quotes, words and a few switches. The
/// highlighter is one lexer driven by these tables (CodeRules+Languages.swift), not a lexer per
/// language, so adding a language is adding a table.
struct CodeRules: Sendable {
  struct Quote: Sendable {
    var open: [UInt8]
    var close: [UInt8]
    /// A backslash escapes the next byte.
    var escapes: Bool
    /// The string may go on over the next lines (Python's `"""`, a shell's `'…'`, Go's `` `…` ``).
    var multiline: Bool

    init(_ open: String, _ close: String? = nil, escapes: Bool = true, multiline: Bool = false) {
      self.open = Array(open.utf8)
      self.close = Array((close ?? open).utf8)
      self.escapes = escapes
      self.multiline = multiline
    }
  }

  /// Bits of ``classes``.
  enum Class {
    static let space: UInt8 = 1
    static let identifierStart: UInt8 = 2
    static let identifier: UInt8 = 4
    static let digit: UInt8 = 8
    static let `operator`: UInt8 = 16
    static let punctuation: UInt8 = 32
    static let sigil: UInt8 = 64
    /// May start a comment or a quote: only these bytes pay for the checks.
    static let opener: UInt8 = 128
  }

  var words: KeywordTable
  var lineComments: [[UInt8]] = []
  /// `#` starts a comment only at the start of a word (shell, YAML: `$#` and `a#b` are not comments).
  var commentNeedsWordStart = false
  var blockOpen: [UInt8] = []
  var blockClose: [UInt8] = []
  var nestedComments = false
  /// Ruby's `=begin`/`=end` count only at the start of a line.
  var blockCommentAtLineStart = false
  /// Longest first, so `"""` is tried before `"`.
  var quotes: [Quote] = []
  /// The token a sigil byte followed by a name gives (`@Attribute`, `$var`, `#include`, `:symbol`).
  var sigils: [UInt8: SyntaxToken] = [:]
  var identifierStarts = ""
  var identifierParts = ""
  /// One of these may end an identifier (Ruby's `empty?`, `save!`).
  var identifierSuffixes: [UInt8] = []
  /// Bytes a number may hold besides digits, letters and a decimal point (dates in TOML and YAML).
  var numberParts: [UInt8] = []
  var capitalizedIsType = false
  var allCapsIsConstant = true
  var callIsFunction = true
  /// A string followed by `:` is a key (JSON).
  var stringBeforeColonIsKey = false
  /// Rust: `'a'` is a character, `'a` a lifetime.
  var charactersAndLifetimes = false
  /// Rust: `name!` is a macro call.
  var macroBang = false
  /// C: after `#include`, `<stdio.h>` is a string.
  var preprocessor = false
  /// Shell: `<<EOF` starts a here-document.
  var heredocs = false
  /// Shell and make: after `$`, `{…}`, `1`, `@`, `?`… form the variable.
  var variableForms = false
  /// make: `$(…)` is a variable too.
  var dollarParenIsVariable = false
  /// CSS: a name inside braces before `:` is a property (a key); outside braces, a selector.
  var css = false

  /// The class bits of each byte for this language (built by ``finished()``).
  private(set) var classes: [UInt8] = []

  init(words: KeywordTable) { self.words = words }

  /// The rules with ``classes`` built from the switches above.
  func finished() -> CodeRules {
    var rules = self
    var table = [UInt8](repeating: 0, count: 256)
    for b in 0..<256 {
      let c = UInt8(b)
      var bits: UInt8 = 0
      if c == 0x20 || c == 0x09 || c == 0x0D || c == 0x0C || c == 0x0B { bits |= Class.space }
      if (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c >= 0x80 {
        bits |= Class.identifierStart | Class.identifier
      }
      if c >= 0x30 && c <= 0x39 { bits |= Class.digit | Class.identifier }
      if "+-*/%=<>!&|^~?:".utf8.contains(c) { bits |= Class.operator }
      if "{}[]();,.".utf8.contains(c) { bits |= Class.punctuation }
      table[b] = bits
    }
    for c in identifierStarts.utf8 { table[Int(c)] |= Class.identifierStart | Class.identifier }
    for c in identifierParts.utf8 { table[Int(c)] |= Class.identifier }
    for c in sigils.keys { table[Int(c)] |= Class.sigil }
    for marker in lineComments + [blockOpen] + quotes.map(\.open) where !marker.isEmpty {
      table[Int(marker[0])] |= Class.opener
    }
    if charactersAndLifetimes { table[0x27] |= Class.opener }
    rules.classes = table
    return rules
  }
}
