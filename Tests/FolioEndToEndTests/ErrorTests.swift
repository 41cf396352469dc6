import Foundation
import TestExecution
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// User errors: one line on stderr starting "folio: ", nothing on stdout, a documented exit code,
/// no stack trace, and nothing changed.
@Suite(.offThePool) struct ErrorTests {
  /// Every command that takes an item, given one that does not exist.
  static let missingItemCommands: [[Arg]] = [
    ["info", "missing.txt"], ["info", "--json", "missing.txt"], ["ls", "missing.txt"], ["open", "missing.txt"],
    ["tag", "missing.txt"], ["tag", "missing.txt", "--add", "Red"], ["favorite", "missing.txt"],
    ["rename", "missing.txt", "new.txt"], ["mv", "missing.txt", "."], ["cp", "missing.txt", "."],
    ["rm", "missing.txt"], ["actions", "missing.txt"], ["action", "x", "missing.txt"], ["mkdir", "missing/x"],
  ]

  @Test(arguments: missingItemCommands)
  func noSuchItem(_ arguments: [Arg]) throws {
    let s = try Sandbox()
    try s.file("present.txt", "p")
    let r = try s.folio(arguments, environment: ["EDITOR": "/bin/true"])
    #expect(r.failedCleanly(), "\(r)")
    #expect(r.err.contains(s.path("missing")), "the message names the path: \(r)")
    #expect(r.err.contains("No such file or directory"), "\(r)")
    #expect(s.textNames() == ["present.txt"])
  }

  /// A folder that cannot be read or written: the error says so, and nothing changes.
  @Test func permissionDenied() throws {
    let s = try Sandbox()
    try s.file("locked/secret.txt", "s")
    try s.folder("readonly")
    try s.file("movable.txt", "m")
    #expect(chmod(s.path("locked"), 0o000) == 0)
    #expect(chmod(s.path("readonly"), 0o555) == 0)
    defer {
      _ = chmod(s.path("locked"), 0o755)
      _ = chmod(s.path("readonly"), 0o755)
    }
    let attempts: [[Arg]] = [
      ["ls", "locked"], ["info", "locked/secret.txt"], ["mkdir", "readonly/new"], ["mv", "movable.txt", "readonly"],
    ]
    for arguments in attempts {
      // Root (CI) passes every permission check: run without the capabilities that let it.
      let r = try s.folioBoundByPermissions(arguments)
      #expect(r.failedCleanly(), "\(r)")
      #expect(r.err.contains("Permission denied"), "\(r)")
    }
    #expect(s.textNames(in: "readonly").isEmpty)
    #expect(s.contents("movable.txt") == "m")
  }

  /// A config file Folio cannot use stops every command with exit 3 and file:line: key.
  @Test(arguments: [
    ("theme = [\n", ":1"),
    ("cache_budget = \"lots\"\n", ":1: cache_budget: "),
    ("theme = \"default-dark\"\ntheem = \"x\"\n", ":2: theem: "),
    ("[[action]]\nname = \"x\"\nrule = \"TRUEPREDICATE\"\ncommand = \"ls\"\n", ":4: action[0].command: "),
    ("[[action]]\nname = \"x\"\nrule = \"TRUEPREDICATE\"\ncommand = [\"echo\", \"--out={path}\"]\n", ":4: action[0].command: "),
    ("[[domain]]\nname = \"local\"\ntype = \"local\"\nroot = \"/tmp\"\n", ":2: domain[0].name: "),
    // [keys] is read by the browser's key map: a typo there used to be dropped, leaving quit unbound.
    ("[keys]\nquit = \"hyper-q\"\n", ":2: keys.quit: unknown key \"hyper-q\""),
    ("[keys]\nopen = [\n  \"enter\",\n  \"hyperl\",\n]\n", ":4: keys.open: unknown key \"hyperl\""),
    ("[keys]\ndown = \"j\"\nquitt = \"x\"\n", ":3: keys.quitt: unknown command \"quitt\" (did you mean \"quit\"?)"),
    ("[keys]\nsort = \"ctrl-c\"\n", ":2: keys.sort: ctrl-c always quits"),
  ])
  func badConfigExitsThree(_ toml: String, _ expected: String) throws {
    let s = try Sandbox()
    try s.file("a.txt", "a")
    let file = try s.config(toml)
    // [] is the browser: the config is refused before it looks for a terminal.
    for arguments: [Arg] in [[], ["ls"], ["info", "a.txt"], ["rm", "a.txt"], ["trash"], ["recents"]] {
      let r = try s.folio(arguments)
      #expect(r.failedCleanly(3), "\(r)")
      #expect(r.err.hasPrefix("folio: \(file)\(expected)"), "\(r)")
    }
    #expect(s.contents("a.txt") == "a", "rm ran despite the bad config")
  }

  /// A user error never prints a Swift crash report, even for odd input.
  @Test func oddInputIsAnErrorNotACrash() throws {
    let s = try Sandbox()
    for arguments: [Arg] in [["info", ""], ["ls", ""], ["mv", "", ""], ["rename", "", "x"], ["tag", "", "--add", "x"]] {
      let r = try s.folio(arguments)
      #expect(r.status == 1 || r.status == 2, "\(r)")
      #expect(r.signal == nil, "\(r)")
      #expect(!r.err.contains("Fatal error") && !r.err.contains("Stack dump"), "\(r)")
    }
  }
}
