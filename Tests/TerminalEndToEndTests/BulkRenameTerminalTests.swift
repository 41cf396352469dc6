import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Rename in Editor (R) with a scripted `$EDITOR` on real files whose names a shell would
/// misread: spaces, quotes, `$(…)`, a leading dash.
extension TerminalEndToEndTests {
  @Suite("Rename in Editor")
  struct BulkRename {
    /// Three files, each holding its own name's first word, so a rename is seen in the contents.
    static let names = ["-n 'single' \"double\".txt", "a file with spaces.txt", "$(touch pwned) `id`.txt"]

    static func world() throws -> Sandbox {
      let sandbox = try Sandbox()
      for (i, name) in names.enumerated() { try sandbox.file(name, "content \(i)") }
      try sandbox.folder(sandbox.root + "/tmp")
      return sandbox
    }

    /// An editor script: keeps what it was given (the file, its mode and its folder's) in the
    /// harness, then reverses the lines with sed — the first and last names swap, the middle one
    /// stays — and exits with `status`.
    static func editor(_ sandbox: Sandbox, exiting status: Int) throws -> String {
      let h = sandbox.harness
      return try sandbox.script(
        at: h + "/editor",
        """
        cp "$1" '\(h)/received'
        stat -c %a "$1" > '\(h)/mode'
        stat -c %a "$(dirname "$1")" >> '\(h)/mode'
        sed -n '1!G;h;$p' "$1" > "$1.new" && mv "$1.new" "$1"
        touch '\(h)/edited'
        exit \(status)

        """)
    }

    static func received(_ sandbox: Sandbox) throws -> [String] {
      try String(contentsOfFile: sandbox.harness + "/received", encoding: .utf8).split(separator: "\n").map(String.init)
    }

    @Test("R with nothing marked lists the folder for $EDITOR; a swap of hostile names is applied on disk")
    func swapInTheEditor() throws {
      let sandbox = try Self.world()
      let term = try TmuxTerminal(
        sandbox, environment: ["EDITOR": try Self.editor(sandbox, exiting: 0), "TMPDIR": sandbox.root + "/tmp"])
      try term.wait(forAll: ["a file with spaces.txt", "3 items"])

      try term.send("R")
      try term.wait(for: "Renamed 2 items")
      let lines = try Self.received(sandbox)
      #expect(Set(lines) == Set(Self.names), "one name a line, as they are: \(lines)")
      #expect(
        try String(contentsOfFile: sandbox.harness + "/mode", encoding: .utf8) == "600\n700\n",
        "a private file in a private folder")

      // The first and last lines swapped: each name now holds the other's content.
      let content = Dictionary(uniqueKeysWithValues: Self.names.enumerated().map { ($0.element, "content \($0.offset)") })
      #expect(sandbox.contents(lines[0]) == content[lines[2]])
      #expect(sandbox.contents(lines[2]) == content[lines[0]])
      #expect(sandbox.contents(lines[1]) == content[lines[1]])
      #expect(!sandbox.exists("pwned"), "no name ever reached a shell")
      let work = try FileManager.default.contentsOfDirectory(atPath: sandbox.work)
      #expect(Set(work) == Set(Self.names), "no temporary name is left: \(work)")
      try TmuxTerminal.eventually("the private folder removed") {
        try FileManager.default.contentsOfDirectory(atPath: sandbox.root + "/tmp").isEmpty
      }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("An editor that exits 1 renames nothing, and says so")
    func failingEditorRenamesNothing() throws {
      let sandbox = try Self.world()
      let term = try TmuxTerminal(
        sandbox, environment: ["EDITOR": try Self.editor(sandbox, exiting: 1), "TMPDIR": sandbox.root + "/tmp"])
      try term.wait(forAll: ["a file with spaces.txt", "3 items"])

      try term.send("R")
      try term.wait(for: "exited with status 1: nothing was renamed")
      #expect(FileManager.default.fileExists(atPath: sandbox.harness + "/edited"), "the editor did change the file")
      for (i, name) in Self.names.enumerated() { #expect(sandbox.contents(name) == "content \(i)") }
      #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.root + "/tmp").isEmpty)
    }

    @Test("The marked items only; a line taking an unmarked item's name refuses the batch and names the clash")
    func clashWithAnUnmarkedItem() throws {
      let sandbox = try Sandbox()
      for name in ["a.txt", "b.txt", "c.txt"] { try sandbox.file(name, name) }
      let editor = try sandbox.script(
        at: sandbox.harness + "/editor",
        """
        cp "$1" '\(sandbox.harness)/received'
        printf 'c.txt\\nb2.txt\\n' > "$1"

        """)
      let term = try TmuxTerminal(sandbox, environment: ["EDITOR": editor])
      try term.wait(forAll: ["c.txt", "3 items"])
      try term.send("Space", "Space", "R")  // marks a.txt and b.txt
      try term.wait(for: "“c.txt” (line 1) is the name of another item")
      #expect(try Self.received(sandbox) == ["a.txt", "b.txt"])
      for name in ["a.txt", "b.txt", "c.txt"] { #expect(sandbox.contents(name) == name) }
      #expect(!sandbox.exists("b2.txt"), "the whole batch was refused")
    }
  }
}
