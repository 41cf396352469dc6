import Testing

@testable import FolioConfig

@Suite struct SourceLocatorTests {
  let text = """
    # a comment with key = "value"
    theme = "x"   # trailing comment
    cache_budget = '''
    not = a key
    '''

    [[action]]
    name = "a"
    command = [
      "x", # comment ]
      "y]",
    ]
    "quoted key" = 1
    [[action]]
    name = "b"
    inline = { a = 1, b = [
      2] }
    dotted.key = 3

    [keys]
    open = "l"
    """

  @Test func findsKeysHeadersAndArrayOfTablesEntries() {
    let locator = SourceLocator(text: text)
    #expect(locator.exactLine(of: "theme") == 2)
    #expect(locator.exactLine(of: "cache_budget") == 3)
    #expect(locator.exactLine(of: "not") == nil)
    #expect(locator.exactLine(of: "action[0]") == 7)
    #expect(locator.exactLine(of: "action[0].name") == 8)
    #expect(locator.exactLine(of: "action[0].command") == 9)
    #expect(locator.exactLine(of: "action[0].quoted key") == 13)
    #expect(locator.exactLine(of: "action[1]") == 14)
    #expect(locator.exactLine(of: "action[1].name") == 15)
    #expect(locator.exactLine(of: "action[1].inline") == 16)
    #expect(locator.exactLine(of: "action[1].dotted") == 18)
    #expect(locator.exactLine(of: "action[1].dotted.key") == 18)
    #expect(locator.exactLine(of: "keys") == 20)
    #expect(locator.exactLine(of: "keys.open") == 21)
  }

  @Test func fallsBackToTheNearestAncestor() {
    let locator = SourceLocator(text: text)
    #expect(locator.line(of: "action[1].inline.a") == 16)
    #expect(locator.line(of: "action[0].command[1]") == 9)
    #expect(locator.line(of: "action[1].missing") == 14)
    #expect(locator.line(of: "nowhere") == 1)
  }

  @Test func findsAnElementOfAMultiLineArray() {
    let locator = SourceLocator(text: text)
    #expect(locator.line(of: "action[0].command", containing: "y]") == 11)
    #expect(locator.line(of: "action[0].command", containing: "absent") == 9)
    // Never past the next key: "b" is on line 15, but that is another statement.
    #expect(locator.line(of: "action[0].command", containing: "b") == 9)
  }

  @Test func nestedArraysOfTablesCountPerParent() {
    let locator = SourceLocator(text: "[[a]]\n[[a.b]]\n[[a.b]]\n[[a]]\n[[a.b]]\nx = 1\n")
    #expect(locator.exactLine(of: "a[0].b[1]") == 3)
    #expect(locator.exactLine(of: "a[1].b[0]") == 5)
    #expect(locator.exactLine(of: "a[1].b[0].x") == 6)
  }
}
