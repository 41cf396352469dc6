import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The shell integration in a real terminal: the README's `f` function in a real bash, the picker
/// driven from a script, `!` with hostile names, and `Y`'s OSC 52 as tmux receives it.
extension TerminalEndToEndTests {
  @Suite("Shell integration")
  struct Shell {
    /// The bash function of the README (between `<!-- shell-function:bash -->` and `<!-- end -->`):
    /// the one tested is the one people copy.
    static func readmeBashFunction() throws -> String {
      let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
      let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
      let start = try #require(readme.range(of: "<!-- shell-function:bash -->"), "the README marks its bash function")
      let end = try #require(readme.range(of: "<!-- end -->", range: start.upperBound..<readme.endIndex))
      return readme[start.upperBound..<end.lowerBound].split(separator: "\n", omittingEmptySubsequences: false)
        .filter { !$0.hasPrefix("```") }.joined(separator: "\n")
    }

    @Test("The README's f function in bash: quit in a subfolder and the shell is there")
    func cwdFileMakesTheShellFollow() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Docs/two words 'x'/inside.txt", "here")
      try sandbox.file("top.txt", "top")
      let function = try sandbox.script(at: sandbox.harness + "/f.sh", try Self.readmeBashFunction())
      let folioFolder = URL(fileURLWithPath: try FolioBinary.path()).deletingLastPathComponent().path
      let term = try TmuxTerminal(
        sandbox, environment: ["PATH": folioFolder + ":" + sandbox.environment["PATH"]!, "TMPDIR": sandbox.harness],
        interactiveShell: true, shell: "/bin/bash --norc --noprofile -i")
      try term.wait(for: "$")
      try term.type(". \(shellQuote(function))\n")
      try term.type("f\n")
      try term.wait(forAll: ["Docs/", "top.txt"])
      try term.send("Enter")
      try term.wait(for: "two words 'x'/")
      try term.send("Enter")
      try term.wait(for: "inside.txt")
      try term.send("q")
      try term.wait(until: "the shell's prompt again") { !$0.contains("inside.txt") && $0.contains("$") }
      try term.type("pwd; echo \"cwd-file-left=$(ls \"$TMPDIR\" | grep -c folio-cwd)\"\n")
      let expected = sandbox.work + "/Docs/two words 'x'"
      let screen = try term.wait(until: "pwd's answer") { $0.lines.contains { $0.trimmingCharacters(in: .whitespaces) == expected } }
      try term.wait(for: "cwd-file-left=0")
      #expect(screen.contains(expected))
    }

    @Test("--cwd-file is left as it was when Folio quits in Recently Deleted (no folder to go to)")
    func cwdFileUntouchedInRecentlyDeleted() throws {
      let sandbox = try Sandbox()
      try sandbox.file("a.txt", "a")
      let cwdFile = try sandbox.file(sandbox.harness + "/cwd", "untouched")
      let term = try TmuxTerminal(sandbox, arguments: ["--cwd-file", cwdFile])
      try term.wait(for: "a.txt")
      // The sidebar's Recently Deleted: b, then j to the entry below This Computer, Enter.
      try term.send("b", "j", "Enter")
      try term.wait(until: "Recently Deleted on screen") { $0.lines[1].contains("Recently Deleted") && !$0.listShows("a.txt") }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
      #expect(try String(contentsOfFile: cwdFile, encoding: .utf8) == "untouched")
    }

    @Test("Picker from a script: two marked files are written one per line, and q writes nothing")
    func chooserFileWritesTheMarkedPaths() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Sub/deep.txt", "d")
      try sandbox.file("a b.txt", "a")
      try sandbox.file("c$(x).txt", "c")
      let chosen = sandbox.harness + "/chosen"
      let term = try TmuxTerminal(sandbox, arguments: ["--chooser-file", chosen])
      try term.wait(forAll: ["Sub/", "a b.txt", "c$(x).txt"])
      // Enter on a folder still opens it; Backspace back.
      try term.send("Enter")
      try term.wait(for: "deep.txt")
      try term.send("BSpace")
      try term.wait(until: "the folder again") { $0.listShows("a b.txt") && !$0.listShows("deep.txt") }
      try term.send("j", "Space", "Space", "Enter")
      try term.expectTerminalRestored(exitStatus: 0)
      let text = try String(contentsOfFile: chosen, encoding: .utf8)
      #expect(text == sandbox.path("a b.txt") + "\n" + sandbox.path("c$(x).txt") + "\n")

      let untouched = try sandbox.file(sandbox.harness + "/untouched", "as it was")
      let quit = try TmuxTerminal(sandbox, name: "quit", arguments: ["--chooser-file", untouched])
      try quit.wait(for: "a b.txt")
      try quit.send("q")
      try quit.expectTerminalRestored(exitStatus: 0)
      #expect(try String(contentsOfFile: untouched, encoding: .utf8) == "as it was")
    }

    @Test("Picker: Enter on one file writes its path and quits")
    func chooserFileWritesTheFileUnderTheCursor() throws {
      let sandbox = try Sandbox()
      try sandbox.file("only.txt", "o")
      let chosen = sandbox.harness + "/chosen"
      let term = try TmuxTerminal(sandbox, arguments: ["--chooser-file", chosen])
      try term.wait(for: "only.txt")
      try term.send("Enter")
      try term.expectTerminalRestored(exitStatus: 0)
      #expect(try String(contentsOfFile: chosen, encoding: .utf8) == sandbox.path("only.txt") + "\n")
    }

    @Test("! runs printf over two marked hostile names and they arrive exactly, as \"$@\"")
    func shellCommandGetsTheSelectionAsArguments() throws {
      let sandbox = try Sandbox()
      let hostile = ["$(touch pwned) x.txt", "two words 'quoted\".txt"]
      for name in hostile { try sandbox.file(name, "x") }
      let term = try TmuxTerminal(sandbox, environment: ["SHELL": "/bin/bash"])
      try term.wait(forAll: ["2 items", "pwned"])
      try term.send("Space", "Space", "!")
      try term.wait(for: "┌─ Shell command (\"$@\": 2 items)")
      try term.type("printf '%s\\n' \"$@\" > out")
      try term.send("Enter")
      try term.wait(for: "Press any key to return to Folio")
      // The selection's full paths, each one argument, byte for byte.
      #expect(sandbox.contents("out") == hostile.map(sandbox.path).joined(separator: "\n") + "\n")
      #expect(!sandbox.exists("pwned"), "no name was run by the shell")
      try term.send("x")
      // Folio comes back, and lists what the command made.
      try term.wait(until: "Folio again, out listed") { $0.contains("Browse") && $0.listShows("out") }
      try term.send("q")
      // The command's output is on the normal screen, under the shell's next line: only the exit
      // and the modes are checked.
      try term.expectTerminalRestored(exitStatus: 0, alternateScreen: false)
    }

    @Test("! says a failing command's status, and Ctrl-C at the pause returns to Folio without quitting it")
    func shellCommandThatFailsAndCtrlCAtThePause() throws {
      let sandbox = try Sandbox()
      try sandbox.file("a.txt", "a")
      let term = try TmuxTerminal(sandbox, environment: ["SHELL": "/bin/sh"])
      try term.wait(for: "a.txt")
      try term.send("!")
      try term.wait(for: "┌─ Shell command")
      try term.type("echo failing; exit 3")
      try term.send("Enter")
      try term.wait(forAll: ["failing", "[exit status 3] Press any key to return to Folio"])
      try term.send("C-c")
      let screen = try term.wait(for: "/bin/sh exited with status 3")
      #expect(screen.contains("Browse"), "Folio is back, not quit:\n\(screen.framed)")
      // The last command is proposed again: Enter runs it.
      try term.send("!")
      try term.wait(for: "echo failing; exit 3")
      try term.send("Enter")
      try term.wait(for: "[exit status 3] Press any key")
      try term.send("Down")
      try term.wait(until: "Folio again") { $0.contains("Browse") && $0.listShows("a.txt") }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0, alternateScreen: false)
    }

    @Test("S opens $SHELL in the folder being browsed, with FOLIO_LEVEL, and exit comes back")
    func capitalSOpensAShellHere() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Inner/file.txt", "f")
      let term = try TmuxTerminal(sandbox, environment: ["SHELL": "/bin/sh", "PS1": "shell> "])
      try term.wait(for: "Inner/")
      try term.send("Enter")
      try term.wait(for: "file.txt")
      try term.send("S")
      try term.wait(for: "shell>")
      try term.type("echo \"at=$(pwd) level=$FOLIO_LEVEL\"\n")
      try term.wait(for: "at=\(sandbox.work)/Inner level=1")
      try term.type("exit\n")
      try term.wait(until: "Folio again") { $0.contains("Browse") && $0.listShows("file.txt") }
      try term.send("q")
      // What the shell printed stays on the normal screen: only the exit and the modes are checked.
      try term.expectTerminalRestored(exitStatus: 0, alternateScreen: false)
    }

    @Test("Y puts the marked paths in tmux's buffer through OSC 52 (set-clipboard on)")
    func copyPathsReachesTmuxThroughOSC52() throws {
      let sandbox = try Sandbox()
      try sandbox.file("first file.txt", "1")
      try sandbox.file("second 写真.txt", "2")
      let term = try TmuxTerminal(sandbox)
      try term.tmux(["set-option", "-g", "set-clipboard", "on"])
      try term.wait(forAll: ["first file.txt", "second 写真.txt"])
      try term.send("Space", "Space", "Y")
      try term.wait(for: "Copied 2 paths")
      let expected = sandbox.path("first file.txt") + "\n" + sandbox.path("second 写真.txt")
      try TmuxTerminal.eventually("tmux's buffer to hold the paths") {
        (try? term.tmux(["show-buffer"], check: false)) == expected
      }
    }
  }
}
