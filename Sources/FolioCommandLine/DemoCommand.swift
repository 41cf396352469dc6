import ArgumentParser
import FolioConfig
import Foundation
import ProviderAPI
import TerminalBackend

#if canImport(Glibc)
  import Glibc
#endif

/// `folio demo`: remote storage in one command, nothing left behind.
///
/// A FolioServer (`folio-serve`, a child process: ``DemoServer``) runs on a free loopback port
/// with a sample tree made by two users (shared, locked and tagged files, a large dataset), a private configuration names it as
/// the location "demo", and the UI opens on it. Everything lives in one temporary folder —
/// the server's data and the private XDG config, data and cache homes — which is removed when the
/// UI exits; a cleanup process removes it too when the demo is killed (``DemoJanitor``).
struct DemoCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "demo",
    abstract: "Try Folio on a server: sample files on a FolioServer of its own, opened in the UI.",
    discussion: """
      Starts a FolioServer on 127.0.0.1 (a free port) in a temporary folder, fills it with sample \
      files owned by two users (ana and ben: shared, locked and tagged files, a 64 MiB dataset), \
      adds it as the location "demo" in a private temporary configuration (yours is not read or \
      changed), and opens the terminal UI on demo:/ signed in as ana. Enter downloads and opens a \
      file; edits go back up when the editor exits. Quitting removes the server and every file \
      of the demo (also on SIGTERM, SIGHUP or kill -9).

      With --sign-in the password is not stored, so the UI opens with the sign-in prompt; the \
      password is shown in the prompt.
      """)

  @Flag(help: "Do not store the password: the UI asks for it (the prompt shows it).") var signIn = false
  @Option(help: "The theme to use.") var theme: String?
  @Flag(help: "Only ASCII glyphs.") var ascii = false
  @Flag(help: "No colors.") var noColor = false
  @Option(help: .hidden) var janitor: String?

  static let location = DomainIdentifier(unchecked: "demo")

  @MainActor
  func run() async throws {
    if let janitor { DemoJanitor.run(janitor) }
    // Before the server starts and stderr goes to its log: a terminal the UI cannot use is said
    // here, on the terminal, at once.
    do { _ = try NCursesTerminal.checkTerminal() } catch {
      Console.err(error.description)
      throw ExitCode(1)
    }
    let temp = URL(fileURLWithPath: NSTemporaryDirectory()).standardizedFileURL.path
    var template = Array("\(temp)/\(DemoJanitor.prefix)XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else {
      Console.err("cannot make the demo's temporary folder (errno \(errno))")
      throw ExitCode(1)
    }
    let folder = URL(fileURLWithPath: String(cString: made))
    let watch: Int32
    do throws(ProviderError) { watch = try DemoJanitor.start(for: folder) } catch {
      try? FileManager.default.removeItem(at: folder)
      Console.err(error.message)
      throw ExitCode(1)
    }
    defer {
      try? FileManager.default.removeItem(at: folder)
      close(watch)
    }
    var log: DemoLog?
    var server: DemoServer?
    do {
      Self.say("starting a FolioServer with sample files…")
      let password = "demo-" + String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
      let benPassword = "ben-" + String(UInt32.random(in: 0x1000_0000...UInt32.max), radix: 16)
      // The accounts, applied by the server at its start (`--users`); the folder is the user's alone.
      let users = folder.appendingPathComponent("users")
      do {
        try Data("ana:\(password)\nben:\(benPassword)\n".utf8).write(to: users)
      } catch {
        throw ProviderError(.ioError, "cannot write the demo's accounts: \(error)")
      }
      // The server logs each request on stderr, which the UI is about to cover: into a file.
      log = try DemoLog(folder.appendingPathComponent("server.log"))
      let running = try await DemoServer.start(root: folder.appendingPathComponent("server"), users: users)
      server = running
      let scratch = folder.appendingPathComponent("scratch")
      try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
      try await DemoSample(server: running.url, scratch: scratch)
        .seed(ana: "ana", anaPassword: password, ben: "ben", benPassword: benPassword)
      try configure(folder, server: running.url, password: password)
      let browse = try BrowseCommand.parse(
        ["demo:/"] + (theme.map { ["--theme", $0] } ?? []) + (ascii ? ["--ascii"] : []) + (noColor ? ["--no-color"] : []))
      try await browse.browse(hints: [Self.location: "folio demo: you are ana, password \(password)"])
      // Stderr stays on the log file: the server's event loops may still log their shutdown
      // after it stopped, and that belongs in the log, not under the shell's prompt.
      await running.stop()
      log?.say("folio demo: stopped the server and removed \(folder.path)")
    } catch {
      await server?.stop()
      log?.restore()
      if let e = error as? ProviderError {
        Console.err(e.message)
        throw ExitCode(Console.exitCode(for: e))
      }
      throw error
    }
  }

  /// A line of the demo's own on stderr ("folio demo: …").
  static func say(_ line: String) {
    FileHandle.standardError.write(Data("folio demo: \(line)\n".utf8))
  }

  /// The private XDG homes and the location "demo" in their config.toml (its password in the
  /// credentials file unless `--sign-in`).
  private func configure(_ folder: URL, server: URL, password: String) throws(ProviderError) {
    // Your Trash stays yours: what you delete on This Computer during the demo lands there, not in
    // the private data folder that quitting removes (FreedesktopTrash.Environment.current).
    if getenv("FOLIO_TRASH_DATA_HOME") == nil {
      setenv("FOLIO_TRASH_DATA_HOME", FolioPaths.current.dataHome.path, 1)
    }
    for (variable, name) in [("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")] {
      let dir = folder.appendingPathComponent(name)
      try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
      setenv(variable, dir.path, 1)
    }
    let paths = FolioPaths.current
    try? FileManager.default.createDirectory(
      at: paths.configFile.deletingLastPathComponent(), withIntermediateDirectories: true)
    let text = try DomainConfigEditor.adding(
      name: Self.location, type: "folio", settings: [("server", server.absoluteString), ("user", "ana")],
      displayName: "Demo", to: "", file: paths.configFile.path, paths: paths)
    try DomainConfigEditor.write(text, to: paths.configFile)
    if !signIn { try CredentialsStore(paths: paths).setSecret(password, for: Self.location) }
  }
}

/// Standard error sent to a file while the demo runs (its server, a child, inherits it), and given back.
final class DemoLog {
  private var saved: Int32

  init(_ url: URL) throws(ProviderError) {
    let fd = open(url.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw ProviderError(.ioError, "cannot open \(url.path) (errno \(errno))") }
    // Close-on-exec: an opener run meanwhile must not hold the terminal's stderr open.
    saved = fcntl(2, F_DUPFD_CLOEXEC, 3)
    dup2(fd, 2)
    close(fd)
  }

  /// A line on the terminal's stderr while stderr itself still goes to the log.
  func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    if saved >= 0 { _ = bytes.withUnsafeBytes { write(saved, $0.baseAddress, $0.count) } }
  }

  func restore() {
    guard saved >= 0 else { return }
    dup2(saved, 2)
    close(saved)
    saved = -1
  }
}
