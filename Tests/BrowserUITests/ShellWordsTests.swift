import Testing

@testable import BrowserUI

/// Open With…'s command line split into an argv as a shell splits words, without a shell.
@Suite struct ShellWordsTests {
  @Test(arguments: [
    ("vim", ["vim"]),
    ("  less   -R  ", ["less", "-R"]),
    ("grep -n 'two words'", ["grep", "-n", "two words"]),
    (#"echo "a \"quoted\" word" \$HOME"#, ["echo", #"a "quoted" word"#, "$HOME"]),
    (#"a\ b c"#, ["a b", "c"]),
    ("'' x", ["", "x"]),
    (#"say "it's" 'a "b"'"#, ["say", "it's", #"a "b""#]),
    ("$(reboot) `id` ~ *", ["$(reboot)", "`id`", "~", "*"]),
    (#""\n stays""#, [#"\n stays"#]),
  ])
  func splitsLikeAShellWithoutExpanding(_ line: String, _ words: [String]) throws {
    #expect(try ShellWords.split(line) == words)
  }

  @Test(arguments: ["vim 'open", #"say "half"#, #"trailing\"#])
  func unfinishedLinesAreRefused(_ line: String) {
    #expect(throws: ShellWords.Problem.self) { try ShellWords.split(line) }
  }
}
