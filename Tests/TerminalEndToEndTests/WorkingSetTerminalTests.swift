import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 9: the working set must never point at something that is not there. Recents, Tags and
/// favorites name items by identifier and a last known path; opening one resolves it first.
extension TerminalEndToEndTests {
  @Suite("Working set entries")
  struct WorkingSetEntries {
    /// An editor like a real one: it records its arguments and, as vim does when it saves a
    /// buffer, creates the file it was given when it does not exist.
    static func creatingEditor(_ sandbox: Sandbox) throws -> (editor: String, argvFile: String) {
      let argvFile = sandbox.harness + "/editor-argv"
      let editor = try sandbox.script(
        at: sandbox.harness + "/editor",
        """
        for a in "$@"; do last="$a"; printf '%s\\n' "$a"; done > '\(argvFile).tmp'
        printf '' >> "$last"
        mv '\(argvFile).tmp' '\(argvFile)'

        """)
      return (editor, argvFile)
    }

    static func lastArgument(_ argvFile: String) throws -> String? {
      try String(contentsOfFile: argvFile, encoding: .utf8).split(separator: "\n").map(String.init).last
    }

    @Test("A Recents entry renamed in another shell is followed: the editor gets the new name, no file is made at the old one")
    func renamedRecentIsFollowed() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Documents/my notes.txt", "precious")
      let (editor, argvFile) = try Self.creatingEditor(sandbox)
      let term = try TmuxTerminal(sandbox, environment: ["EDITOR": editor], directory: sandbox.path("Documents"))
      try term.wait(forAll: ["my notes.txt", "1 item"])
      try term.send("Enter")
      try TmuxTerminal.eventually("the editor to run") { FileManager.default.fileExists(atPath: argvFile) }
      try term.wait(until: "the redrawn list") { $0.listShows("my notes.txt") && $0.contains("Browse") }
      try FileManager.default.removeItem(atPath: argvFile)

      // Another shell renames it.
      #expect(rename(sandbox.path("Documents/my notes.txt"), sandbox.path("Documents/notes2.txt")) == 0)
      try term.send("Tab")
      try term.wait(forAll: ["Last opened", "my notes.txt"])
      try term.send("Enter")
      try TmuxTerminal.eventually("the editor to run again") { FileManager.default.fileExists(atPath: argvFile) }
      #expect(try Self.lastArgument(argvFile) == sandbox.path("Documents/notes2.txt"), "the editor got where the file is now")
      #expect(!sandbox.exists("Documents/my notes.txt"), "nothing was created at the old path")
      #expect(sandbox.contents("Documents/notes2.txt") == "precious")
      // The index followed: Recents lists the new name, not the old one.
      let screen = try term.wait(until: "Recents showing the new name") { $0.listShows("notes2.txt") }
      #expect(!screen.listShows("my notes.txt"), "\(screen.framed)")
    }

    @Test("A Recents entry whose file is gone says so, offers to remove it, and removes it; nothing is created")
    func goneRecentIsOfferedForRemoval() throws {
      let sandbox = try Sandbox()
      try sandbox.file("keep.txt", "keep")
      try sandbox.file("old.txt", "old")
      let (editor, argvFile) = try Self.creatingEditor(sandbox)
      let term = try TmuxTerminal(sandbox, environment: ["EDITOR": editor])
      try term.wait(forAll: ["keep.txt", "old.txt", "2 items"])
      try term.send("j", "Enter")
      try TmuxTerminal.eventually("the editor to run") { FileManager.default.fileExists(atPath: argvFile) }
      try term.wait(until: "the redrawn list") { $0.listShows("old.txt") && $0.contains("Browse") }
      try FileManager.default.removeItem(atPath: argvFile)

      #expect(unlink(sandbox.path("old.txt")) == 0)
      try term.send("Tab")
      try term.wait(forAll: ["Last opened", "old.txt"])
      try term.send("Enter")
      try term.wait(until: "the question") { $0.contains("┌─ Confirm") && $0.contains("no longer in") }
      #expect(!FileManager.default.fileExists(atPath: argvFile), "no editor was started")
      #expect(!sandbox.exists("old.txt"), "nothing was created at the old path")
      try term.send("y")
      let screen = try term.wait(until: "Recents without the entry") { !$0.contains("┌─ Confirm") && !$0.listShows("old.txt") }
      #expect(screen.contains("Removed"), "the status line says what was removed:\n\(screen.framed)")
      let recents = try Programs.run(
        try FolioBinary.path(), ["recents"], environment: sandbox.environment, directory: sandbox.work)
      #expect(!recents.stdout.contains("old.txt"), "folio recents no longer lists it: \(recents.stdout)")
    }

    @Test("A folder favorite opens after a restart, from another start folder")
    func folderFavoriteAfterRestart() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Docs/inner.txt", "inside")
      try sandbox.file("zz.txt", "after")
      var term = try TmuxTerminal(sandbox)
      try term.wait(forAll: ["Docs/", "zz.txt", "2 items"])
      try term.send("f")
      try term.wait(until: "the favorite in the sidebar") { $0.contains("★ Docs") }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)

      term = try TmuxTerminal(sandbox, name: "second", arguments: ["/"])
      try term.wait(forAll: ["★ Docs", "usr/"])
      try term.send("b", "j", "Enter")
      let screen = try term.wait(until: "the favorite folder listed") { $0.listShows("inner.txt") || $0.contains("no such item") }
      #expect(screen.listShows("inner.txt"), "\(screen.framed)")
      #expect(screen.lines[1].hasSuffix("/Docs"), "the path bar names the folder:\n\(screen.framed)")
    }

    @Test("Enter on a broken link or a FIFO says why; no opener runs and Recents stays empty")
    func brokenLinkAndFIFOAreNotOpened() throws {
      let sandbox = try Sandbox()
      #expect(symlink("missing.txt", sandbox.path("a-link")) == 0)
      #expect(mkfifo(sandbox.path("b-pipe"), 0o600) == 0)
      #expect(symlink("c-loop", sandbox.path("c-loop")) == 0)
      let (editor, argvFile) = try Self.creatingEditor(sandbox)
      let term = try TmuxTerminal(sandbox, environment: ["EDITOR": editor])
      try term.wait(forAll: ["a-link", "b-pipe", "c-loop", "3 items"])

      try term.send("Enter")
      try term.wait(until: "the broken link's message") { $0.contains("broken link") && $0.contains("missing.txt") }
      try term.send("j", "Enter")
      try term.wait(until: "the FIFO's message") { $0.contains("named pipe") }
      try term.send("j", "Enter")
      try term.wait(until: "the loop's message") { $0.contains("loop of links") }
      #expect(!FileManager.default.fileExists(atPath: argvFile), "no opener ran")
      #expect(!sandbox.exists("missing.txt"), "the link's target was not created")

      try term.send("Tab")
      let screen = try term.wait(until: "Recents") { $0.contains("Last opened") }
      #expect(screen.contains("Nothing yet"), "nothing that failed to open is recent:\n\(screen.framed)")
      let recents = try Programs.run(
        try FolioBinary.path(), ["recents"], environment: sandbox.environment, directory: sandbox.work)
      #expect(recents.stdout.isEmpty, "folio recents lists nothing: \(recents.stdout)")
    }
  }
}
