import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

extension TerminalEndToEndTests {
  /// The preview pane in a real terminal: what it shows, that nothing in a file reaches the
  /// terminal raw, that no file can hold the keys, and its keys.
  @Suite("Preview pane")
  struct PreviewPane {
    @Test("From 120 columns the pane shows the item under the cursor: a folder's entries, a file's text")
    func thePaneFollowsTheCursor() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Docs/inside-the-folder.txt", "x")
      try sandbox.file("notes.md", "# Preview heading\n\nhello from the preview pane\n")
      try sandbox.file("zz-data.json", "{\"name\":\"folio\",\"list\":[1,2,3]}")
      let term = try TmuxTerminal(sandbox, width: 140, height: 32)
      // The cursor starts on Docs/: its entries are in the pane.
      try term.wait(forAll: ["Docs/", "notes.md", "inside-the-folder.txt"])
      try term.send("j")
      try term.wait(forAll: ["hello from the preview pane", "Preview heading"])
      // Minified JSON comes out one key a line.
      try term.send("G")
      let screen = try term.wait(until: "the JSON pretty-printed") { s in
        s.lines.contains { $0.contains("\"name\"") && $0.contains("\"folio\"") } && !s.contains("{\"name\":\"folio\",\"list\"")
      }
      #expect(!screen.contains("hello from the preview pane"), "\(screen.framed)")
      // v hides the pane; v shows it again.
      try term.send("v")
      try term.wait(until: "the pane hidden") { !$0.contains("\"folio\"") }
      try term.send("v")
      try term.wait(for: "\"folio\"")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("At 80x24 the pane waits for v; V reads the file full screen, j scrolls, Esc returns")
    func fullScreenReading() throws {
      let sandbox = try Sandbox()
      try sandbox.file("long.txt", (1...300).map { "line number \($0)" }.joined(separator: "\n"))
      let term = try TmuxTerminal(sandbox, width: 80, height: 24)
      try term.wait(forAll: ["long.txt", "1 item"])
      #expect(!(try term.capture()).contains("line number 1"))
      try term.send("V")
      try term.wait(forAll: ["line number 1", "line number 20", "of 300"])
      try term.send("j", "j", "j")
      let scrolled = try term.wait(until: "three lines down") { $0.contains("lines 4-") }
      #expect(!scrolled.contains("line number 3 "), "\(scrolled.framed)")
      try term.send("G")
      try term.wait(for: "line number 300")
      try term.send("Escape")
      try term.wait(until: "the list and the pane") { $0.contains("long.txt") && $0.contains("│") && !$0.contains("of 300") }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("A file of escape sequences is shown as text: no title, no clipboard, no cleared screen")
    func hostileContentStaysText() throws {
      let sandbox = try Sandbox()
      // OSC 0 (title), OSC 52 (clipboard), CSI 2J, an 8-bit CSI, a DCS, a bidi override.
      let evil = "before\u{1B}]0;PWNED-TITLE\u{07} \u{1B}]52;c;ZWNobyBwd25lZA==\u{07} \u{1B}[2J \u{9B}31m \u{1B}P$q m\u{1B}\\ \u{202E}txt.exe after\n"
      try sandbox.file("evil.sh", evil)
      let term = try TmuxTerminal(sandbox, width: 140, height: 30)
      let titleBefore = try term.format("#{pane_title}")
      let screen = try term.wait(forAll: ["evil.sh", "before", "after"])
      #expect(try term.format("#{pane_title}") == titleBefore, "the title was changed")
      #expect(!screen.contains("PWNED") || screen.lines.contains { $0.contains("PWNED-TITLE") }, "\(screen.framed)")
      // The file's escapes are drawn as visible text, and the screen around them is intact.
      #expect(screen.contains("evil.sh") && screen.rowsWithBrokenDivider.isEmpty, "\(screen.framed)")
      let buffers = try term.tmux(["list-buffers"], check: false)
      #expect(!buffers.contains("pwned"), "OSC 52 reached tmux's clipboard: \(buffers)")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("A FIFO and a 2 GiB file in the folder: the keys keep working, neither is read whole")
    func specialAndHugeFiles() throws {
      let sandbox = try Sandbox()
      #expect(mkfifo(sandbox.path("a-pipe"), 0o644) == 0)
      // Text over its first 64 KiB, then a hole to 2 GiB.
      let text = "first line of a huge file\n" + String(repeating: "more of the log, line after line\n", count: 2_500)
      let big = try sandbox.file("b-huge.log", text)
      #expect(truncate(big, 2 << 30) == 0)
      try sandbox.file("c-small.txt", "small file text")
      let term = try TmuxTerminal(sandbox, width: 140, height: 30)
      try term.wait(forAll: ["a-pipe", "FIFO"])
      try term.send("j")
      try term.wait(forAll: ["first line of a huge file", "first 64 KiB"])
      try term.send("j")
      try term.wait(for: "small file text")
      // Back over the FIFO and down again: nothing waits on it.
      try term.send("g", "g")
      try term.wait(for: "FIFO")
      try term.send("j", "j")
      try term.wait(for: "small file text")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("A resize with the pane open redraws it; under 120 columns it goes, back at 140 it returns")
    func resizeWithThePane() throws {
      let sandbox = try Sandbox()
      try sandbox.file("readme.txt", "words in the pane")
      let term = try TmuxTerminal(sandbox, width: 140, height: 30)
      try term.wait(for: "words in the pane")
      try term.resize(width: 100, height: 30)
      try term.wait(until: "no pane at 100 columns") { !$0.contains("words in the pane") && $0.contains("readme.txt") }
      try term.resize(width: 200, height: 50)
      try term.wait(for: "words in the pane")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("A [[previewer]] that hangs is killed with its whole group when the cursor moves on")
    func aHangingPreviewerIsKilled() throws {
      let sandbox = try Sandbox()
      try FileManager.default.createDirectory(atPath: sandbox.configHome + "/folio", withIntermediateDirectories: true)
      // It ignores SIGTERM and leaves a grandchild: only the group's SIGKILL ends both.
      try """
      [[previewer]]
      extensions = ["slow"]
      command = ["/bin/sh", "-c", "trap '' TERM; sleep 4987 & sleep 4986; wait", "{path}"]

      """.write(toFile: sandbox.configHome + "/folio/config.toml", atomically: true, encoding: .utf8)
      try sandbox.file("a.slow", "never shown")
      try sandbox.file("b.txt", "the next file")
      let term = try TmuxTerminal(sandbox, width: 140, height: 30)
      // Looked for from the start: the preview begins with the first screen, and its 2 s deadline
      // could end it while a loaded machine is still drawing that screen for the test.
      try TmuxTerminal.eventually("the previewer and its grandchild running") {
        Self.processes(withArgument: "4987") > 0 && Self.processes(withArgument: "4986") > 0
      }
      try term.wait(forAll: ["a.slow", "b.txt"])
      try term.send("j")
      try term.wait(for: "the next file")
      try TmuxTerminal.eventually("the previewer's whole group gone") {
        Self.processes(withArgument: "4987") == 0 && Self.processes(withArgument: "4986") == 0
      }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    /// Live processes (zombies left out) with `argument` among their arguments.
    static func processes(withArgument argument: String) -> Int {
      let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
      return entries.filter { pid in
        guard Int(pid) != nil,
          let cmdline = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline"), !cmdline.isEmpty,
          let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          !status.contains("State:\tZ")
        else { return false }
        return cmdline.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == argument }
      }.count
    }
  }
}
