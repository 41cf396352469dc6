import ArgumentParser
import FolioServer
import Foundation
import ProviderAPI

/// `folio serve admin seed`: a folder of many entries on a server root, made in one transaction.
///
/// For benchmarks and tests (folio-bench remote lists a 100,000-entry folder): creating that many
/// items through the protocol costs one fsynced transaction each. Run it while the server is
/// stopped (see `ServerSeeder`).
struct AdminSeedCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "seed",
    abstract: "Create a folder of N small entries in the root (benchmarks and tests; server stopped).",
    discussion: """
      Every hundredth entry is a folder, the rest are files of 0 or 1 byte with dates over the \
      last year. Prints the new folder's identifier.
      """)

  @OptionGroup var root: AdminRoot
  @Option(help: ArgumentHelp("The new folder's name, in the root.", valueName: "NAME")) var folder: String
  @Option(parsing: .unconditional, help: ArgumentHelp("How many entries to create.", valueName: "N")) var entries: Int
  @Option(help: ArgumentHelp("The user who owns them.", valueName: "NAME")) var owner: String

  func validate() throws {
    if entries < 0 { throw ValidationError("--entries cannot be negative") }
  }

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let seeder = try ServerSeeder(root: URL(fileURLWithPath: root.root).standardizedFileURL)
      let result = try seeder.seedFolder(named: folder, entries: entries, owner: owner)
      Console.out(result.folder)
    }
  }
}
