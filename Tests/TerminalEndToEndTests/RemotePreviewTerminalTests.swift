import Foundation
import Testing

@testable import TestSupport

extension TerminalEndToEndTests {
  /// Issue 12's remote preview in a real terminal, against the real `folio serve`.
  @Suite("Remote preview")
  struct RemotePreview {
    /// A text file put on the server by the other computer and never opened here: the cursor on
    /// it shows its first line in the pane, read with one ranged request (the server answered
    /// 206, never the whole 200), and its row keeps the not-downloaded badge; no content is
    /// cached here. Opening it then downloads it, and the badge goes.
    @Test("A remote file not downloaded: the pane shows its first line from a ranged read, and its row keeps ☁")
    func aRemoteFileIsPreviewedWithoutDownloadingIt() async throws {
      let world = try await RemoteWorld()
      try world.put("a-first.txt", "the first file\n")
      // Over 64 KiB: the pane reads its first 64 KiB, never the rest.
      let text = "first line of the remote notes\n" + String(repeating: "one more line of the notes, to be long\n", count: 3000)
      try world.put("notes.txt", text)
      let term = try TmuxTerminal(
        world.sandbox, width: 140, height: 32, environment: ["EDITOR": "/bin/true"], arguments: ["work:/"])
      try term.wait(forAll: ["a-first.txt", "notes.txt", "work (online)", "the first file"])
      try term.send("j")
      let screen = try term.wait(until: "notes.txt's first line in the pane") { $0.contains("first line of the remote notes") }
      #expect(screen.listRows.contains { $0.contains("☁ notes.txt") }, "\(screen.framed)")
      #expect(screen.contains("first 64 KiB"), "\(screen.framed)")

      // The server's own log: the content was asked for in ranges (206), never whole (200).
      let log = world.server.log
      #expect(log.contains("/content 206") && !log.contains("/content 200"), "\(log)")
      // Nothing of it is kept here, and the badge still says so.
      let cached = FileManager.default.subpaths(atPath: world.sandbox.cacheHome + "/folio/content") ?? []
      #expect(cached.allSatisfy { $0.utf8.count < 60 }, "a cached content file: \(cached)")
      try term.send("k")
      let back = try term.wait(until: "back on a-first.txt") { $0.contains("the first file") }
      #expect(back.listRows.contains { $0.contains("☁ notes.txt") }, "\(back.framed)")
      // Opened, it is downloaded: the same row loses the badge (what the checks above would see).
      try term.send("j", "Enter")
      try term.wait(until: "notes.txt downloaded, its badge gone") {
        $0.listShows("notes.txt") && !$0.listRows.contains { $0.contains("☁ notes.txt") }
      }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }
  }
}
