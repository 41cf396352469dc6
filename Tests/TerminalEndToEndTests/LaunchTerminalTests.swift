import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 13: the first screen never waits for the index. At a first launch the index is created
/// and migrated (with its `fdatasync`s) while the folder is read; the folder's rows go on screen
/// as soon as they are read, and the app, with the index, takes over from them.
extension TerminalEndToEndTests {
  @Suite("Launch")
  struct Launch {
    @Test("The folder is on the first screen while the index is still locked by another process")
    func firstScreenDoesNotWaitForTheIndex() throws {
      let sandbox = try Sandbox()
      try sandbox.file("alpha.txt", "a")
      try sandbox.file("beta.txt", "b")
      let python = try #require(Programs.which("python3"), "python3 holds the index's lock in this test")
      // Another process holds the index in an exclusive transaction: Folio's open waits for it
      // (SQLite's busy timeout, 10 s) until the test lets go.
      let folder = sandbox.dataHome + "/folio"
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      let locked = sandbox.harness + "/locked"
      let release = sandbox.harness + "/release"
      let holder = Process()
      holder.executableURL = URL(fileURLWithPath: python)
      holder.arguments = [
        "-c",
        """
        import os, sqlite3, sys, time
        con = sqlite3.connect(sys.argv[1], isolation_level=None)
        con.execute("BEGIN EXCLUSIVE")
        con.execute("CREATE TABLE holder (x)")
        open(sys.argv[2], "w").close()
        deadline = time.time() + 60
        while not os.path.exists(sys.argv[3]) and time.time() < deadline:
            time.sleep(0.02)
        con.execute("ROLLBACK")
        """,
        folder + "/index.sqlite", locked, release,
      ]
      try holder.run()
      defer {
        FileManager.default.createFile(atPath: release, contents: nil)
        holder.waitUntilExit()
      }
      try TmuxTerminal.eventually("the index to be locked") { FileManager.default.fileExists(atPath: locked) }

      let term = try TmuxTerminal(sandbox)
      let screen = try term.wait(forAll: ["alpha.txt", "beta.txt"])
      #expect(holder.isRunning, "the rows came while the index was still locked:\n\(screen.framed)")

      // The lock goes: the index opens and the app answers keys (Tab: Recents, from the index).
      FileManager.default.createFile(atPath: release, contents: nil)
      try term.send("Tab")
      try term.wait(for: "Nothing yet")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    /// The main thread drains the main queue itself (MainQueueLoop). `dispatch_main()` used to
    /// `pthread_exit` it, a forced unwind through the binary's unwind tables (paged in for the
    /// life of the process), and park it for good in `sigsuspend` from a thread-exit destructor.
    @Test("The main thread waits on the main queue, not parked in sigsuspend by dispatch_main")
    func mainThreadIsNotExited() throws {
      let sandbox = try Sandbox()
      try sandbox.file("alpha.txt", "a")
      let term = try TmuxTerminal(sandbox)
      try term.wait(forAll: ["alpha.txt", "1/1 item"])
      let pid = try term.folioPID()
      let waiting = try String(contentsOfFile: "/proc/\(pid)/task/\(pid)/wchan", encoding: .utf8)
      #expect(!waiting.contains("sigsuspend"), "the main thread waits in \(waiting)")
      // It still works for the main actor: a key redraws (the loop answers on the main thread).
      try term.send("Tab")
      try term.wait(for: "Nothing yet")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }
}
}
