import ArgumentParser
import ExtensionConformance
import Foundation
import ProviderAPI

/// `folio ext`: tools for extension authors (docs/EXTENSIONS.md).
struct ExtCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ext",
    abstract: "Tools for writing a Folio extension (docs/EXTENSIONS.md).",
    subcommands: [ExtTestCommand.self])
}

/// `folio ext test -- COMMAND ARGS…`: the conformance kit, as `git annex testremote` is for a
/// special remote. One line per check; the transcript of each failure; exit 1 on any failure.
struct ExtTestCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "test",
    abstract: "Run the conformance kit against an extension: every check of docs/EXTENSIONS.md §6.",
    discussion: """
      folio ext test [--config K=V…] [--unavailable K=V…] [--trace] [--only GROUP…]
                     [--fixture PATH] -- COMMAND ARGS…
      folio ext test --make-fixture DIR

      Groups: \(ConformanceOptions.groups.joined(separator: ", ")).
      The kit starts COMMAND (an argv, never a shell) with a scratch stateDir and stagingDir, \
      creates its data in a folder folio-kit-XXXXXXXX of the location's root and deletes it at \
      the end. A read-only extension is pointed at prepared data with --fixture (the path, from \
      the location's root, of a folder --make-fixture wrote). Exit status: 0 every check passed \
      or was skipped, 1 a check failed, 2 usage error.
      """)

  @Option(name: .customLong("config"), help: "A setting passed in initialize's config (repeatable).")
  var config: [String] = []
  @Option(name: .customLong("unavailable"), help: "A setting under which the storage cannot be reached (repeatable): runs the unavailable group.")
  var unavailable: [String] = []
  @Flag(help: "Print every line sent and received.") var trace = false
  @Option(name: .customLong("only"), help: "Run only this group (repeatable, or comma-separated).")
  var only: [String] = []
  @Option(help: "For a read-only extension: the path from the root of a prepared fixture folder.")
  var fixture: String?
  @Option(name: .customLong("make-fixture"), help: "Write the fixture folder into DIR and exit.")
  var makeFixture: String?
  @Option(name: .customLong("big-mib"), help: "The size of the big file of the concurrency group, in MiB (default 64).")
  var bigMiB: Int = 64
  @Argument(parsing: .postTerminator, help: "The extension's command and arguments, after --.")
  var command: [String] = []

  func validate() throws {
    if makeFixture == nil && command.isEmpty { throw ValidationError("give the extension's command after --") }
    let groups = Set(ConformanceOptions.groups)
    for group in onlyGroups where !groups.contains(group) {
      throw ValidationError("no group '\(group)' (groups: \(ConformanceOptions.groups.joined(separator: ", ")))")
    }
    _ = try settings(config, "--config")
    _ = try settings(unavailable, "--unavailable")
    if bigMiB < 1 { throw ValidationError("--big-mib must be at least 1") }
  }

  private var onlyGroups: [String] {
    only.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
  }

  private func settings(_ pairs: [String], _ option: String) throws -> [String: String] {
    var out: [String: String] = [:]
    for pair in pairs {
      guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
        throw ValidationError("\(option) takes KEY=VALUE, not '\(pair)'")
      }
      out[String(pair[..<eq])] = String(pair[pair.index(after: eq)...])
    }
    return out
  }

  func run() throws {
    if let makeFixture {
      do {
        try FixtureLayout.write(to: makeFixture)
      } catch {
        Console.err("cannot write the fixture in \(TerminalText.escape(makeFixture)): \(TerminalText.escape(error.localizedDescription))")
        throw ExitCode(1)
      }
      Console.out("wrote \(TerminalText.escape(makeFixture))/\(FixtureLayout.pagingFolder) and \(FixtureLayout.contentFile)")
      return
    }
    var options = ConformanceOptions(command: command)
    options.config = try settings(config, "--config")
    options.unavailable = unavailable.isEmpty ? nil : try settings(unavailable, "--unavailable")
    options.trace = trace
    options.only = Set(onlyGroups)
    options.fixture = fixture
    options.bigSize = bigMiB << 20
    let kit: ConformanceKit
    do {
      kit = try ConformanceKit(options: options) { line in Console.out(line) }
    } catch {
      Console.err(TerminalText.escape("\(error)"))
      throw ExitCode(1)
    }
    let results = kit.run()
    if results.contains(where: \.isFailure) { throw ExitCode(1) }
  }
}
