import ProviderAPI
import Testing

@Suite("ActivationRule: parse errors")
struct ActivationRuleErrorTests {
  static let operators =
    "(==, !=, <, <=, >, >=, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES, UTI-CONFORMS-TO)"

  /// Malformed rules and the exact message, column included (1-based, in characters).
  @Test(arguments: [
    // Structure.
    ("", "rule error at column 1: unexpected end of rule (the rule is empty)"),
    ("   ", "rule error at column 4: unexpected end of rule (the rule is empty)"),
    ("filename", "rule error at column 9: expected a comparison operator \(operators) after 'filename'"),
    (
      "filename 'a.md'",
      "rule error at column 10: expected a comparison operator \(operators) after 'filename'"
    ),
    (
      "filename CONTIANS 'a'",
      "rule error at column 10: expected a comparison operator \(operators) after 'filename' (did you mean 'CONTAINS'?)"
    ),
    (
      "filename == 'a' OR (size > 1 AND isFolder)",
      "rule error at column 42: expected a comparison operator \(operators) after 'isFolder'"
    ),
    (
      "$fileproviderItem.userInfo",
      "rule error at column 1: unknown variable '$fileproviderItem' (variables exist only inside SUBQUERY)"
    ),
    ("filename ==", "rule error at column 12: unexpected end of rule (expected a key or a value after '==')"),
    ("size > 1 AND", "rule error at column 13: unexpected end of rule (expected a key or a value)"),
    ("filename == AND", "rule error at column 13: expected a key or a value after '==', found 'AND'"),
    ("size >> 1", "rule error at column 7: expected a key or a value after '>', found '>'"),
    (
      "filename == 'a' extra",
      "rule error at column 17: unexpected 'extra' after a complete rule (missing AND or OR?)"
    ),
    ("size > 1 )", "rule error at column 10: unexpected ')' after a complete rule (missing AND or OR?)"),
    ("(filename == 'a'", "rule error at column 17: expected ')' to close '(' at column 1"),
    ("((size > 1)", "rule error at column 12: expected ')' to close '(' at column 1"),
    // '(' at 5; 'extra' at 34.
    (
      "NOT (isFolder == YES OR size > 1 extra",
      "rule error at column 34: expected ')' to close '(' at column 5, found 'extra'"
    ),
    // Lexical.
    ("filename == 'abc", "rule error at column 17: unterminated string starting at column 13"),
    ("name == \"It's", "rule error at column 14: unterminated string starting at column 9"),
    ("name == 'a\\'", "rule error at column 13: unterminated string starting at column 9"),
    ("size > 10kb", "rule error at column 8: invalid number '10kb'"),
    ("filename ==[x] 'a'", "rule error at column 13: unknown comparison option 'x' (use [c], [d] or [cd])"),
    ("filename ==[c 'a'", "rule error at column 12: expected ']' to close '[' at column 12"),
    ("isFolder == YES & size > 1", "rule error at column 17: unexpected '&' (did you mean '&&'?)"),
    ("size > 1 # comment", "rule error at column 10: unexpected character '#'"),
    ("filename == $", "rule error at column 13: expected a variable name after '$'"),
    // Keys.
    ("filenme == 'a'", "rule error at column 1: unknown key 'filenme' (did you mean 'filename'?)"),
    ("FileName == 'a'", "rule error at column 1: unknown key 'FileName' (did you mean 'filename'?)"),
    ("color == 'red'", "rule error at column 1: unknown key 'color'"),
    // 'café' is 6 characters (13…18) however many bytes it takes.
    (
      "filename == 'café' AND sizee > 1",
      "rule error at column 24: unknown key 'sizee' (did you mean 'size'?)"
    ),
    ("userInfo == 1", "rule error at column 10: expected '.KEY' after 'userInfo', found '=='"),
    ("domainUserInfo. == 1", "rule error at column 17: expected a key after 'domainUserInfo.', found '=='"),
    (
      "fileproviderItems > 0",
      "rule error at column 19: expected '.@count' after 'fileproviderItems', found '>'"
    ),
    ("tags.@sum > 1", "rule error at column 6: unknown aggregate '@sum' (only @count is supported)"),
    (
      "size.@count > 1",
      "rule error at column 6: '@count' applies only to tags, capabilities and fileproviderItems"
    ),
    // Operators and operand types.
    (
      "ANY size > 1",
      "rule error at column 1: ANY needs a collection such as 'tags' or 'capabilities' after it, found 'size'"
    ),
    ("filename BEGINSWITH 3", "rule error at column 21: BEGINSWITH compares strings, found '3'"),
    ("YES LIKE '*'", "rule error at column 1: LIKE compares strings, found 'YES'"),
    (
      "size IN 10",
      "rule error at column 9: IN needs a list such as {'a', 'b'} or a collection on its right, found '10'"
    ),
    (
      "kind IN {'file' 'folder'}",
      "rule error at column 17: expected ',' or '}' in the list starting at column 9, found 'folder'"
    ),
    (
      "kind IN {'file', size}",
      "rule error at column 18: expected a string, number, boolean or NULL in the list, found 'size'"
    ),
    (
      "kind IN {'file',",
      "rule error at column 17: unexpected end of rule (expected '}' to close '{' at column 9)"
    ),
    ("filename MATCHES '[a-'", "rule error at column 18: invalid regular expression '[a-'"),
    ("filename MATCHES 'a)(b'", "rule error at column 18: invalid regular expression 'a)(b'"),
    (
      "contentType UTI-CONFORMS-TO[c] 'public.image'",
      "rule error at column 28: comparison options such as [c] do not apply to UTI-CONFORMS-TO"
    ),
    (
      "contentType CONFORMS 'public.image'",
      "rule error at column 22: expected 'TO' after 'CONFORMS', found 'public.image'"
    ),
    // SUBQUERY: fileproviderItems is 10…26, the first ',' 27, '$x' 29…30, the predicate from 33.
    (
      "SUBQUERY fileproviderItems",
      "rule error at column 10: expected '(' after SUBQUERY, found 'fileproviderItems'"
    ),
    (
      "SUBQUERY(tags, $t, $t == 'a').@count > 0",
      "rule error at column 10: expected 'fileproviderItems' as the collection of SUBQUERY, found 'tags'"
    ),
    (
      "SUBQUERY(fileproviderItems, x, x.size > 1).@count > 0",
      "rule error at column 29: expected a variable such as '$item' in SUBQUERY, found 'x'"
    ),
    (
      "SUBQUERY(fileproviderItems, $x, $y.isFolder == YES).@count > 0",
      "rule error at column 33: unknown variable '$y' (this SUBQUERY binds '$x')"
    ),
    (
      "SUBQUERY(fileproviderItems, $x, isFolder == YES).@count > 0",
      "rule error at column 33: inside SUBQUERY, write '$x.isFolder' to name a key of the item"
    ),
    (
      "SUBQUERY(fileproviderItems, $x, $x.isFolder == YES) > 0",
      "rule error at column 53: expected '.@count' after 'SUBQUERY(…)', found '>'"
    ),
    (
      "SUBQUERY(fileproviderItems, $x, $x.isFolder == YES",
      "rule error at column 51: expected ')' to close 'SUBQUERY(' at column 9"
    ),
    (
      "SUBQUERY(fileproviderItems, $x, $x == 1).@count > 0",
      "rule error at column 36: expected '.' and a key after '$x', found '=='"
    ),
    (
      "SUBQUERY(fileproviderItems, $x, SUBQUERY(fileproviderItems, $x, $x.size > 1).@count > 0).@count > 0",
      "rule error at column 61: variable '$x' is already bound by an enclosing SUBQUERY"
    ),
  ])
  func malformed(rule: String, message: String) {
    #expect(throws: ProviderError(.badRule, message)) { try ActivationRule(parsing: rule) }
  }

  /// Nesting is capped so a corrupt rule is an error, not a stack overflow.
  @Test func nestingLimit() throws {
    let ok = String(repeating: "(", count: 64) + "size > 1" + String(repeating: ")", count: 64)
    _ = try ActivationRule(parsing: ok)
    let deep = String(repeating: "(", count: 65) + "size > 1" + String(repeating: ")", count: 65)
    #expect(
      throws: ProviderError(.badRule, "rule error at column 65: the rule nests more than 64 levels deep")
    ) {
      try ActivationRule(parsing: deep)
    }
    // Each "NOT " is four characters, so the 65th NOT starts at 4 × 64 + 1.
    let nots = String(repeating: "NOT ", count: 100) + "size > 1"
    #expect(
      throws: ProviderError(.badRule, "rule error at column 257: the rule nests more than 64 levels deep")
    ) {
      try ActivationRule(parsing: nots)
    }
  }

  /// Every prefix of a well-formed rule either parses or fails with `.badRule`: truncation, the
  /// commonest corruption of a hand-edited rule, must never trap.
  @Test(arguments: [
    ActivationRuleSelectionTests.pin,
    "filename MATCHES[cd] 'caf\\.*' AND NOT (ANY tags IN {'a', \"b\", 1.5e3, NULL}) || size >= -2",
    "contentType CONFORMS TO 'public.image' AND domainUserInfo.plan.tier != nil AND tags.@count < 3",
    "SUBQUERY(fileproviderItems, $a, SUBQUERY(selection, $b, $b.size > $a.size).@count == 0).@count == 1",
  ])
  func everyPrefixParsesOrFails(rule: String) {
    for n in 0...rule.count {
      let prefix = String(rule.prefix(n))
      do {
        _ = try ActivationRule(parsing: prefix)
      } catch {
        #expect(error.code == .badRule, "\(prefix)")
      }
    }
  }

  /// Every failure is `.badRule`, so callers can tell a bad rule from other configuration errors.
  @Test(arguments: ["", "size >", "'", "filenme == 1", "filename MATCHES '('"])
  func codeIsBadRule(rule: String) {
    do {
      _ = try ActivationRule(parsing: rule)
      Issue.record("'\(rule)' parsed")
    } catch {
      #expect(error.code == .badRule)
      #expect(error.message.hasPrefix("rule error at column "))
    }
  }

  /// A message quotes the rule's text, escaped: a provider's rule is untrusted and its errors are
  /// shown (found by folio-fuzz; Fuzz/corpus/activation-rule/regression-*).
  @Test(arguments: [
    ("size \u{0} 1", "unexpected character '\\x00'"), ("\u{1B}[31m", "unexpected character '\\e'"),
    ("filename == 1 \u{202E}", "\\u{202E}"), ("nosuch\u{9B}key == 1", "\\u{9B}"),
  ])
  func messagesEscapeTheRulesText(rule: String, shown: String) {
    do {
      _ = try ActivationRule(parsing: rule)
      Issue.record("parsed")
    } catch {
      #expect(error.message.contains(shown), "\(error.message)")
      #expect(!error.message.unicodeScalars.contains { $0.value < 0x20 || (0x80...0x9F).contains($0.value) || $0.value == 0x202E })
    }
  }
}
