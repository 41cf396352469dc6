import Foundation
import TestExecution
import Testing

/// `actions` and `action` with user actions declared in config.toml: rules decide what is
/// offered, and the program runs with an argv built from whole placeholders, never a shell.
@Suite(.offThePool) struct ActionCommandTests {
  /// A sandbox with a recording script and a config declaring:
  /// - "Record" (`user.record`): .txt files only, `[script, "--", {paths}]`;
  /// - "Describe": exactly one item, `[script, {name}, {folder}, {path}]`;
  /// - "Dangerous": any selection, asks first;
  /// - "Fails": exits 4.
  static func sandbox() throws -> (Sandbox, script: String, argvFile: String) {
    let s = try Sandbox()
    let argvFile = s.root + "/argv"
    let script = try s.recordingScript("bin/record", argvFile: argvFile)
    let failing = try s.script("bin/fail", "exit 4\n")
    try s.config(
      """
      [[action]]
      name = "Record"
      id = "user.record"
      rule = 'extension == "txt"'
      command = ["\(script)", "--", "{paths}"]

      [[action]]
      name = "Describe"
      rule = 'count == 1'
      command = ["\(script)", "{name}", "{folder}", "{path}"]

      [[action]]
      name = "Dangerous"
      rule = 'TRUEPREDICATE'
      command = ["\(script)", "{path}"]
      confirm = true

      [[action]]
      name = "Fails"
      rule = 'TRUEPREDICATE'
      command = ["\(failing)"]
      """)
    return (s, script, argvFile)
  }

  static func offered(_ s: Sandbox, _ items: Arg...) throws -> [String?] {
    let r = try s.folio(["actions", "--json"] + items)
    #expect(r.succeeded, "\(r)")
    return try #require(r.json().array).map { $0["name"]?.string }
  }

  @Test func actionsListsOnlyThoseWhoseRuleMatches() throws {
    let (s, _, _) = try Self.sandbox()
    try s.file("x.txt", "x")
    try s.file("y.png", "y")

    let r = try s.folio("actions", "x.txt", "--json")
    #expect(r.succeeded, "\(r)")
    let actions = try #require(r.json().array)
    let record = try #require(actions.first { $0["name"] == .string("Record") }, "Record is not offered: \(r)")
    #expect(record["id"] == .string("user.record"))
    #expect(record["rule"] == .string(#"extension == "txt""#))
    #expect(record["source"] == .string("config"))
    #expect(try Self.offered(s, "x.txt") == ["Record", "Describe", "Dangerous", "Fails"])
    #expect(try Self.offered(s, "y.png") == ["Describe", "Dangerous", "Fails"])

    let human = try s.folio("actions", "y.png")
    #expect(human.succeeded, "\(human)")
    #expect(!human.out.contains("Record"), "\(human)")
    #expect(human.out.contains("Describe"), "\(human)")
  }

  @Test func actionRunsWithTheExactArgv() throws {
    let (s, script, argvFile) = try Self.sandbox()
    try s.file("x.txt", "x")
    try s.file("$(touch pwned);b.txt", "b")

    let r = try s.folio("action", "Record", "x.txt", "$(touch pwned);b.txt")
    #expect(r.succeeded, "\(r)")
    let argv = try #require(s.recordedArgv(argvFile), "the action did not run: \(r)")
    #expect(argv == [script, "--", s.path("x.txt"), s.path("$(touch pwned);b.txt")].map { Array($0.utf8) })
    #expect(!s.exists("pwned"))

    // By id, and with the other placeholders.
    try FileManager.default.removeItem(atPath: argvFile)
    #expect(try s.folio("action", "user.record", "x.txt").succeeded)
    #expect(s.recordedArgv(argvFile) == [script, "--", s.path("x.txt")].map { Array($0.utf8) })

    try s.file("sub/-rf", "r")
    #expect(try s.folio("action", "Describe", "sub/-rf").succeeded)
    #expect(s.recordedArgv(argvFile) == [script, "-rf", s.path("sub"), s.path("sub/-rf")].map { Array($0.utf8) })
  }

  @Test func actionRefusesWhatItsRuleDoesNotMatch() throws {
    let (s, _, argvFile) = try Self.sandbox()
    try s.file("y.png", "y")
    try s.file("x.txt", "x")

    let r = try s.folio("action", "Record", "y.png")
    #expect(r.failedCleanly(), "\(r)")
    #expect(s.recordedArgv(argvFile) == nil, "the action ran on a selection its rule refuses")

    let two = try s.folio("action", "Describe", "x.txt", "y.png")
    #expect(two.failedCleanly(), "\(two)")
    #expect(s.recordedArgv(argvFile) == nil)

    let unknown = try s.folio("action", "Nope", "x.txt")
    #expect(unknown.failedCleanly(), "\(unknown)")
    #expect(unknown.err.contains("Nope") && unknown.err.contains("Record"), "names the known ones: \(unknown)")
  }

  /// An action that asks first runs only with --yes when there is no terminal to ask on.
  @Test func confirmationAndFailure() throws {
    let (s, script, argvFile) = try Self.sandbox()
    try s.file("x.txt", "x")

    let unconfirmed = try s.folio("action", "Dangerous", "x.txt")
    #expect(unconfirmed.failedCleanly(), "\(unconfirmed)")
    #expect(unconfirmed.err.contains("--yes"), "\(unconfirmed)")
    #expect(s.recordedArgv(argvFile) == nil)

    #expect(try s.folio("action", "Dangerous", "x.txt", "--yes").succeeded)
    #expect(s.recordedArgv(argvFile) == [script, s.path("x.txt")].map { Array($0.utf8) })

    let fails = try s.folio("action", "Fails", "x.txt")
    #expect(fails.failedCleanly(), "\(fails)")
    #expect(fails.err.contains("4"), "\(fails)")
  }

  /// A rule that does not parse is a config error: exit 3, and the line names the file, the line
  /// and the key, for every command (they all read the config).
  @Test func badRuleInConfigExitsThree() throws {
    let s = try Sandbox()
    try s.file("x.txt", "x")
    let file = try s.config(
      """
      # line 1
      [[action]]
      name = "Broken"
      rule = 'extension =='
      command = ["/bin/true", "{path}"]
      """)
    for arguments: [Arg] in [["actions", "x.txt"], ["action", "Broken", "x.txt"], ["ls"]] {
      let r = try s.folio(arguments)
      #expect(r.failedCleanly(3), "\(r)")
      #expect(r.err.hasPrefix("folio: \(file):4: action[0].rule: "), "\(r)")
    }

    try s.config(
      """
      [[action]]
      name = "Misspelt"
      rule = 'extenson == "txt"'
      command = ["/bin/true"]
      """)
    let misspelt = try s.folio("actions", "x.txt")
    #expect(misspelt.failedCleanly(3), "\(misspelt)")
    #expect(misspelt.err.contains("\(file):3: action[0].rule"), "\(misspelt)")
  }
}
