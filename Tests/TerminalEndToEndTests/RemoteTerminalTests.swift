import Foundation
import Testing

@testable import TestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A real `folio serve` on loopback and the sandbox's Folio configured with a `work` location on
/// it, signed in as ana with a stored password (config.toml and the 0600 credentials file, as
/// `folio domain add` writes them). `other` runs `folio` as a second computer: its own config,
/// index and cache, signed in as ana too, to put things on the server and check what is there.
final class RemoteWorld: @unchecked Sendable {
  static let password = "ana-password"
  let sandbox: Sandbox
  let server: ServerProcess
  let otherEnvironment: [String: String]

  init(quota: Int64? = nil) async throws {
    sandbox = try Sandbox()
    server = try await ServerProcess(users: ["ana": Self.password], quotas: quota.map { ["ana": $0] } ?? [:])
    try Self.configure(configHome: sandbox.configHome, server: server)
    var other = sandbox.environment
    for (key, sub) in [("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache"), ("HOME", "home")] {
      let dir = "\(sandbox.harness)/other-\(sub)"
      try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
      other[key] = dir
    }
    otherEnvironment = other
    try Self.configure(configHome: other["XDG_CONFIG_HOME"]!, server: server)
  }

  static func configure(configHome: String, server: ServerProcess) throws {
    let dir = configHome + "/folio"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    try """
    [[domain]]
    name = "work"
    type = "folio"
    server = "\(server.baseURL.absoluteString)"
    user = "ana"

    """.write(toFile: dir + "/config.toml", atomically: true, encoding: .utf8)
    let credentials = dir + "/credentials"
    try "work=\(password)\n".write(toFile: credentials, atomically: true, encoding: .utf8)
    guard chmod(credentials, 0o600) == 0 else { throw HarnessError("chmod credentials failed") }
  }

  /// Runs `folio ARGS` as the other computer.
  @discardableResult
  func other(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> ProgramOutput {
    let out = try Programs.run(
      try FolioBinary.path(sourceLocation: sourceLocation), arguments, environment: otherEnvironment,
      directory: sandbox.harness)
    #expect(out.status == 0, "folio \(arguments): \(out.stderr)", sourceLocation: sourceLocation)
    return out
  }

  /// Puts a file named exactly `name` with `contents` into the server's `folder`, from the other
  /// computer.
  func put(bytes name: [UInt8], _ contents: String, into folder: String = "work:/") throws {
    let dir = "\(sandbox.harness)/upload-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let path = Array(dir.utf8) + [0x2F] + name
    let fd = (path.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer {
      open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    }
    guard fd >= 0 else { throw HarnessError("cannot create an upload file") }
    _ = Array(contents.utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
    try other(["put", String(decoding: path, as: UTF8.self), folder])
  }

  func put(_ name: String, _ contents: String, into folder: String = "work:/") throws {
    try put(bytes: Array(name.utf8), contents, into: folder)
  }

  /// The file's bytes as the server has them now, fetched by the other computer afresh.
  func serverText(_ address: String) throws -> String? {
    _ = try? Programs.run(
      try FolioBinary.path(), ["evict", address], environment: otherEnvironment, directory: sandbox.harness)
    let dest = "\(sandbox.harness)/got-\(UUID().uuidString)"
    let got = try Programs.run(
      try FolioBinary.path(), ["get", address, dest], environment: otherEnvironment, directory: sandbox.harness)
    guard got.status == 0 else { return nil }
    return try String(contentsOfFile: dest, encoding: .utf8)
  }
}

extension TerminalEndToEndTests {
  /// Issue 4's acceptance tests of remote storage in the terminal, against the real server.
  @Suite("Remote locations")
  struct Remote {
    @Test("Signed out mid-session: the prompt appears, the new password resumes the work, the sidebar says online")
    func signInAgainMidSession() async throws {
      let world = try await RemoteWorld()
      try world.put("notes.txt", "notes")
      try world.other(["mkdir", "work:/Docs"])
      try world.put("inner.txt", "inside", into: "work:/Docs")
      let term = try TmuxTerminal(world.sandbox, arguments: ["work:/"])
      try term.wait(forAll: ["Docs/", "notes.txt", "work (online)"])

      // The administrator changes the password and revokes every token: the stored password
      // no longer signs in.
      try world.server.admin(["user", "passwd", "ana", "--password-stdin"], stdin: "new-password\n")
      try world.server.admin(["token", "revoke", "ana"])
      try term.send("Enter")  // into Docs/: a server call
      var screen = try term.wait(forAll: ["Sign in to work", "needs sign-in"])
      #expect(!screen.listShows("inner.txt"))
      #expect(screen.contains("ana"), "the user is prefilled:\n\(screen.framed)")

      try term.type("new-password")
      try term.send("Enter")
      screen = try term.wait(until: "Docs listed after the sign-in, the location online") {
        $0.listShows("inner.txt") && $0.contains("work (online)") && !$0.contains("Sign in to work")
      }
      #expect(!screen.contains("new-password"), "the password is never shown")
      // Remembered (the prompt's default): the credentials file has the new one.
      let credentials = try String(contentsOfFile: world.sandbox.configHome + "/folio/credentials", encoding: .utf8)
      #expect(credentials.contains("work=new-password"))
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("An opened remote file is uploaded when the editor exits: the server has the new bytes")
    func editedFileIsUploaded() async throws {
      let world = try await RemoteWorld()
      try world.put("notes.txt", "first line\n")
      let argvFile = world.sandbox.harness + "/editor-argv"
      let editor = try world.sandbox.script(
        at: world.sandbox.harness + "/editor",
        """
        printf '%s\\n' "$@" > '\(argvFile)'
        for last; do :; done
        printf 'added by the editor\\n' >> "$last"

        """)
      let term = try TmuxTerminal(world.sandbox, environment: ["EDITOR": editor], arguments: ["work:/"])
      try term.wait(forAll: ["notes.txt", "work (online)"])
      try term.send("Enter")
      try TmuxTerminal.eventually("the server has the edited bytes") {
        try world.serverText("work:/notes.txt") == "first line\nadded by the editor\n"
      }
      // The editor got the cached copy as its one operand (an absolute path: no `--`), never a
      // server path.
      let argv = try String(contentsOfFile: argvFile, encoding: .utf8).split(separator: "\n").map(String.init)
      let opened = try #require(argv.last)
      #expect(argv.count == 1 && !argv.contains("--"), "\(argv)")
      #expect(opened.hasPrefix(world.sandbox.cacheHome + "/folio/content/"), "\(opened)")
      try term.wait(for: "notes.txt")
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("y on a local file, p in the remote location: the upload is queued and the server then has the bytes")
    func copyPasteUploads() async throws {
      let world = try await RemoteWorld()
      try world.put("notes.txt", "notes")
      try world.sandbox.file("report.txt", "from this computer\n")
      let term = try TmuxTerminal(world.sandbox)
      try term.wait(forAll: ["report.txt", "work (online)"])
      try term.send("y")
      try term.wait(for: "Copied “report.txt” — p pastes")
      try term.send("b", "j", "Enter")  // the sidebar: This Computer, then work
      try term.wait(until: "the remote root listed") { $0.listShows("notes.txt") && !$0.listShows("report.txt") }
      try term.send("p")
      try term.wait(for: "Queued 1 upload")
      try TmuxTerminal.eventually("the server has the pasted bytes") {
        try world.serverText("work:/report.txt") == "from this computer\n"
      }
      try term.wait(until: "the pasted file listed") { $0.listShows("report.txt") && $0.listShows("notes.txt") }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("An upload over quota shows the ! badge and the recovery text in the status line and Info")
    func quotaExceededShowsTheBadgeAndWhatToDo() async throws {
      let world = try await RemoteWorld()
      try world.put("a.txt", "small\n")
      try world.server.admin(["user", "quota", "ana", "100"])
      let editor = try world.sandbox.script(
        at: world.sandbox.harness + "/editor",
        """
        for last; do :; done
        head -c 500 /dev/zero | tr '\\0' x >> "$last"

        """)
      let term = try TmuxTerminal(world.sandbox, environment: ["EDITOR": editor], arguments: ["work:/"])
      try term.wait(forAll: ["a.txt", "work (online)"])
      try term.send("Enter")
      // The badge and the sidebar's state come from two events of the queue: wait for both.
      var screen = try term.wait(until: "the ! badge on a.txt, what to do in the status line, over quota in the sidebar") {
        $0.listRows.contains { $0.contains("! a.txt") } && $0.lines.last?.contains("Free space on the") == true
          && $0.contains("over quota")
      }
      #expect(screen.contains("over quota"), "the sidebar says so:\n\(screen.framed)")
      try term.send("i")
      screen = try term.wait(for: "┌─ Info")
      #expect(screen.contains("Recovery      Free space on the server, then retry."), "\(screen.framed)")
      #expect(screen.contains("of 100 bytes"), "\(screen.framed)")
      #expect(try world.serverText("work:/a.txt") == "small\n", "the server kept the old bytes")
      try term.send("Escape", "q")
      try term.wait(for: "EXITED 0")
    }

    /// Issue 9 items 4 and 5, as a person met them: the server dies, the sidebar says offline at
    /// once and the folder shows what this computer knows; `folio put` in another terminal queues
    /// a file (exit 75); the server comes back on the same port and, with no key, the sidebar says
    /// online, the file reaches the server and the folder lists it.
    @Test("A server that dies is offline at once, known items stay listed, and its return resumes everything with no key")
    func aServerThatComesBackIsNoticed() async throws {
      let world = try await RemoteWorld()
      try world.put("notes.txt", "notes")
      let term = try TmuxTerminal(world.sandbox, environment: ["EDITOR": "/bin/true"], arguments: ["work:/"])
      try term.wait(forAll: ["notes.txt", "work (online)"])
      try term.send("Enter")  // opened, so downloaded and in the working set
      try TmuxTerminal.eventually("notes.txt downloaded") {
        (FileManager.default.subpaths(atPath: world.sandbox.cacheHome + "/folio/content") ?? []).contains { $0.utf8.count > 60 }
      }

      world.server.stop(signal: SIGKILL)
      try term.wait(until: "the sidebar says offline") { $0.contains("work (offline") }
      try term.send("C-r")
      try term.wait(until: "what this computer knows, marked offline") {
        $0.listShows("notes.txt") && $0.lines.last?.contains("known here (offline)") == true
      }

      let later = try world.sandbox.file("later.txt", "written while the server was down\n")
      let put = try Programs.run(
        try FolioBinary.path(), ["put", later, "work:/"], environment: world.sandbox.environment,
        directory: world.sandbox.harness)
      #expect(put.status == 75, "\(put.stderr)")
      try term.wait(until: "the other process's upload listed as waiting") { $0.listShows("later.txt") }

      try await world.server.start()
      try term.wait(until: "online again, the file sent and listed, with no key") {
        $0.contains("work (online)") && $0.listShows("later.txt") && $0.listShows("notes.txt")
          && !$0.contains("known here")
      }
      try TmuxTerminal.eventually("the server has the queued bytes") {
        try world.serverText("work:/later.txt") == "written while the server was down\n"
      }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)
    }

    @Test("Hostile names made on the server are listed escaped, in the UI and by folio ls, and never name a cache file")
    func hostileNamesFromTheServer() async throws {
      let world = try await RemoteWorld()
      let names: [(String, String)] = [
        ("red\u{1B}[31mRED\u{1B}[0m.txt", #"red\e[31mRED\e[0m.txt"#),
        ("clear\u{1B}[2J\u{1B}[Hx", #"clear\e[2J\e[Hx"#),
        ("up\u{1B}[1A\rharmless", #"up\e[1A\rharmless"#),
        ("title\u{1B}]0;pwned\u{07}.txt", #"title\e]0;pwned\x07.txt"#),
        ("clip\u{1B}]52;c;cHduZWQ=\u{07}", #"clip\e]52;c;cHduZWQ=\x07"#),
        ("dcs\u{1B}P$q;touch x\u{1B}\\", #"dcs\eP$q;touch x\e\\"#),
        ("osc\u{1B}]unterminated", #"osc\e]unterminated"#),
      ]
      for (name, _) in names { try world.put(name, "content of a hostile name\n") }

      let ls = try world.other(["ls", "work:/"])
      #expect(!ls.stdout.utf8.contains(0x1B), "no ESC byte in folio ls")
      for (_, shown) in names { #expect(ls.stdout.contains(shown), "folio ls shows \(shown):\n\(ls.stdout)") }

      let term = try TmuxTerminal(world.sandbox, arguments: ["work:/"])
      // Every byte Folio writes to the pane, from here on.
      let raw = world.sandbox.harness + "/pane-output"
      try term.tmux(["pipe-pane", "-t", term.target, "-o", "cat >> " + shellQuote(raw)])
      try term.wait(forAll: names.map(\.1) + ["\(names.count) items"])
      try term.resize(width: 110, height: 30)  // a full repaint, now recorded
      // tmux keeps the old picture when the pane grows; only Folio's repaint moves the sidebar's
      // divider from column 25 to 26 (a quarter of the width, at most 26).
      let screen = try term.wait(until: "the 110-column repaint") { s in
        names.allSatisfy { s.contains($0.1) } && s.contains("\(names.count) items") && s.lines.count > 2
          && Array(s.lines[2]).count > 26 && Array(s.lines[2])[26] == "│"
      }
      #expect(screen.lines.count == 30 && screen.lines[0].contains("1 Browse"), "\(screen.framed)")
      #expect(screen.rowsWithBrokenDivider.isEmpty, "the sidebar divider is broken:\n\(screen.framed)")
      #expect(try term.format("#{pane_title}") != "pwned", "an OSC in a name did not set the title")
      let styles = try term.captureCells().styles
      #expect(!styles.contains { $0.foreground == "31" || $0.background == "31" }, "no SGR 31 from a name")
      // What reached the pane holds the names escaped, never their sequences.
      // The recording is written by tmux through a pipe, after the screen: wait for the repaint in it.
      var output = ""
      try TmuxTerminal.eventually("the repaint in the recorded pane output") {
        output = FileManager.default.contents(atPath: raw).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return output.contains(#"RED\e[0m.txt"#)
      }
      for sequence in [
        "\u{1B}[31mRED", "\u{1B}[2J\u{1B}[Hx", "\u{1B}[1A\rharmless", "\u{1B}]0;pwned", "\u{1B}]52;", "\u{1B}P$q",
        "\u{1B}]unterminated",
      ] {
        #expect(!output.contains(sequence), "a name's sequence reached the terminal: \(sequence.debugDescription)")
      }
      try term.send("q")
      try term.expectTerminalRestored(exitStatus: 0)

      // Downloaded, each is stored under a hash of its identifier: no server name in the cache.
      for (name, _) in names {
        let get = try world.other(["get", "work:/" + name])
        #expect(!get.stdout.utf8.contains(0x1B), "the printed path has no ESC")
      }
      let cache = world.otherEnvironment["XDG_CACHE_HOME"]! + "/folio/content"
      let files = try #require(FileManager.default.subpaths(atPath: cache))
      #expect(files.count >= names.count, "\(files)")
      for file in files {
        #expect(!file.utf8.contains(0x1B), "\(file)")
        for stem in ["red", "clear", "harmless", "title", "clip", "dcs", "osc"] {
          #expect(!file.contains(stem), "a cache path names a server file: \(file)")
        }
      }
    }
  }
}
