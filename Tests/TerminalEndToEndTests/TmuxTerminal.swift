import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The real `folio` binary running in a private tmux server.
///
/// Each terminal has its own server (`tmux -L folio-e2e-<pid>-<random>`), a detached session of a
/// fixed size, and a launcher script that runs Folio with exactly the sandbox's environment
/// (`env -i`), then records the exit status on the screen ("EXITED <status>") and the terminal
/// modes before and after (`stty -g`), and stays alive so that the screen after the exit can be
/// read.
///
/// Every check polls `capture-pane` until the expected text appears, within a bounded time; a
/// fixed sleep is never the oracle.
final class TmuxTerminal {
  /// How long a wait may take before the test fails (a debug build on a busy two-core machine).
  static let timeout: TimeInterval = 20
  static let pollInterval: useconds_t = 20_000

  let sandbox: Sandbox
  let tmuxPath: String
  let socket: String
  /// Names this terminal's files in `sandbox.harness` (several terminals may share a sandbox).
  let name: String
  let target = "folio"
  private var killed = false

  var pidFile: String { "\(sandbox.harness)/\(name).pid" }
  var sttyBeforeFile: String { "\(sandbox.harness)/\(name).stty-before" }
  var sttyAfterFile: String { "\(sandbox.harness)/\(name).stty-after" }

  /// Starts `folio ARGUMENTS` in `directory` (default: the sandbox's `work`) on a
  /// `width`x`height` terminal with `TERM=term`; `environment` is added to the sandbox's. `binary`
  /// is another folio to run (an installed one) instead of the built one.
  /// Returns at once: wait for the first screen with `wait(for:)`.
  init(
    _ sandbox: Sandbox, name: String = "main", width: Int = 100, height: Int = 30, term: String = "xterm-256color",
    environment extra: [String: String] = [:], arguments: [String] = [], directory: String? = nil,
    interactiveShell: Bool = false, shell: String = "/bin/sh -i", folio binary: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    self.sandbox = sandbox
    self.name = name
    tmuxPath = try #require(
      Programs.which("tmux", path: "/usr/local/bin:/usr/bin:/bin:" + (ProcessInfo.processInfo.environment["PATH"] ?? "")),
      "tmux is not installed: the terminal end-to-end tests need it — `apt-get install tmux` (.ci/run installs it)",
      sourceLocation: sourceLocation)
    let folio = try binary ?? FolioBinary.path(sourceLocation: sourceLocation)
    socket = "folio-e2e-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"

    var env = sandbox.environment.merging(extra) { $1 }
    env["TERM"] = term
    let launcher = "\(sandbox.harness)/\(name).sh"
    let assignments = env.keys.sorted().map { shellQuote("\($0)=\(env[$0]!)") }.joined(separator: " \\\n  ")
    let argv = ([folio] + arguments).map(shellQuote).joined(separator: " ")
    if interactiveShell {
      // An interactive shell with job control (Ctrl-Z, fg) at a "$ " prompt; the test types.
      // `shell` is its command line (a real `bash --norc -i` for the shell functions of the README).
      try sandbox.script(
        at: launcher,
        """
        cd \(shellQuote(directory ?? sandbox.work)) || exit 99
        exec env -i \\
          \(assignments) \\
          PS1='$ ' \(shell)

        """)
    } else {
      try sandbox.script(
        at: launcher,
        """
        cd \(shellQuote(directory ?? sandbox.work)) || exit 99
        stty -g > \(shellQuote(sttyBeforeFile)) 2>/dev/null
        env -i \\
          \(assignments) \\
          /bin/sh -c 'echo $$ > "$0"; exec "$@"' \(shellQuote(pidFile)) \(argv)
        status=$?
        stty -g > \(shellQuote(sttyAfterFile)) 2>/dev/null
        echo "EXITED $status"
        exec sleep 100000

        """)
    }

    let config = "\(sandbox.harness)/tmux.conf"
    if !FileManager.default.fileExists(atPath: config) {
      try """
      set -g status off
      set -g remain-on-exit on
      set -g default-shell /bin/sh
      set -g default-terminal "\(term.isEmpty ? "xterm-256color" : term)"
      set -g escape-time 0
      set -g history-limit 200

      """.write(toFile: config, atomically: true, encoding: .utf8)
    }
    try tmux(
      ["-f", config, "new-session", "-d", "-s", target, "-x", "\(width)", "-y", "\(height)", "-c", sandbox.work,
       "exec /bin/sh " + shellQuote(launcher)])
    // tmux 3.3a crashes when window-size=manual is in the config of a detached new-session.
    try tmux(["set-option", "-g", "window-size", "manual"])
    try resize(width: width, height: height)
  }

  deinit { kill() }

  /// Ends the tmux server (Folio, if still running, gets SIGHUP from it) and removes its socket.
  func kill() {
    guard !killed else { return }
    killed = true
    _ = try? tmux(["kill-server"], check: false)
    let dir = ProcessInfo.processInfo.environment["TMUX_TMPDIR"] ?? "/tmp"
    unlink("\(dir)/tmux-\(getuid())/\(socket)")
  }

  // MARK: tmux

  /// Runs `tmux -L SOCKET ARGUMENTS` and returns what it printed.
  @discardableResult
  func tmux(_ arguments: [String], check: Bool = true) throws -> String {
    let result = try Programs.run(
      tmuxPath, ["-L", socket] + arguments,
      environment: ["PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": sandbox.home, "LANG": "C.UTF-8"])
    if check && result.status != 0 {
      throw HarnessError("tmux \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
    }
    return result.stdout
  }

  /// Sends tmux key names ("j", "Enter", "Escape", "BSpace", "Tab", "C-u", "Down").
  func send(_ keys: String...) throws { try tmux(["send-keys", "-t", target] + keys) }

  /// Sends a key `count` times.
  func send(_ key: String, times count: Int) throws {
    guard count > 0 else { return }
    try tmux(["send-keys", "-t", target] + Array(repeating: key, count: count))
  }

  /// Types text literally.
  func type(_ text: String) throws { try tmux(["send-keys", "-t", target, "-l", text]) }

  func resize(width: Int, height: Int) throws {
    try tmux(["resize-window", "-t", target, "-x", "\(width)", "-y", "\(height)"])
  }

  /// A tmux format about the pane, e.g. `#{alternate_on}`.
  func format(_ format: String) throws -> String {
    try tmux(["display-message", "-p", "-t", target, format]).trimmingCharacters(in: .newlines)
  }

  // MARK: The screen

  /// The pane's text now, one string per row.
  func capture() throws -> Screen {
    Screen(text: try tmux(["capture-pane", "-p", "-t", target]))
  }

  /// The pane with its attributes as SGR sequences (`capture-pane -e`).
  func captureStyled() throws -> String {
    try tmux(["capture-pane", "-p", "-e", "-t", target])
  }

  /// The pane's cells with their colors and attributes.
  func captureCells() throws -> StyledScreen {
    StyledScreen(try captureStyled(), width: Int(try format("#{pane_width}")))
  }

  /// Polls the screen until `text` appears; fails with the last screen after `timeout` seconds.
  @discardableResult
  func wait(
    for text: String, timeout: TimeInterval = TmuxTerminal.timeout, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Screen {
    try wait(until: "\"\(text)\" on the screen", timeout: timeout, sourceLocation: sourceLocation) { $0.contains(text) }
  }

  /// Polls the screen until every one of `texts` is on it.
  @discardableResult
  func wait(
    forAll texts: [String], timeout: TimeInterval = TmuxTerminal.timeout, sourceLocation: SourceLocation = #_sourceLocation
  ) throws -> Screen {
    try wait(until: "all of \(texts) on the screen", timeout: timeout, sourceLocation: sourceLocation) { screen in
      texts.allSatisfy { screen.contains($0) }
    }
  }

  /// Polls the screen until `predicate` holds on a settled screen: one that a second capture, a
  /// poll later, shows the same. A frame reaches tmux in several writes, and a capture between
  /// them showed the help box's first rows without its last ("Move up" there, "scroll" not yet),
  /// so what a test asserts next on the returned screen could be still unpainted.
  @discardableResult
  func wait(
    until what: String, timeout: TimeInterval = TmuxTerminal.timeout, sourceLocation: SourceLocation = #_sourceLocation,
    _ predicate: (Screen) throws -> Bool
  ) throws -> Screen {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let screen = try capture()
      if try predicate(screen) {
        usleep(Self.pollInterval)
        // A screen that never settles (it cannot: the spinner turns every 120 ms) is taken at the end.
        if try capture() == screen || Date() > deadline { return screen }
        continue
      }
      if Date() > deadline {
        try #require(
          Bool(false), "waited \(Int(timeout)) s for \(what); the screen:\n\(screen.framed)", sourceLocation: sourceLocation)
      }
      usleep(Self.pollInterval)
    }
  }

  /// Polls until `condition` holds (for effects outside the screen: files, xattrs, the Trash).
  static func eventually(
    _ what: String, timeout: TimeInterval = TmuxTerminal.timeout, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () throws -> Bool
  ) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while try !condition() {
      if Date() > deadline {
        try #require(Bool(false), "waited \(Int(timeout)) s for \(what)", sourceLocation: sourceLocation)
      }
      usleep(Self.pollInterval)
    }
  }

  // MARK: The process

  /// Folio's process id (written by the launcher just before it execs Folio).
  func folioPID(sourceLocation: SourceLocation = #_sourceLocation) throws -> pid_t {
    var pid: pid_t = 0
    try Self.eventually("the pid file", sourceLocation: sourceLocation) {
      guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
        let value = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
      else { return false }
      pid = value
      return true
    }
    return pid
  }

  /// Checks that Folio ended with `status` and gave the terminal back exactly as it found it:
  /// the shell's next line is on the screen, the alternate screen was left (no Folio UI in the
  /// pane), the cursor is visible, keypad and mouse modes are off, and `stty -g` is unchanged.
  ///
  /// `alternateScreen: false` is for terminals without one (vt100): Folio's last frame stays on
  /// the normal screen there, so only the exit, the modes and the cursor are checked.
  func expectTerminalRestored(
    exitStatus status: Int32, alternateScreen: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
  ) throws {
    let screen = try wait(for: "EXITED \(status)", sourceLocation: sourceLocation)
    if alternateScreen {
      expectNoUI(screen, status: status, sourceLocation: sourceLocation)
    }
    #expect(try format("#{alternate_on}") == "0", "left the alternate screen", sourceLocation: sourceLocation)
    #expect(try format("#{cursor_flag}") == "1", "the cursor is visible", sourceLocation: sourceLocation)
    #expect(
      try format("keypad=#{keypad_cursor_flag}#{keypad_flag} mouse=#{mouse_any_flag}") == "keypad=00 mouse=0",
      "application keypad and mouse reporting are off", sourceLocation: sourceLocation)
    let before = try String(contentsOfFile: sttyBeforeFile, encoding: .utf8)
    let after = try String(contentsOfFile: sttyAfterFile, encoding: .utf8)
    #expect(!before.isEmpty && before == after, "the terminal modes (stty -g) are back", sourceLocation: sourceLocation)
  }

  private func expectNoUI(_ screen: Screen, status: Int32, sourceLocation: SourceLocation) {
    #expect(
      screen.nonEmptyLines == ["EXITED \(status)"], "the normal screen shows only the shell's output:\n\(screen.framed)",
      sourceLocation: sourceLocation)
    #expect(!screen.contains("Browse") && !screen.contains("│"), "Folio's UI is gone", sourceLocation: sourceLocation)
  }
}

/// A captured screen: the pane's rows as text.
struct Screen: CustomStringConvertible, Equatable {
  let lines: [String]

  init(text: String) {
    var rows = text.components(separatedBy: "\n")
    if rows.last == "" { rows.removeLast() }
    lines = rows
  }

  var text: String { lines.joined(separator: "\n") }
  var description: String { text }
  var nonEmptyLines: [String] { lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
  /// The screen in a frame, for failure messages (trailing blanks made visible).
  var framed: String { lines.enumerated().map { String(format: "%2d|", $0.offset) + $0.element + "|" }.joined(separator: "\n") }

  func contains(_ text: String) -> Bool { lines.contains { $0.contains(text) } }

  /// The rows whose sidebar divider (the column of the first `│` on row 2) is broken, between the
  /// tab bar and the status line: a name that moved the cursor or cleared part of the screen
  /// breaks it.
  var rowsWithBrokenDivider: [Int] {
    guard lines.count > 2, let bar = lines[2].firstIndex(of: "│") else { return Array(lines.indices) }
    let divider = lines[2].distance(from: lines[2].startIndex, to: bar)
    return (1..<(lines.count - 1)).filter { row in
      let line = lines[row]
      return !(line.count > divider && line[line.index(line.startIndex, offsetBy: divider)] == "│")
    }
  }

  /// The rows between Browse's header (tabs, path bar, column titles) and the status line.
  var listRows: ArraySlice<String> { lines.count > 4 ? lines[3..<(lines.count - 1)] : [] }

  /// Whether a row of the list shows `text` (the status line may name it in a message).
  func listShows(_ text: String) -> Bool { listRows.contains { $0.contains(text) } }

  /// The index of the first row containing `text`.
  func row(containing text: String) -> Int? { lines.firstIndex { $0.contains(text) } }

  /// The entries of the box whose top border carries `title` (`┌─ title ─…┐`): the text of each
  /// row between the borders, trimmed. (Columns are counted in characters: the boxes' contents in
  /// these tests are all one column wide.)
  func boxEntries(titled title: String) -> [String] {
    guard let top = lines.firstIndex(where: { $0.contains("┌─ \(title)") }) else { return [] }
    let border = Array(lines[top])
    guard let left = border.firstIndex(of: "┌"), let right = border.lastIndex(of: "┐"), right > left + 1 else { return [] }
    var out: [String] = []
    for line in lines[(top + 1)...] {
      let row = Array(line)
      guard row.count > left, row[left] != "└" else { break }
      out.append(String(row[(left + 1)..<min(right, row.count)]).trimmingCharacters(in: .whitespaces))
    }
    return out
  }
}

enum FolioBinary {
  /// The test bundle is built into the same directory as the products (`.build/<triple>/debug`),
  /// so the binary is looked for next to the running test executable first, then at
  /// `.build/debug/folio` under the package root.
  static let candidates: [String] = {
    var out: [String] = []
    if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
      out.append(URL(fileURLWithPath: exe).deletingLastPathComponent().appendingPathComponent("folio").path)
    }
    let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    out.append(packageRoot.appendingPathComponent(".build/debug/folio").path)
    return out
  }()

  static func path(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    try #require(
      candidates.first { access($0, X_OK) == 0 },
      "the folio binary is missing (looked at \(candidates.joined(separator: ", "))): run `swift build` before `swift test`",
      sourceLocation: sourceLocation)
  }
}

/// Quotes a word for /bin/sh.
func shellQuote(_ word: String) -> String {
  "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
}
