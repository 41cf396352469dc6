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

    @Test("Open With…'s commands are kept for the next run, in the XDG state folder")
    func openWithHistoryIsKeptBetweenRuns() throws {
      let sandbox = try Sandbox()
      try sandbox.file("notes.txt", "x")
      let term = try TmuxTerminal(sandbox)
      try term.wait(for: "notes.txt")
      try term.send("o")
      try term.wait(for: "┌─ Open with (command; path added)")
      try term.type("printf '<%s>\\n' kept")
      try term.send("Enter")
      try term.wait(for: "Press any key to return to Folio")
      try term.send("x")
      try term.wait(until: "Folio again") { $0.contains("Browse") && $0.listShows("notes.txt") }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0, alternateScreen: false)
      let kept = try String(contentsOfFile: sandbox.stateHome + "/folio/open-with", encoding: .utf8)
      #expect(kept.contains("printf '<%s>\\n' kept\n"), "\(kept)")

      // A new run: Up in the prompt brings the command back.
      let again = try TmuxTerminal(sandbox, name: "again")
      try again.wait(for: "notes.txt")
      try again.send("o")
      try again.wait(for: "┌─ Open with")
      try again.send("Up")
      try again.wait(for: "printf '<%s>\\n' kept")
      try again.send("Escape")
      try again.wait(until: "the prompt closed") { !$0.contains("┌─ Open with") }
      try again.send("q")
      try again.expectTerminalRestored(exitStatus: 0)
    }

    @Test("On the disk: x then p moves a file into a folder, u puts it back, d then u restores it from the Trash, U deletes again")
    func cutPasteUndoAndDeleteUndoOnTheDisk() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Docs/inside.txt", "in")
      try sandbox.file("notes.txt", "precious")
      let term = try TmuxTerminal(sandbox)
      try term.wait(forAll: ["Docs/", "notes.txt", "2 items"])
      try term.send("j", "x")
      try term.wait(for: "Cut “notes.txt” — p moves it here")
      try term.send("k", "Enter")
      try term.wait(until: "Docs listed") { $0.listShows("inside.txt") && $0.contains("1 cut") }
      try term.send("p")
      try term.wait(until: "notes.txt moved into Docs") { $0.listShows("notes.txt") && $0.contains("Moved “notes.txt” here") }
      #expect(sandbox.contents("Docs/notes.txt") == "precious" && !sandbox.exists("notes.txt"))
      try term.send("u")
      try term.wait(until: "the move undone") { !$0.listShows("notes.txt") && $0.contains("Undid the move of “notes.txt”") }
      #expect(sandbox.contents("notes.txt") == "precious" && !sandbox.exists("Docs/notes.txt"))

      try term.send("BSpace")
      try term.wait(until: "the top folder again") { $0.listShows("notes.txt") && $0.listShows("Docs/") }
      try term.send("G", "d")
      try term.wait(until: "notes.txt deleted") { !$0.listShows("notes.txt") }
      #expect(!sandbox.exists("notes.txt"))
      try term.send("u")
      try term.wait(until: "the deletion undone") { $0.listShows("notes.txt") && $0.contains("Undid the deletion of “notes.txt”") }
      #expect(sandbox.contents("notes.txt") == "precious")
      let out = try sandbox.tool("trash-list", [], package: "trash-cli")
      #expect(!out.stdout.contains("notes.txt"), "restored from the Trash, not copied: \(out.stdout)")
      try term.send("U")
      try term.wait(until: "deleted again") { !$0.listShows("notes.txt") && $0.contains("Redid the deletion") }
      try TmuxTerminal.eventually("trash-list to show notes.txt again") {
        try sandbox.tool("trash-list", [], package: "trash-cli").stdout.contains(sandbox.path("notes.txt"))
      }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

  }
}
