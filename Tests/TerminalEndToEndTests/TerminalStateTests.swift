import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

extension TerminalEndToEndTests {
  /// Leaving gives the terminal back exactly as it was: by `q` and by the signals that end a
  /// session (kill, an SSH connection dropping).
  @Suite("Leaving")
  struct Leaving {
    @Test("q restores the terminal: the shell's next line shows, the alternate screen is gone")
    func quitRestoresTheTerminal() throws {
      let sandbox = try Sandbox()
      try sandbox.file("notes.txt")
      let term = try TmuxTerminal(sandbox)
      try term.wait(forAll: ["notes.txt", "Browse"])
      #expect(try term.format("#{alternate_on}") == "1", "Folio draws on the alternate screen")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("Ctrl-C quits even with quit unbound in [keys], from a prompt too")
    func ctrlCAlwaysQuits() throws {
      let sandbox = try Sandbox()
      try sandbox.file("notes.txt")
      try FileManager.default.createDirectory(atPath: sandbox.configHome + "/folio", withIntermediateDirectories: true)
      try "[keys]\nquit = []\n".write(toFile: sandbox.configHome + "/folio/config.toml", atomically: true, encoding: .utf8)
      let term = try TmuxTerminal(sandbox)
      try term.wait(forAll: ["notes.txt", "Browse"])
      try term.send("r")
      try term.wait(for: "┌─ Rename")
      try term.send("C-c")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("q restores the terminal with the mouse enabled too")
    func quitRestoresTheTerminalWithTheMouse() throws {
      let sandbox = try Sandbox()
      try sandbox.file("notes.txt")
      let term = try TmuxTerminal(sandbox, arguments: ["--mouse"])
      try term.wait(forAll: ["notes.txt", "Browse"])
      #expect(try term.format("#{mouse_any_flag}") == "1", "--mouse turns mouse reporting on")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test(
      "A signal that ends the session restores the terminal and exits with 128 + the signal",
      arguments: [(SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGINT, "SIGINT")])
    func signalRestoresTheTerminal(signal: Int32, name: String) throws {
      let sandbox = try Sandbox()
      try sandbox.file("notes.txt")
      // With the mouse on, so that the restore has to turn it off as well.
      let term = try TmuxTerminal(sandbox, arguments: ["--mouse"])
      try term.wait(forAll: ["notes.txt", "Browse"])
      let pid = try term.folioPID()
      #expect(kill(pid, signal) == 0, "sent \(name) to \(pid)")
      try term.expectTerminalRestored(exitStatus: 128 + signal)
    }

    @Test("A signal while a menu is open restores the terminal too")
    func signalInsideAMenu() throws {
      let sandbox = try Sandbox()
      try sandbox.file("notes.txt")
      let term = try TmuxTerminal(sandbox)
      try term.wait(forAll: ["notes.txt", "Browse"])
      try term.send("m")
      try term.wait(for: "┌─ notes.txt")
      #expect(kill(try term.folioPID(), SIGTERM) == 0)
      try term.expectTerminalRestored(exitStatus: 128 + SIGTERM)
    }
  }

  @Suite("Terminals")
  struct Terminals {
    /// Folio after a resize must look exactly like a Folio started at the new size: anything
    /// else is garbage left from the old layout.
    @Test("A resize redraws the screen exactly as a fresh start at that size draws it")
    func resizeRedrawsCleanly() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Docs/inner.txt")
      try sandbox.file("a rather long file name that the narrow layout has to truncate.txt", "x")
      try sandbox.file("notes.txt", "notes")
      let term = try TmuxTerminal(sandbox, width: 100, height: 30)
      try term.wait(forAll: ["notes.txt", "3 items", "Kind"])

      for (width, height) in [(60, 20), (120, 40), (80, 24)] {
        let fresh = try TmuxTerminal(sandbox, name: "fresh-\(width)x\(height)", width: width, height: height)
        let expected = try fresh.wait(forAll: ["notes.txt", "3 items"])
        fresh.kill()
        #expect(expected.lines.count == height)

        try term.resize(width: width, height: height)
        let screen = try term.wait(until: "the \(width)x\(height) redraw equal to a fresh start's:\n\(expected.framed)") {
          $0 == expected
        }
        #expect(screen.lines.count == height)
      }
    }

    @Test("A resize with the context menu open redraws the list and the menu")
    func resizeInsideAMenu() throws {
      let sandbox = try Sandbox()
      try sandbox.file("notes.txt", "notes")
      try sandbox.file("other.txt", "other")
      let term = try TmuxTerminal(sandbox, width: 100, height: 30)
      try term.wait(forAll: ["notes.txt", "2 items"])
      try term.send("m")
      try term.wait(for: "┌─ notes.txt")

      let fresh = try TmuxTerminal(sandbox, name: "fresh", width: 60, height: 20)
      try fresh.wait(forAll: ["notes.txt", "2 items"])
      try fresh.send("m")
      let expected = try fresh.wait(until: "the menu's last entry") { $0.boxEntries(titled: "notes.txt").contains { $0.hasPrefix("Delete") } }
      fresh.kill()

      try term.resize(width: 60, height: 20)
      try term.wait(until: "the 60x20 redraw equal to a fresh start's:\n\(expected.framed)") { $0 == expected }
      // The menu still works after the resize.
      try term.send("Escape", "q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("Tiny sizes with the rename prompt open: no crash, and back at 100x30 it is all there")
    func tinySizesInsideAPrompt() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Docs/inner.txt")
      try sandbox.file("notes.txt", "notes")
      let term = try TmuxTerminal(sandbox)
      try term.wait(forAll: ["notes.txt", "2 items"])
      try term.send("j", "r")
      try term.wait(for: "┌─ Rename")
      let pid = try term.folioPID()

      for (width, height) in [(40, 12), (20, 6), (10, 3), (2, 2), (1, 1), (30, 8)] {
        try term.resize(width: width, height: height)
        try term.wait(until: "a \(width)x\(height) pane") { $0.lines.count == height }
        #expect(kill(pid, 0) == 0, "folio is still running at \(width)x\(height)")
      }

      let fresh = try TmuxTerminal(sandbox, name: "fresh")
      try fresh.wait(forAll: ["notes.txt", "2 items"])
      try fresh.send("j", "r")
      let expected = try fresh.wait(for: "┌─ Rename")
      fresh.kill()
      try term.resize(width: 100, height: 30)
      try term.wait(until: "the prompt redrawn as a fresh start draws it:\n\(expected.framed)") { $0 == expected }
      // The prompt still edits.
      try term.send("C-u")
      try term.type("renamed.txt")
      try term.send("Enter")
      try TmuxTerminal.eventually("the rename on disk") { sandbox.contents("renamed.txt") == "notes" }
    }

    @Test("80x24 shows the tabs, the sidebar, the list with its columns and the status line")
    func everythingFitsAt80x24() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Docs/inner.txt")
      try sandbox.file("notes.txt", "notes")
      for i in 1...30 { try sandbox.file(String(format: "file-%02d.txt", i)) }
      let term = try TmuxTerminal(sandbox, width: 80, height: 24)
      var screen = try term.wait(forAll: ["file-19.txt", "32 items"])
      #expect(screen.lines.count == 24)
      #expect(screen.lines[0].contains("1 Browse") && screen.lines[0].contains("2 Recents"), "\(screen.framed)")
      #expect(screen.lines[0].contains("name ↑"), "the sort order")
      for text in ["Locations", "This Computer", "Recently Deleted", "Name", "Size", "Modified", "Docs/", "file-01.txt"] {
        #expect(screen.contains(text), "\(text) is visible:\n\(screen.framed)")
      }
      #expect(screen.lines[1].contains(sandbox.work), "the path bar")
      #expect(screen.lines[23].contains("32 items") && screen.lines[23].contains("? help"), "the status line")
      // The list fills the rows between the header and the status line.
      #expect(screen.lines[22].contains("file-19.txt"), "\(screen.framed)")

      // The context menu fits whole.
      try term.send("m")
      screen = try term.wait(until: "the whole menu") { $0.boxEntries(titled: "Docs").contains { $0.hasPrefix("Delete") } }
      let entries = screen.boxEntries(titled: "Docs").map { $0.split(separator: " ").first.map(String.init) ?? "" }
      for entry in ["Open", "Info", "Rename…", "Move", "Tags…", "Favorite", "Delete"] {
        #expect(entries.contains(entry), "the menu lists \(entry): \(entries)")
      }
      // The help fits and scrolls.
      try term.send("Escape", "?")
      screen = try term.wait(for: "┌─ Keys")
      #expect(screen.contains("Move up") && screen.contains("scroll"), "\(screen.framed)")
      try term.send("j", times: 140)
      // At the end: the last keys, then the legend of the badges (the list grows with the
      // commands; the legend's last row is fixed).
      screen = try term.wait(forAll: ["Suspend to the shell", "Badges (ASCII form)", "Marked (space)"])
      #expect(screen.contains("┌─ Keys") && screen.lines[23].contains("32 items"), "\(screen.framed)")
      try term.send("Escape", "q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    /// Printable ASCII is copied into ncurses a run at a time (`ASCIIRun`): each cell must keep
    /// its own colors at the run's edges, and a frame drawn over the last one must leave exactly
    /// what a full draw leaves.
    @Test("Down then Up leaves every cell's character and colors as the first frame drew them")
    func runsKeepEveryCellsStyle() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Docs/inner.txt")
      for name in ["alpha.txt", "beta.txt", "gamma.txt"] { try sandbox.file(name, name) }
      let term = try TmuxTerminal(sandbox, width: 100, height: 30)
      try term.wait(forAll: ["gamma.txt", "1/4 items"])
      // Settled: two captures a poll apart agree, colors included (the launch's frame comes first).
      var previous: StyledScreen?
      try term.wait(until: "a settled frame") { _ in
        let now = try term.captureCells()
        defer { previous = now }
        return now == previous
      }
      let first = try #require(previous)
      // The selected row (Docs) is drawn in other colors than the row under it, cell for cell
      // where both show a name.
      let docsRow = try #require(first.rows.firstIndex { String($0.map(\.character)).contains("Docs/") })
      let selected = first.visible[docsRow]
      let below = first.visible[docsRow + 1]
      #expect(Set(selected.map(\.background)) != Set(below.map(\.background)), "the selection has its own background")
      try term.send("Down")
      try term.wait(until: "the cursor on alpha.txt") { _ in try term.captureCells() != first }
      try term.send("Up")
      let last = try term.wait(until: "the first frame again") { _ in try term.captureCells() == first }
      #expect(last.contains("Docs/"))
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("TERM=vt100 (no colors) works: text visible, keys work, the terminal is restored")
    func vt100() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Docs/inner.txt")
      try sandbox.file("notes.txt")
      let term = try TmuxTerminal(sandbox, width: 80, height: 24, term: "vt100")
      try term.wait(forAll: ["Browse", "Recents", "Docs/", "notes.txt", "2 items"])
      let styles = try term.captureCells().styles
      #expect(styles.allSatisfy { $0.foreground == "default" && $0.background == "default" }, "no colors on a vt100: \(styles)")
      #expect(styles.contains { $0.reverse }, "the selection is in reverse video")
      try term.send("Enter")
      try term.wait(forAll: ["inner.txt", "\(sandbox.work)/Docs"])
      try term.send("m")
      try term.wait(for: "┌─ inner.txt")
      try term.send("Escape", "q")
      // A vt100 has no alternate screen to leave: q clears the screen instead, so neither the last
      // frame nor its status line is left under the shell's next line; the modes are back.
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test(
      "A terminal the browser cannot drive is refused in one line, before anything is drawn",
      arguments: [
        ("dumb", [String](), "TERM=dumb cannot move the cursor"),
        ("dumb", ["demo"], "TERM=dumb cannot move the cursor"),
        ("no-such-terminal-42", [], "\"no-such-terminal-42\" is unknown here"),
        ("", [], "TERM is not set"),
      ])
    func unusableTerminal(_ type: String, _ arguments: [String], _ message: String) throws {
      let sandbox = try Sandbox()
      try sandbox.file("notes.txt")
      // Wide enough for the message on one row.
      let term = try TmuxTerminal(sandbox, width: 220, height: 10, term: type, arguments: arguments)
      let screen = try term.wait(for: "EXITED 1")
      #expect(screen.nonEmptyLines.count == 2, "one line, then the shell's:\n\(screen.framed)")
      #expect(screen.nonEmptyLines.first?.hasPrefix("folio: ") == true, "\(screen.framed)")
      #expect(screen.contains(message), "\(screen.framed)")
      #expect(type.isEmpty || screen.contains("TERM=xterm-256color"), "says which TERM would work:\n\(screen.framed)")
      #expect(!screen.contains("loading"), "no UI was started")
      #expect(try term.format("#{alternate_on}") == "0")
      #expect(try term.format("#{cursor_flag}") == "1")
      let before = try String(contentsOfFile: term.sttyBeforeFile, encoding: .utf8)
      let after = try String(contentsOfFile: term.sttyAfterFile, encoding: .utf8)
      #expect(!before.isEmpty && before == after, "the terminal modes (stty -g) are unchanged")
    }

    @Test("Symbolic links show where they point, a link to a folder with its slash; a long path keeps its end")
    func linksAndLongPaths() throws {
      let sandbox = try Sandbox()
      let deep = "clients/acme-corporation/2026/quarterly-review/Projects/alpha"
      try sandbox.file(deep + "/report.txt")
      try sandbox.file("Docs/inner.txt")
      try sandbox.file("notes.txt")
      try FileManager.default.createSymbolicLink(atPath: sandbox.work + "/docs-link", withDestinationPath: "Docs")
      try FileManager.default.createSymbolicLink(atPath: sandbox.work + "/notes-link", withDestinationPath: "notes.txt")
      try FileManager.default.createSymbolicLink(atPath: sandbox.work + "/dangling", withDestinationPath: "gone.txt")
      let term = try TmuxTerminal(sandbox, width: 80, height: 24, arguments: [sandbox.work + "/" + deep])
      var screen = try term.wait(for: "report.txt")
      #expect(
        screen.lines[1].contains("…/") && screen.lines[1].hasSuffix("/Projects/alpha"),
        "the path bar keeps the folder's name:\n\(screen.framed)")
      try term.send("BSpace", times: 6)
      screen = try term.wait(forAll: ["docs-link/ → Docs", "notes-link@ → notes.txt", "dangling@ → gone.txt"])
      #expect(!screen.contains("notes.txt@"), "\(screen.framed)")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("NO_COLOR=1: no colors at all, the selection still visible, everything works")
    func noColor() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Docs/inner.txt")
      try sandbox.file("notes.txt")
      let term = try TmuxTerminal(sandbox, environment: ["NO_COLOR": "1"])
      try term.wait(forAll: ["Browse", "Docs/", "notes.txt", "2 items"])
      let styles = try term.captureCells().styles
      #expect(styles.allSatisfy { $0.foreground == "default" && $0.background == "default" }, "no colors: \(styles)")
      #expect(styles.contains { $0.reverse }, "the selection is drawn in reverse video")
      try term.send("t")
      try term.wait(for: "● Red")
      try term.send("Escape", "q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("Hostile names are shown escaped and leave the screen, the title and the colors alone")
    func hostileNames() throws {
      let sandbox = try Sandbox()
      let names: [([UInt8], String)] = [
        (Array("evil\u{1B}[31mRED\u{1B}[0m.txt".utf8), #"evil\e[31mRED\e[0m.txt"#),
        (Array("clear\u{1B}[2J\u{1B}[Hx".utf8), #"clear\e[2J\e[Hx"#),
        (Array("title\u{1B}]0;pwned\u{07}.txt".utf8), #"title\e]0;pwned\x07.txt"#),
        (Array("bad".utf8) + [0xFF, 0xFE] + Array(".txt".utf8), #"bad\xFF\xFE.txt"#),
        (Array("c1".utf8) + [0x9B] + Array("31m.txt".utf8), #"c1\x9B31m.txt"#),
        (Array("c1u\u{9B}2J.txt".utf8), #"c1u\u{9B}2J.txt"#),
        (Array("bidi\u{202E}txt.exe".utf8), #"bidi\u{202E}txt.exe"#),
        (Array("line\nbreak.txt".utf8), #"line\nbreak.txt"#),
        (Array("tab\there.txt".utf8), #"tab\there.txt"#),
        (Array("back\\slash.txt".utf8), #"back\\slash.txt"#),
      ]
      for (bytes, _) in names { try sandbox.file(bytes: bytes) }
      try sandbox.file("zz-plain.txt")
      let term = try TmuxTerminal(sandbox)
      let screen = try term.wait(forAll: names.map(\.1) + ["zz-plain.txt", "11 items"])
      #expect(screen.lines.count == 30)
      #expect(screen.lines[0].contains("1 Browse"))
      #expect(screen.lines[29].contains("11 items") && screen.lines[29].contains("? help"), "\(screen.framed)")
      // The sidebar's divider is unbroken: nothing moved the cursor or cleared part of the screen.
      #expect(screen.rowsWithBrokenDivider.isEmpty, "the sidebar divider is broken:\n\(screen.framed)")
      #expect(try term.format("#{pane_title}") != "pwned", "an OSC in a name did not set the title")
      // No name turned text red: the only colors are the theme's (256-color) ones.
      let styles = try term.captureCells().styles
      #expect(!styles.contains { $0.foreground == "31" || $0.background == "31" }, "no SGR 31 from a name: \(styles)")

      // Acting on one works (Info shows the escaped name too).
      try term.send("i")
      try term.wait(for: "┌─ Info")
      try term.send("Escape", "q")
      try term.expectTerminalRestored(exitStatus: 0)
    }
  }
}

extension TerminalEndToEndTests {
  @Suite("Job control")
  struct JobControl {
    @Test("Ctrl-Z gives the shell its screen back; fg redraws the whole UI")
    func suspendAndResume() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Docs/inner.txt")
      try sandbox.file("notes.txt")
      let term = try TmuxTerminal(sandbox, interactiveShell: true)
      try term.wait(for: "$")
      try term.type(shellQuote(try FolioBinary.path()) + "; echo EXITED $?")
      try term.send("Enter")
      try term.wait(until: "Browse with notes.txt") { $0.listShows("notes.txt") && $0.contains("2 items") }
      // The cursor on notes.txt, so the redraw has a selection to restore. The selection is only
      // a style: wait for the styled screen to change before taking the pictures to compare.
      let unselected = try term.captureCells()
      try term.send("j")
      var cellsBefore = unselected
      // The row of notes.txt changes style (selected), nothing else would change it.
      let row = try #require(term.capture().lines.firstIndex { $0.contains("notes.txt") })
      try TmuxTerminal.eventually("the selection on notes.txt") {
        cellsBefore = try term.captureCells()
        return cellsBefore.visible[row] != unselected.visible[row]
      }
      let before = try term.capture()

      try term.send("C-z")
      var screen = try term.wait(for: "Stopped")
      #expect(try term.format("#{alternate_on}") == "0", "the shell has the normal screen:\n\(screen.framed)")
      #expect(!screen.contains("Browse"))

      try term.type("fg")
      try term.send("Enter")
      screen = try term.wait(until: "the same UI as before the suspension:\n\(before.framed)") { $0 == before }
      #expect(try term.format("#{alternate_on}") == "1")
      try TmuxTerminal.eventually("the same colors and selection as before") { try term.captureCells().visible == cellsBefore.visible }

      // Still answering keys, and q still restores the terminal.
      try term.send("k", "Enter")
      try term.wait(for: "inner.txt")
      try term.send("q")
      screen = try term.wait(until: "the prompt after fg") { $0.lines.last { !$0.isEmpty } == "$" }
      #expect(try term.format("#{alternate_on}") == "0")
      #expect(try term.format("#{cursor_flag}") == "1")
    }

    @Test("Esc and Ctrl-Z sent at once are two keys: the menu closes and Folio is suspended")
    func escapeThenSuspend() throws {
      let sandbox = try Sandbox()
      try sandbox.file("notes.txt")
      let term = try TmuxTerminal(sandbox, interactiveShell: true)
      try term.wait(for: "$")
      try term.type(shellQuote(try FolioBinary.path()) + "; echo EXITED $?")
      try term.send("Enter")
      try term.wait(until: "Browse with notes.txt") { $0.listShows("notes.txt") && $0.contains("1 item") }
      try term.send("m")
      try term.wait(for: "┌─ notes.txt")
      // One send-keys: both bytes reach Folio in the same read, as a paste or a fast typist sends them.
      try term.send("Escape", "C-z")
      let screen = try term.wait(for: "Stopped")
      #expect(try term.format("#{alternate_on}") == "0", "the shell has the normal screen:\n\(screen.framed)")
      // The keys typed now are the shell's, not commands of Folio's.
      try term.type("fg")
      try term.send("Enter")
      try term.wait(until: "the UI back, the menu closed") { $0.listShows("notes.txt") && !$0.contains("┌─ notes.txt") }
      try term.send("q")
      try term.wait(until: "the prompt after q") { $0.lines.last { !$0.isEmpty } == "$" }
      #expect(try term.format("#{alternate_on}") == "0")
    }
  }
}
