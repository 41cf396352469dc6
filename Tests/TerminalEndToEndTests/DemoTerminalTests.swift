import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `folio demo` runs its FolioServer as a child, the `folio-serve` executable (docs/DECISIONS.md,
/// "The server is its own executable"): the demo's listing comes from it, and the server ends with
/// the demo however the demo ends, a quit or a `kill -9`.
extension TerminalEndToEndTests {
  @Suite("Demo")
  struct Demo {
    @Test("The demo's server is a folio-serve child that stops when the demo quits")
    func serverStopsWithTheDemo() throws {
      let sandbox = try Sandbox()
      let term = try TermOnDemo(sandbox)
      let server = try term.server()
      try term.terminal.send("q")
      // The demo's own lines stay on the normal screen: what it started, and that it stopped it.
      let screen = try term.terminal.wait(for: "EXITED 0")
      #expect(screen.contains("folio demo: stopped the server"), "\(screen.framed)")
      try TmuxTerminal.eventually("the demo's server to end") { !Self.isAlive(server.pid) }
      try TmuxTerminal.eventually("the demo's folder to be removed") {
        !FileManager.default.fileExists(atPath: server.folder)
      }
    }

    @Test("A demo killed with kill -9 takes its server with it")
    func serverEndsWithAKilledDemo() throws {
      let sandbox = try Sandbox()
      let term = try TermOnDemo(sandbox)
      let server = try term.server()
      #expect(Glibc.kill(term.pid, SIGKILL) == 0)
      try term.terminal.wait(for: "EXITED 137")
      try TmuxTerminal.eventually("the killed demo's server to end") { !Self.isAlive(server.pid) }
      try TmuxTerminal.eventually("the killed demo's folder to be removed") {
        !FileManager.default.fileExists(atPath: server.folder)
      }
    }

    /// Running and not a zombie (a reparented child may wait for a reaper that never comes).
    static func isAlive(_ pid: pid_t) -> Bool {
      guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return false }
      return stat[stat.index(close, offsetBy: 2)] != "Z"
    }
  }

  /// `folio demo` in tmux, on its first listing.
  struct TermOnDemo {
    let terminal: TmuxTerminal
    let pid: pid_t

    init(_ sandbox: Sandbox) throws {
      terminal = try TmuxTerminal(sandbox, arguments: ["demo"])
      // Seeding writes a 64 MiB dataset through the server: slow on a loaded machine.
      try terminal.wait(for: "Big dataset.csv", timeout: 3 * TmuxTerminal.timeout)
      pid = try terminal.folioPID()
    }

    /// The demo's server: a child of the demo running folio-serve, and the demo's folder (its
    /// `--root` is FOLDER/server).
    func server() throws -> (pid: pid_t, folder: String) {
      for entry in try FileManager.default.contentsOfDirectory(atPath: "/proc") {
        guard let child = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
          let close = stat.lastIndex(of: ")")
        else { continue }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 1, pid_t(fields[1]) == pid,
          let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
        else { continue }
        let argv = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        guard argv.first.map({ $0.hasSuffix("/folio-serve") }) == true, let root = argv.firstIndex(of: "--root"),
          root + 1 < argv.count
        else { continue }
        return (child, (argv[root + 1] as NSString).deletingLastPathComponent)
      }
      try #require(Bool(false), "no folio-serve child of the demo (pid \(pid))")
      return (0, "")
    }
  }
}
