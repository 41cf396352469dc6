import Foundation
import Testing

@testable import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

extension TerminalEndToEndTests {
  /// Issue 13 §5 in the browser, against a real `folio serve`.
  @Suite("Rough edges")
  struct Edges {
    @Test("A remote file opened in $EDITOR has its real name; an editor that saves by renaming is uploaded")
    func renameSavingEditorOnARemoteFile() async throws {
      let world = try await RemoteWorld()
      try world.put("notes.txt", "first line\n")
      let argvFile = world.sandbox.harness + "/editor-argv"
      // vim with backupcopy=no: a new file beside it, renamed over the old one.
      let editor = try world.sandbox.script(
        at: world.sandbox.harness + "/editor",
        """
        printf '%s\\n' "$@" > '\(argvFile)'
        for last; do :; done
        printf 'saved by rename\\n' > "$last.new"
        mv -f "$last.new" "$last"

        """)
      let term = try TmuxTerminal(world.sandbox, environment: ["EDITOR": editor], arguments: ["work:/"])
      try term.wait(forAll: ["notes.txt", "work (online)"])
      try term.send("Enter")
      try TmuxTerminal.eventually("the server has the bytes the editor saved by renaming") {
        try world.serverText("work:/notes.txt") == "saved by rename\n"
      }
      let argv = try String(contentsOfFile: argvFile, encoding: .utf8).split(separator: "\n").map(String.init)
      let opened = try #require(argv.last)
      #expect(opened.hasPrefix(world.sandbox.cacheHome + "/folio/content/"), "\(opened)")
      #expect(opened.hasSuffix("/notes.txt"), "the editor gets the file's own name: \(opened)")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("A server folder lists in natural, case-insensitive order, as a local one")
    func serverFolderSortsNaturally() async throws {
      let world = try await RemoteWorld()
      for name in ["file10.txt", "File2.txt", "file1.txt"] { try world.put(name, name) }
      let term = try TmuxTerminal(world.sandbox, arguments: ["work:/"])
      let screen = try term.wait(forAll: ["file1.txt", "File2.txt", "file10.txt", "work (online)"])
      let rows = ["file1.txt", "File2.txt", "file10.txt"].map { screen.row(containing: $0) ?? -1 }
      #expect(rows[0] < rows[1] && rows[1] < rows[2], "\(rows)\n\(screen.framed)")
      // W: the session's messages, whole.
      try term.send("W")
      try term.wait(for: "Messages")
      try term.send("q")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }
  }
}
