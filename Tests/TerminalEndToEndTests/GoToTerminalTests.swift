import Foundation
import Testing

/// Issue 13 part 4 in a real terminal: the Go to prompt (`:`) with Tab completion, a bad path,
/// history back and forward, the cursor's place, and the sort and hidden choice kept for the
/// next run.
extension TerminalEndToEndTests {
  @Suite("Moving around")
  struct GoTo {
    @Test("Go to: Tab completes a folder, a second Tab lists, Enter goes; a bad path is said; H and L")
    func goToCompletesAndGoes() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Projects/alpha/deep.txt", "d")
      try sandbox.file("Projects/beta/b.txt", "b")
      try sandbox.file("Photos/p.txt", "p")
      try sandbox.file("top.txt", "t")
      let term = try TmuxTerminal(sandbox, width: 120, height: 30)
      try term.wait(forAll: ["Projects/", "Photos/", "top.txt", "1/3 items"])
      try term.send("j")
      try term.wait(for: "2/3 items")

      // Relative to the folder on screen: "Pro" + Tab is Projects/, "a" + Tab its alpha/ (listed
      // off the loop: Projects is not on screen).
      try term.send(":")
      try term.wait(for: "Go to:")
      try term.type("Pro")
      try term.send("Tab")
      try term.wait(until: "Projects/ completed in the prompt") { $0.lines.contains { $0.contains("│ Projects/") } }
      try term.type("a")
      try term.send("Tab")
      try term.wait(until: "alpha/ completed") { $0.lines.contains { $0.contains("│ Projects/alpha/") } }
      try term.send("Enter")
      try term.wait(until: "alpha listed") { $0.listShows("deep.txt") && $0.contains("1/1 item") }

      // An absolute path, two candidates: the second Tab lists them on the prompt.
      try term.send(":")
      try term.wait(for: "Go to:")
      try term.type(sandbox.work + "/P")
      try term.send("Tab")
      try term.wait(for: "Photos · Projects")
      try term.send("C-u")
      // A path that is not there: said in the prompt, nothing else changes.
      try term.type("/no/such/place")
      try term.send("Enter")
      try term.wait(for: "Cannot go to /no/such/place")
      try term.wait(until: "the folder unchanged behind") { $0.listShows("deep.txt") }
      try term.send("Escape")
      try term.wait(until: "the prompt closed") { !$0.contains("Go to:") && $0.listShows("deep.txt") }

      // Back to where it started, the cursor on Projects (the item it was on when it left).
      try term.send("H")
      try term.wait(until: "the first folder again") { $0.listShows("top.txt") && $0.contains("2/3 items") }
      try term.send("L")
      try term.wait(until: "alpha again") { $0.listShows("deep.txt") }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("The hidden-files and sort choice is kept for the next run, in the XDG state folder")
    func viewChoicesAreKept() throws {
      let sandbox = try Sandbox()
      try sandbox.file(".secret", "s")
      try sandbox.file("visible.txt", "v")
      let term = try TmuxTerminal(sandbox)
      try term.wait(for: "visible.txt")
      #expect(!(try term.capture()).listShows(".secret"))
      try term.send(".")
      try term.wait(until: "hidden files shown") { $0.listShows(".secret") }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
      let kept = try String(contentsOfFile: sandbox.stateHome + "/folio/view", encoding: .utf8)
      #expect(kept.contains("hidden = true"), "\(kept)")

      let again = try TmuxTerminal(sandbox, name: "again")
      try again.wait(until: "hidden files shown at once") { $0.listShows(".secret") && $0.listShows("visible.txt") }
      try again.send("q")
      try again.expectTerminalRestored(exitStatus: 0)
    }
  }
}
