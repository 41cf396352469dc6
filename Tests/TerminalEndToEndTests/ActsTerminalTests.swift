import Foundation
import Testing

/// Acting on items in a real terminal (issue 13 §4): Open With… runs a command with arguments —
/// quotes honoured, no shell, the path appended as its own argument — and a program that exits
/// at once leaves its output on screen until a key.
extension TerminalEndToEndTests {
  @Suite("Acting")
  struct Acts {
    @Test("Open With… splits the command like a shell, appends the path, and its output stays until a key")
    func openWithRunsACommandWithArgumentsAndPauses() throws {
      let sandbox = try Sandbox()
      try sandbox.file("two words $(touch pwned).txt", "x")
      let term = try TmuxTerminal(sandbox)
      try term.wait(for: "two words")
      try term.send("o")
      try term.wait(for: "┌─ Open with (command; path added)")
      try term.type("printf '<%s>\\n' 'one arg' \"and another\"")
      try term.send("Enter")
      // Each argument whole, then the file's path as the last one, exactly.
      let path = sandbox.path("two words $(touch pwned).txt")
      try term.wait(forAll: ["<one arg>", "<and another>", "<\(path)>", "Press any key to return to Folio"])
      #expect(!sandbox.exists("pwned"), "no shell ran the name")
      try term.send("x")
      try term.wait(until: "Folio again") { $0.contains("Browse") && $0.listShows("two words") }
      // The command is remembered: Up in the prompt brings it back.
      try term.send("o")
      try term.wait(for: "┌─ Open with")
      try term.send("Up")
      try term.wait(for: "printf '<%s>\\n' 'one arg' \"and another\"")
      try term.send("Escape")
      try term.wait(until: "the prompt closed") { !$0.contains("┌─ Open with") }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0, alternateScreen: false)
    }
  }
}
