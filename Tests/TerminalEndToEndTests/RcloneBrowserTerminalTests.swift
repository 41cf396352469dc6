import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

extension TerminalEndToEndTests {
  /// Issue 14 as a person meets it: an rclone remote (rclone's local backend: a plain folder R
  /// is a remote) added with `folio domain add rc --rclone R`, browsed, opened, edited, renamed
  /// and tagged in the browser, served by the shipped folio-rclone.
  @Suite("folio-rclone in the browser")
  struct RcloneBrowser {
    static let extensions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("Extensions").path

    /// A sandbox with R = {a.txt "one\n", Docs/b.txt} added as the location `rc`.
    struct World {
      let sandbox: Sandbox
      let remote: String
      /// The sandbox's environment with Extensions/ first on PATH (an installed folio finds
      /// folio-rclone beside itself).
      let environment: [String: String]

      init() throws {
        sandbox = try Sandbox()
        remote = sandbox.root + "/R"
        try sandbox.file(remote + "/a.txt", "one\n")
        try sandbox.file(remote + "/Docs/b.txt", "bee\n")
        var env = sandbox.environment
        env["PATH"] = RcloneBrowser.extensions + ":" + env["PATH"]!
        environment = env
        let added = try folio(["domain", "add", "rc", "--rclone", remote])
        try #require(added.status == 0, "\(added.stderr)")
      }

      /// Runs the built `folio` (another terminal beside the browser).
      func folio(_ arguments: [String]) throws -> ProgramOutput {
        try Programs.run(try FolioBinary.path(), arguments, environment: environment, directory: sandbox.harness)
      }

      func remoteText(_ name: String) -> String? {
        FileManager.default.contents(atPath: remote + "/" + name).map { String(decoding: $0, as: UTF8.self) }
      }

      var remoteNames: [String] { (try? FileManager.default.contentsOfDirectory(atPath: remote)) ?? [] }

      /// An $EDITOR that appends "two\n" to its file; when `harness/theirs` exists it first
      /// moves it over R/a.txt: the remote changes while the file is open here.
      func appendingEditor() throws -> String {
        try sandbox.script(
          at: sandbox.harness + "/editor",
          """
          for last; do :; done
          if [ -e '\(sandbox.harness)/theirs' ]; then mv -f '\(sandbox.harness)/theirs' '\(remote)/a.txt'; fi
          printf 'two\\n' >> "$last"

          """)
      }

      func browser(editor: String = "/bin/true") throws -> TmuxTerminal {
        var extra = environment
        extra["EDITOR"] = editor
        return try TmuxTerminal(sandbox, environment: extra, arguments: ["rc:/"])
      }
    }

    @Test("Browse an rclone remote: its files and folders listed, a folder entered")
    func browse() throws {
      let world = try World()
      let term = try world.browser()
      try term.wait(until: "the remote's top listed, online") {
        $0.listShows("a.txt") && $0.listShows("Docs/") && $0.contains("rc (online)")
      }
      try term.send("Enter")  // Docs, the first row (folders first)
      try term.wait(until: "Docs entered: b.txt listed") {
        $0.contains("rc  /Docs") && $0.listShows("b.txt") && !$0.listShows("a.txt")
      }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("Opening a remote file downloads it: the cloud badge goes, the opener got the bytes, folio get agrees")
    func openDownloads() throws {
      let world = try World()
      let seen = world.sandbox.harness + "/seen"
      let opener = try world.sandbox.script(
        at: world.sandbox.harness + "/copier",
        """
        for last; do :; done
        cp "$last" '\(seen).tmp' && mv '\(seen).tmp' '\(seen)'

        """)
      let term = try world.browser(editor: opener)
      try term.wait(until: "a.txt not downloaded yet") { $0.listShows("☁ a.txt") }
      try term.send("j", "Enter")
      try TmuxTerminal.eventually("the opener got the remote's bytes") {
        FileManager.default.contents(atPath: seen).map { String(decoding: $0, as: UTF8.self) } == "one\n"
      }
      try term.wait(until: "a.txt downloaded: no cloud badge") {
        $0.listRows.contains { $0.contains("a.txt") && !$0.contains("☁") }
      }
      let got = try world.folio(["get", "rc:/a.txt", world.sandbox.harness + "/got.txt"])
      #expect(got.status == 0, "\(got.stderr)")
      let fetched = FileManager.default.contents(atPath: world.sandbox.harness + "/got.txt")
      #expect(fetched != nil && fetched == FileManager.default.contents(atPath: world.remote + "/a.txt"))
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("An edit is uploaded to the remote through a temporary that does not stay")
    func editUploads() throws {
      let world = try World()
      let term = try world.browser(editor: try world.appendingEditor())
      try term.wait(until: "a.txt listed") { $0.listShows("a.txt") && $0.contains("rc (online)") }
      try term.send("j", "Enter")
      try TmuxTerminal.eventually("the remote has the edit and no .part left", timeout: 60) {
        world.remoteText("a.txt") == "one\ntwo\n" && !world.remoteNames.contains { $0.hasPrefix(".folio-rclone-") }
      }
      try term.wait(until: "the new size listed, nothing pending") {
        $0.listRows.contains { $0.contains("a.txt") && $0.contains("8 B") } && $0.contains("rc (online)")
      }
      #expect(world.remoteNames.sorted() == ["Docs", "a.txt"], "\(world.remoteNames)")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("An edit of a file that changed on the remote meanwhile keeps both: theirs in place, ours as one conflict copy")
    func conflictKeepsBoth() throws {
      let world = try World()
      let term = try world.browser(editor: try world.appendingEditor())
      try term.wait(until: "a.txt listed") { $0.listShows("a.txt") && $0.contains("rc (online)") }
      try term.send("j", "Enter")
      try TmuxTerminal.eventually("the first edit uploaded", timeout: 60) { world.remoteText("a.txt") == "one\ntwo\n" }
      try term.wait(until: "the upload settled") { $0.contains("rc (online)") && $0.listShows("8 B") }

      // Someone else writes R/a.txt while it is open here (the editor does it, so that no
      // listing of Folio's can see it first); Folio's edit then arrives from a stale base.
      try "theirs\n".write(toFile: world.sandbox.harness + "/theirs", atomically: true, encoding: .utf8)
      try term.send("Enter")
      try term.wait(until: "the conflict copy listed, nothing left to send", timeout: 60) {
        $0.listShows("a (conflict, ") && $0.contains("rc (online)")
      }
      #expect(world.remoteText("a.txt") == "theirs\n")
      let copies = world.remoteNames.filter { $0.hasPrefix("a (conflict, ") && $0.hasSuffix(".txt") }
      #expect(copies.count == 1, "one conflict copy, sent once: \(world.remoteNames)")
      if let copy = copies.first { #expect(world.remoteText(copy) == "one\ntwo\ntwo\n") }
      #expect(!world.remoteNames.contains { $0.hasPrefix(".folio-rclone-") }, "\(world.remoteNames)")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("A tagged remote file renamed in the browser: renamed on the remote, the tag kept")
    func renameKeepsTags() throws {
      let world = try World()
      let term = try world.browser()
      try term.wait(until: "a.txt listed") { $0.listShows("a.txt") && $0.contains("rc (online)") }
      try term.send("j", "t")
      try term.wait(until: "the tag picker") { $0.boxEntries(titled: "Tags").first?.hasSuffix("Red") == true }
      try term.send("Enter")
      try term.wait(for: "[x] ● Red")
      try term.send("Escape")
      try term.wait(until: "the tag's dot on a.txt") { !$0.contains("┌─ Tags") && $0.listShows("a.txt ●") }

      try term.send("r")
      try term.wait(for: "┌─ Rename")
      try term.send("C-u")
      try term.type("c.txt")
      try term.send("Enter")
      try TmuxTerminal.eventually("renamed on the remote", timeout: 60) {
        world.remoteText("c.txt") == "one\n" && world.remoteText("a.txt") == nil
      }
      try term.wait(until: "c.txt listed with the tag's dot") { $0.listShows("c.txt ●") && !$0.listShows("a.txt") }
      let info = try world.folio(["info", "rc:/c.txt"])
      #expect(info.status == 0 && info.stdout.contains("Tags:       Red"), "\(info.stdout)\(info.stderr)")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }
  }
}
