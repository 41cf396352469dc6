import ArgumentParser
import ProviderAPI
import Testing

@testable import FolioCommandLine

/// `folio ls` is read without ArgumentParser when its arguments are the plain forms
/// (`ListOptions(quickArguments:)`): what it reads must be what ArgumentParser reads, and
/// everything else must be left to ArgumentParser (help, errors, the forms it alone knows).
@Suite struct ListQuickParseTests {
  /// The options ArgumentParser gives for the same arguments.
  static func parsed(_ arguments: [String]) throws -> ListOptions {
    try ListCommand.parse(arguments).options
  }

  @Test func theQuickReadingIsArgumentParsers() throws {
    let lines: [[String]] = [
      [], ["docs"], ["NAME:/a b/c"], ["--json"], ["-a"], ["--all", "x"], ["x", "--all"],
      ["--sort", "date"], ["--sort=size", "--reverse"], ["--sort", "kind", "--no-folders-first", "--json", "p"],
      ["--folders-first"], ["--limit", "0"], ["--limit=25", "--json"], ["--limit", "7", "some/path", "-a", "--reverse"],
      ["./-dash"], ["名前 🎉"],
    ]
    for line in lines {
      let quick = try #require(ListOptions(quickArguments: line), "\(line) should be read quickly")
      #expect(quick == (try Self.parsed(line)), "\(line)")
    }
  }

  /// Help, unknown or repeated options, missing or bad values, `--` and a second path: nil,
  /// so that ArgumentParser reads them and reports its usual errors.
  @Test func everythingElseIsLeftToArgumentParser() {
    let lines: [[String]] = [
      ["--help"], ["-h"], ["--version"], ["--sort"], ["--sort", "colour"], ["--sort="], ["--limit"], ["--limit", "-1"],
      ["--limit", "ten"], ["--limit", "+3"], ["--json", "--json"], ["-a", "--all"], ["--folders-first", "--no-folders-first"],
      ["--json=yes"], ["--", "-x"], ["-"], ["a", "b"], [""], ["-aj"], ["--generate-completion-script", "bash"], ["--unknown"],
    ]
    for line in lines {
      #expect(ListOptions(quickArguments: line) == nil, "\(line)")
    }
  }
}
