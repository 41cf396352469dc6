import Foundation
import TestExecution
import Testing

/// What an installation is made of, from the built binary: `--version`, the completion scripts and
/// the man page (scripts/manpage). The installation itself: TerminalEndToEndTests' InstallTests.
@Suite(.offThePool) struct InstallationTests {
  static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

  /// `folio 0.1.0 (cbed9f4)`: the version, and the commit the build found (scripts/build-info),
  /// which is a commit of this repository when the package is a git checkout.
  @Test func versionNamesTheVersionAndTheCommit() throws {
    let sandbox = try Sandbox()
    let r = try sandbox.folio("--version")
    #expect(r.succeeded, "\(r)")
    let line = try #require(r.outLines.first)
    #expect(r.outLines.count == 1, "\(r)")
    let match = try #require(
      line.wholeMatch(of: /folio \d+\.\d+\.\d+ \((?<commit>[0-9a-f]{7,40}(?:\+dirty)?|unknown commit)\)/), "\(r)")
    let commit = String(match.output.commit)
    guard commit != "unknown commit", let git = FolioRunner.which("git", path: sandbox.environment["PATH"]!),
      FileManager.default.fileExists(atPath: Self.packageRoot + "/.git")
    else { return }
    // Any commit of the repository (a test run after a new commit, with --skip-build, is fine).
    let hash = commit.replacingOccurrences(of: "+dirty", with: "")
    let known = try FolioRunner.run(
      git, ["-c", "safe.directory=*", "-C", Arg(Self.packageRoot), "cat-file", "-e", Arg(hash + "^{commit}")],
      environment: sandbox.environment, directory: sandbox.work)
    #expect(known.succeeded, "\(hash) is no commit of this repository: \(known)")
  }

  /// ArgumentParser writes the scripts through Folio's own entry point (FolioCommand.start), and
  /// each shell installed here reads its script without a syntax error.
  @Test(arguments: ["bash", "zsh", "fish"])
  func completionScriptParses(_ shell: String) throws {
    let sandbox = try Sandbox()
    let r = try sandbox.folio("--generate-completion-script", Arg(shell))
    #expect(r.succeeded && r.err.isEmpty, "\(r)")
    #expect(r.out.contains("folio"), "\(r)")
    #expect(r.out.contains("domain"), "the subcommands are completed: \(r)")
    let script = try sandbox.file("completion.\(shell)", r.out)
    guard let program = FolioRunner.which(shell, path: sandbox.environment["PATH"]!) else {
      // bash is always there (CI); zsh and fish are checked where they are installed.
      #expect(shell != "bash", "bash is missing")
      return
    }
    let check = try FolioRunner.run(program, ["-n", Arg(script)], environment: sandbox.environment, directory: sandbox.work)
    #expect(check.succeeded && check.err.isEmpty, "\(shell) -n rejects the script: \(check)")
  }

  /// The man page made from the binary's own help renders with no groff warning, and has the
  /// commands, the keys of `?` and the files.
  @Test func manPageRendersWithoutWarnings() throws {
    let sandbox = try Sandbox()
    let binary = try FolioRunner.binary()
    let page = sandbox.path("folio.1")
    let made = try Self.manpage(["--folio", Arg(binary), "--output", Arg(page)], sandbox)
    #expect(made.succeeded && made.err.isEmpty, "\(made)")
    let text = try Self.render(page, sandbox)
    for heading in ["NAME", "SYNOPSIS", "OPTIONS", "COMMANDS", "KEYS", "FILES", "ENVIRONMENT"] {
      #expect(text.contains("\n\(heading)\n"), "no \(heading) section:\n\(text)")
    }
    // A command, an option, a key from KeyMap's help, a file.
    // … and the legend of the marks beside names, as `?` shows it.
    for expected in [
      "folio ls [options] [path]", "--chooser-file", "Shell command on the selection", "index.sqlite",
      "Marks beside names", "In the cloud, not downloaded", "Conflict: both versions kept",
      // `folio serve`'s own commands, from the folio-serve beside the binary.
      "folio serve admin user add",
    ] {
      #expect(text.contains(expected), "\(expected) is not in the page:\n\(text)")
    }
    let version = try sandbox.folio("--version").out.trimmingCharacters(in: .whitespacesAndNewlines)
    #expect(text.contains(version), "the page's footer names the version")
  }

  /// `folio help-keys --badges`: the help's legend, every badge once, each with its ASCII form.
  @Test func helpKeysListsTheBadgeLegend() throws {
    let sandbox = try Sandbox()
    let text = try sandbox.folio("help-keys", "--badges")
    #expect(text.succeeded, "\(text)")
    #expect(text.out.contains("In the cloud, not downloaded") && text.out.contains("Favorite"), "\(text)")
    let json = try sandbox.folio("help-keys", "--badges", "--json")
    let rows = try #require(json.json().array)
    #expect(rows.count == text.outLines.count, "\(json)")
    let meanings = rows.compactMap { $0["meaning"]?.string }
    #expect(Set(meanings).count == rows.count, "each mark once: \(meanings)")
    for row in rows {
      let ascii = row["ascii"]?.string ?? ""
      #expect(!ascii.isEmpty && ascii.unicodeScalars.allSatisfy(\.isASCII), "\(row)")
      let glyph = row["glyph"]?.string ?? ""
      #expect(!glyph.isEmpty, "\(row)")
    }
  }

  /// Help text is text, never troff: a line starting with `.` or `'`, a backslash, quotes and
  /// non-ASCII come out as written, with no warning.
  @Test func manPageEscapesHelpText() throws {
    let sandbox = try Sandbox()
    let hostile = #".SH EVIL\n'br quote \"and\" a back\\slash \\fB not bold, \\\" not a comment … ☁ done"#
    try sandbox.file(
      "dump.json",
      """
      {"command": {"commandName": "folio", "abstract": "Files.", "discussion": "\(hostile)",
       "subcommands": [{"commandName": "ls", "abstract": "\(hostile)", "arguments": [
         {"kind": "option", "names": [{"kind": "long", "name": "sort"}], "valueName": "how",
          "abstract": "\(hostile)", "shouldDisplay": true, "isOptional": true}]}]},
       "serializationVersion": 0}
      """)
    try sandbox.file("keys.json", #"[{"keys": ".x \\", "help": "\#(hostile)", "command": "up"}]"#)
    let page = sandbox.path("folio.1")
    let made = try Self.manpage(
      ["--dump", "dump.json", "--keys", "keys.json", "--version", "folio 9.9.9 (\"q\")", "--output", Arg(page)], sandbox)
    #expect(made.succeeded && made.err.isEmpty, "\(made)")
    let text = try Self.render(page, sandbox)
    let shown = #".SH EVIL 'br quote "and" a back\slash \fB not bold, \" not a comment … ☁ done"#
    let flattened = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    let count = flattened.components(separatedBy: shown).count - 1
    #expect(count == 4, "the help text is shown as written 4 times (found \(count)):\n\(text)")
    #expect(flattened.contains(#".x \"#), "\(text)")
    #expect(flattened.contains(#"folio 9.9.9 ("q")"#), "\(text)")
  }

  // MARK: Helpers

  static func manpage(_ arguments: [Arg], _ sandbox: Sandbox) throws -> RunResult {
    try FolioRunner.run(
      packageRoot + "/scripts/manpage", arguments, environment: sandbox.environment, directory: sandbox.work)
  }

  /// The page as `man` shows it at 80 columns, with every groff warning on (`man --warnings`);
  /// a warning fails the test.
  static func render(_ page: String, _ sandbox: Sandbox, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> String
  {
    let groff = try #require(
      FolioRunner.which("groff", path: sandbox.environment["PATH"]!),
      "groff is not installed: `apt-get install groff-base` (scripts/packages)", sourceLocation: sourceLocation)
    let r = try FolioRunner.run(
      groff, ["-ww", "-man", "-Tutf8", "-rLL=80n", "-rHY=0", "-P-cbou", Arg(page)], environment: sandbox.environment,
      directory: sandbox.work)
    #expect(r.succeeded && r.err.isEmpty, "groff warns: \(r.err)", sourceLocation: sourceLocation)
    return r.out
  }
}
