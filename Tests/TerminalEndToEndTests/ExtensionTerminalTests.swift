import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

extension TerminalEndToEndTests {
  /// Issue 14 §2 as a person meets it: a location served by an extension that crashes.
  @Suite("Extensions")
  struct Extensions {
    /// The host's test fixture (Tests/ExtensionHostTests/Fixtures): an FEP/1 extension over a
    /// folder that can be told to crash on a method until a flag file exists.
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("ExtensionHostTests/Fixtures/folder-ext.py").path

    @Test("An extension that crashes on listing: the browser stays responsive, the location is offline with why, Reload brings it back")
    func aCrashingExtensionIsIsolated() throws {
      let sandbox = try Sandbox()
      let store = try sandbox.folder("store")
      _ = try sandbox.file("store/a.txt", "alpha")
      let flag = sandbox.harness + "/behave"
      let dir = sandbox.configHome + "/folio"
      try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
      try """
      [[domain]]
      name = "ext"
      type = "extension"
      command = ["\(Self.fixture)"]
      [domain.config]
      root = "\(store)"
      crash_on = "enumerateItems"
      flag = "\(flag)"

      """.write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
      let term = try TmuxTerminal(sandbox, arguments: ["ext:/"])
      // Offline, saying why, in the sidebar and on the status line.
      try term.wait(until: "the location offline with the crash's reason") {
        $0.contains("ext (offline") && $0.contains("killed by signal 11")
      }
      // The browser answers keys meanwhile: the help box opens and closes.
      try term.send("?")
      try term.wait(for: "Move up")
      try term.send("Escape")
      try term.wait(until: "the help box closed") { !$0.contains("Move up") }
      // The extension is told to behave; Reload is the person's Retry.
      FileManager.default.createFile(atPath: flag, contents: Data())
      try term.send("C-r")
      try term.wait(until: "the folder listed, the location online") { $0.listShows("a.txt") && $0.contains("ext (online") }
      try term.send("q")
      try term.wait(for: "EXITED 0")
    }
  }
}
