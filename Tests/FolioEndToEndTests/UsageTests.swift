import TestExecution
import Testing

/// `--help`, unknown flags and exit codes: what a script sees before any file is touched.
@Suite(.offThePool) struct UsageTests {
  static let subcommands = [
    "ls", "info", "open", "recents", "search", "tag", "favorite", "rename", "mv", "cp", "mkdir", "rm", "trash",
    "actions", "action",
  ]

  @Test(arguments: subcommands)
  func helpExitsZeroAndShowsUsage(_ subcommand: String) throws {
    let sandbox = try Sandbox()
    let r = try sandbox.folio(Arg(subcommand), "--help")
    #expect(r.succeeded, "\(r)")
    #expect(r.out.contains("USAGE: folio \(subcommand)"), "\(r)")
    #expect(r.out.contains("OVERVIEW: "), "\(r)")
  }

  /// The browser without a terminal (stdin from /dev/null, output to a pipe: a script, cron) says
  /// so in one line; it died of SIGILL with a backtrace (a dispatch source released suspended).
  @Test func theBrowserWithoutATerminalSaysSoInOneLine() throws {
    let sandbox = try Sandbox()
    let r = try sandbox.folio([])
    #expect(r.signal == nil && r.status == 1, "\(r)")
    #expect(r.errLines == ["folio: the full-screen browser needs a terminal, but standard input is not one"], "\(r)")
  }

  /// The top-level help lists every subcommand, so none is hidden from a person reading it.
  @Test func topLevelHelpListsEverySubcommand() throws {
    let sandbox = try Sandbox()
    let r = try sandbox.folio("--help")
    #expect(r.succeeded, "\(r)")
    let listed = Set(r.outLines.compactMap { $0.split(separator: " ").first.map(String.init) })
    for sub in Self.subcommands { #expect(listed.contains(sub), "\(sub) is not in `folio --help`:\n\(r.out)") }
  }

  /// Arguments that satisfy each subcommand's required positionals, so that the unknown flag is
  /// the only thing wrong.
  static let positionals: [String: [Arg]] = [
    "info": ["x"], "open": ["x"], "search": ["q"], "tag": ["x"], "favorite": ["x"], "rename": ["x", "y"],
    "mv": ["x", "y"], "cp": ["x", "y"], "mkdir": ["x"], "rm": ["x"], "actions": ["x"], "action": ["n", "x"],
  ]

  /// Usage errors exit 2 (ArgumentParser's own default is 64) and say what was wrong on stderr.
  @Test(arguments: subcommands)
  func unknownFlagExitsTwo(_ subcommand: String) throws {
    let sandbox = try Sandbox()
    try sandbox.file("x", "keep")
    let r = try sandbox.folio([Arg(subcommand)] + Self.positionals[subcommand, default: []] + ["--no-such-flag"])
    #expect(sandbox.contents("x") == "keep")
    #expect(r.status == 2, "\(r)")
    #expect(r.stdout.isEmpty, "\(r)")
    #expect(r.err.contains("--no-such-flag"), "\(r)")
  }

  @Test func otherUsageErrorsExitTwo() throws {
    let sandbox = try Sandbox()
    for arguments: [Arg] in [["mv", "only-one"], ["ls", "--sort", "colour"], ["trash", "restore"]] {
      let r = try sandbox.folio(arguments)
      #expect(r.status == 2, "\(r)")
      #expect(!r.stderr.isEmpty, "\(r)")
    }
    // `folio PATH` opens the UI at PATH: a word that is no subcommand is a path, and a missing
    // one is an operation error (exit 1), reported before the terminal is touched.
    let r = try sandbox.folio(["frobnicate"])
    #expect(r.status == 1, "\(r)")
    #expect(r.err.contains("frobnicate"), "\(r)")
  }

  /// A usage error is one line, `folio: …` with where the help is, as the README says of every
  /// error: ArgumentParser printed "Error: …", the usage and a "See …" line.
  @Test(arguments: [
    (["mv", "only-one"], "folio mv --help"), (["ls", "--sort", "colour"], "folio ls --help"),
    (["trash", "restore"], "folio trash --help"), (["ls", "--no-such-flag"], "folio ls --help"),
    (["search", ""], "folio search --help"), (["search", " ", "  "], "folio search --help"),
    (["ls", "--limit"], "folio ls --help"), (["--no-such-flag"], "folio browse --help"),
  ] as [([String], String)])
  func usageErrorsAreOneLineWithTheHelpToRead(_ arguments: [String], _ help: String) throws {
    let sandbox = try Sandbox()
    let r = try sandbox.folio(arguments.map { Arg($0) })
    #expect(r.failedCleanly(2), "\(r)")
    #expect(!r.err.contains("Error:") && !r.err.contains("Usage:") && !r.err.contains("USAGE:"), "\(r)")
    #expect(r.err.hasSuffix(" (see '\(help)')\n"), "\(r)")
  }

  @Test func anEmptySearchIsAUsageError() throws {
    let sandbox = try Sandbox()
    let r = try sandbox.folio("search", "")
    #expect(r.errLines == ["folio: the query is empty: give words to look for (see 'folio search --help')"], "\(r)")
  }

  @Test func versionPrintsAndExitsZero() throws {
    let sandbox = try Sandbox()
    let r = try sandbox.folio("--version")
    #expect(r.succeeded, "\(r)")
    // `folio 0.1.0 (cbed9f4)`: the commit is InstallationTests' business.
    #expect(r.out.hasPrefix("folio ") && r.out.dropFirst("folio ".count).first?.isNumber == true, "\(r)")
    #expect(r.stderr.isEmpty, "\(r)")
  }
}
