import ProviderAPI
import Testing

/// What toml++ asserts instead of checking is refused before it sees it (found by folio-fuzz;
/// Fuzz/corpus/config-toml/regression-* and theme/regression-*); valid TOML passes untouched.
@Suite struct TOMLPreflightTests {
  @Test(arguments: [
    ("[}", 1, 2), ("[&", 1, 2), ("[[[1]]]", 1, 3), ("a = 1\n[b. ,]", 2, 5), ("d=[\"\"]\n[,", 2, 2),
    ("c=[\"\",\"\",}", 1, 10), ("\u{FEFF}[%[action]]", 1, 5), ("x = }", 1, 5), ("x = [,]", 1, 6), ("t = {a = ,}", 1, 10),
  ])
  func refusesWhatTomlPlusPlusAsserts(text: String, line: Int, column: Int) throws {
    let p = try #require(TOMLPreflight.problem(in: text))
    #expect(p.line == line)
    #expect(p.column == column)
  }

  @Test(arguments: [
    "[a]\nb = 1", "[[opener]]\nmatch = 'x'", "[ \"quoted key\" . 'x' ]", "a = [\n  [1, 2],\n  [3],\n]", "a = []", "t = {}",
    "s = \"\"\"\n[}\n\"\"\"", "l = '''\n[&\n'''", "# [}\nk = 'v' # [&", "a = [ # c\n 1, # d\n]", "e = \"\\\"[}\"",
  ])
  func passesValidTOML(text: String) {
    #expect(TOMLPreflight.problem(in: text) == nil)
  }
}
