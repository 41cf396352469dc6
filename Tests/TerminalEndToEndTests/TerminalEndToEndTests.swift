import Foundation
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// End-to-end tests of the real `folio` binary in tmux: keys go in with `send-keys`, the screen
/// comes back with `capture-pane`, and the effects are checked on the disk, in the xattrs and in
/// the Trash with the tools a person would use (getfattr, trash-list).
///
/// The tests run one at a time: each starts a full-screen program, and on a two-core machine
/// running them all at once would only make every wait longer.
@Suite("folio in tmux", .serialized, .offThePool)
struct TerminalEndToEndTests {}

extension TmuxTerminal {
  /// Opens the context menu (`m`) on the selected item, whose name is the menu's title, and
  /// chooses `entry` by moving down to it and pressing Enter.
  func choose(_ entry: String, inMenuOf title: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    try send("m")
    let screen = try wait(until: "the menu of \(title) listing \(entry)", sourceLocation: sourceLocation) {
      $0.boxEntries(titled: title).contains { $0.hasPrefix(entry) }
    }
    let entries = screen.boxEntries(titled: title)
    let index = try #require(entries.firstIndex { $0.hasPrefix(entry) }, sourceLocation: sourceLocation)
    try send("j", times: index)
    try send("Enter")
  }
}

extension TerminalEndToEndTests {
  @Suite("Browse")
  struct Browse {
    @Test("Enter goes into a folder, Backspace back, and the cursor comes back to the folder")
    func navigateIntoAFolderAndBack() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Docs/inner.txt", "inside")
      try sandbox.file("Photos/photo.png", "png")
      try sandbox.file("notes.txt", "notes")
      let term = try TmuxTerminal(sandbox)
      var screen = try term.wait(forAll: ["Docs/", "Photos/", "notes.txt", "3 items"])
      #expect(screen.lines[1].hasSuffix(sandbox.work), "the path bar shows the folder:\n\(screen.framed)")

      try term.send("Enter")  // the cursor starts on the first row: Docs/ (folders first)
      screen = try term.wait(forAll: ["inner.txt", "\(sandbox.work)/Docs"])
      #expect(!screen.contains("notes.txt"))

      try term.send("BSpace")
      screen = try term.wait(until: "the parent folder again") {
        $0.contains("notes.txt") && !$0.contains("inner.txt") && $0.lines[1].hasSuffix(sandbox.work)
      }

      try term.send("j", "Enter")
      try term.wait(forAll: ["photo.png", "\(sandbox.work)/Photos"])
      try term.send("h")
      try term.wait(until: "the parent folder again") { $0.contains("notes.txt") && !$0.contains("photo.png") }
      // Returning to a folder restores the cursor: Enter opens Photos again, not Docs.
      try term.send("Enter")
      screen = try term.wait(until: "a subfolder") { $0.contains("photo.png") || $0.contains("inner.txt") }
      #expect(screen.contains("photo.png"), "the cursor was back on Photos/:\n\(screen.framed)")
    }

    @Test("Enter on a link to a folder goes into it, as ranger and nnn do")
    func enterALinkToAFolder() throws {
      let sandbox = try Sandbox()
      try sandbox.file("real/inner.txt", "inside")
      #expect(symlink("real", sandbox.path("link")) == 0)
      let term = try TmuxTerminal(sandbox)
      try term.wait(forAll: ["real/", "link", "2 items"])
      try term.send("j", "Enter")
      let screen = try term.wait(until: "inside the link") { $0.listShows("inner.txt") && $0.lines[1].contains("/link") }
      #expect(screen.contains("1 item"), "\(screen.framed)")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("Enter on a file runs $EDITOR with its path, and Recents then lists it")
    func openAFileThenRecentsShowsIt() throws {
      let sandbox = try Sandbox()
      try sandbox.file("Reports/summary.txt", "numbers")
      try sandbox.file("notes.txt", "hello")
      let argvFile = sandbox.harness + "/editor-argv"
      let editor = try sandbox.script(
        at: sandbox.harness + "/editor",
        // Written aside and renamed, so the file is complete whenever the test sees it.
        "for a in \"$@\"; do printf '%s\\n' \"$a\"; done > '\(argvFile).tmp' && mv '\(argvFile).tmp' '\(argvFile)'\n")
      let term = try TmuxTerminal(sandbox, environment: ["EDITOR": editor])
      try term.wait(forAll: ["Reports/", "notes.txt"])

      try term.send("j", "Enter")
      try TmuxTerminal.eventually("the editor to run") { FileManager.default.fileExists(atPath: argvFile) }
      // The UI comes back after the editor exits.
      try term.wait(until: "the redrawn list") { $0.contains("notes.txt") && $0.contains("Browse") }
      let argv = try String(contentsOfFile: argvFile, encoding: .utf8).split(separator: "\n").map(String.init)
      #expect(argv.last == sandbox.path("notes.txt"), "the editor got the file's path: \(argv)")

      try term.send("Tab")
      let screen = try term.wait(forAll: ["Last opened", "notes.txt"])
      let row = try #require(screen.lines.first { $0.contains("notes.txt") })
      #expect(row.contains("This Computer"), "the row shows the item's location: \(row)")
      #expect(!screen.contains("summary.txt"), "only what was opened is in Recents")
    }
  }

  @Suite("Organize")
  struct Organize {
    @Test("Rename… from the context menu renames the file on disk")
    func renameThroughTheMenu() throws {
      let sandbox = try Sandbox()
      try sandbox.file("notes.txt", "content")
      let term = try TmuxTerminal(sandbox)
      try term.wait(forAll: ["notes.txt", "1 item"])

      try term.choose("Rename…", inMenuOf: "notes.txt")
      try term.wait(for: "┌─ Rename")
      try term.send("C-u")
      try term.type("renamed.txt")
      try term.send("Enter")
      try term.wait(until: "the renamed file in the list") { $0.listShows("renamed.txt") && !$0.listShows("notes.txt") }
      try TmuxTerminal.eventually("the rename on disk") { !sandbox.exists("notes.txt") }
      #expect(sandbox.contents("renamed.txt") == "content")
    }

    @Test("A rename onto a taken name says so and keeps the editor open")
    func renameCollisionKeepsTheEditor() throws {
      let sandbox = try Sandbox()
      try sandbox.file("a.txt", "A")
      try sandbox.file("b.txt", "B")
      let term = try TmuxTerminal(sandbox)
      try term.wait(forAll: ["a.txt", "b.txt"])

      try term.send("r")
      try term.wait(for: "┌─ Rename")
      try term.send("C-u")
      try term.type("b.txt")
      try term.send("Enter")
      let screen = try term.wait(for: "already exists")
      #expect(screen.contains("┌─ Rename"), "the editor stays open:\n\(screen.framed)")
      #expect(sandbox.contents("a.txt") == "A" && sandbox.contents("b.txt") == "B", "nothing was replaced")

      try term.send("C-u")
      try term.type("c.txt")
      try term.send("Enter")
      try term.wait(until: "the editor closed and c.txt listed") {
        $0.listShows("c.txt") && !$0.listShows("a.txt") && !$0.contains("┌─ Rename")
      }
      try TmuxTerminal.eventually("the rename on disk") { sandbox.contents("c.txt") == "A" }
      #expect(!sandbox.exists("a.txt") && sandbox.contents("b.txt") == "B")
    }

    @Test("The tag picker (t, Enter on Red) writes user.xdg.tags")
    func tagWithThePicker() throws {
      let sandbox = try Sandbox()
      try sandbox.file("notes.txt", "content")
      let term = try TmuxTerminal(sandbox)
      try term.wait(forAll: ["notes.txt", "1 item"])

      try term.send("t")
      let picker = try term.wait(until: "the tag picker") { $0.boxEntries(titled: "Tags").first?.hasSuffix("Red") == true }
      #expect(picker.boxEntries(titled: "Tags").first == "[ ] ● Red", "\(picker.framed)")
      try term.send("Enter")
      try term.wait(for: "[x] ● Red")
      try TmuxTerminal.eventually("the tag in the xattr") {
        let out = try sandbox.tool("getfattr", ["--only-values", "-n", "user.xdg.tags", "notes.txt"], package: "attr")
        return out.status == 0 && out.stdout == "Red"
      }
      try term.send("Escape")
      // The row and the sidebar are refreshed by two background reads: either may paint first.
      let screen = try term.wait(until: "the picker closed, the tag's dot on the row and the tag in the sidebar") {
        !$0.contains("┌─ Tags") && $0.listShows("notes.txt ●") && $0.contains("● Red")
      }
      let row = try #require(screen.lines.dropFirst(3).first { $0.contains("notes.txt") })
      #expect(row.contains("notes.txt ●"), "the row shows the tag's dot: \(row)")
      #expect(screen.contains("● Red"), "the sidebar lists the tag:\n\(screen.framed)")
    }

    @Test("A tag added by folio tag in another terminal shows in the sidebar without a key")
    func tagFromAnotherProcess() throws {
      let sandbox = try Sandbox()
      try sandbox.file("notes.txt", "content")
      let term = try TmuxTerminal(sandbox)
      try term.wait(forAll: ["notes.txt", "1 item"])
      #expect(!(try term.capture()).contains("Tags"))

      let tag = try Programs.run(
        try FolioBinary.path(), ["tag", "notes.txt", "--add", "Green"], environment: sandbox.environment, directory: sandbox.work)
      #expect(tag.status == 0, "\(tag.stderr)")
      let screen = try term.wait(until: "the tag in the sidebar") { $0.contains("● Green") }
      #expect(screen.contains("Tags"), "\(screen.framed)")
    }

    @Test("d moves to Recently Deleted (trash-list sees it); Restore from the sidebar puts it back")
    func deleteAndRestore() throws {
      let sandbox = try Sandbox()
      try sandbox.file("keep.txt", "keep")
      try sandbox.file("notes.txt", "precious")
      let term = try TmuxTerminal(sandbox)
      try term.wait(forAll: ["keep.txt", "notes.txt", "2 items"])

      try term.send("j", "d")
      try term.wait(until: "notes.txt gone from the list") { $0.listShows("keep.txt") && !$0.listShows("notes.txt") }
      #expect(!sandbox.exists("notes.txt"))
      try TmuxTerminal.eventually("trash-list to show notes.txt") {
        let out = try sandbox.tool("trash-list", [], package: "trash-cli")
        return out.stdout.contains(sandbox.path("notes.txt"))
      }

      // The sidebar: b focuses it, j past the end stops on its last entry, Recently Deleted.
      try term.send("b")
      try term.send("j", times: 8)
      try term.send("Enter")
      var screen = try term.wait(until: "Recently Deleted listing notes.txt") {
        $0.lines[1].contains("Recently Deleted") && $0.listShows("notes.txt")
      }
      #expect(screen.lines[1].contains("Recently Deleted"), "the path bar names Recently Deleted:\n\(screen.framed)")
      let row = try #require(screen.lines.dropFirst(3).first { $0.contains("notes.txt") })
      // The original folder follows the name (its end, the folder's own name, when cut).
      #expect(
        row.contains("notes.txt  …/work") || row.contains("notes.txt  \(sandbox.work)"),
        "the row shows where it came from: \(row)")

      try term.choose("Restore", inMenuOf: "notes.txt")
      screen = try term.wait(for: "Restored notes.txt")
      try TmuxTerminal.eventually("notes.txt back on disk") { sandbox.contents("notes.txt") == "precious" }
      let out = try sandbox.tool("trash-list", [], package: "trash-cli")
      #expect(!out.stdout.contains("notes.txt"), "the Trash is empty again: \(out.stdout)")
    }
  }
}
