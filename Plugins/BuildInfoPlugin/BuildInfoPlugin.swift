import Foundation
import PackagePlugin

/// Writes the commit `folio --version` reports, at every build, into a generated Swift file.
///
/// A prebuild command rather than a build command: a build command runs only when its declared
/// inputs change, and "the checked-out commit, and whether the tree is clean" is no file SwiftPM can
/// watch. The command is `/bin/sh scripts/build-info`, which rewrites the file only when its text
/// changes, so a build at the same commit recompiles nothing. Why this and not a script run before
/// `swift build`: docs/DECISIONS.md, "The commit in `folio --version`".
@main struct BuildInfoPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
    let output = context.pluginWorkDirectoryURL.appending(path: "Generated")
    let package = context.package.directoryURL
    return [
      .prebuildCommand(
        displayName: "Recording the commit for folio --version",
        executable: URL(fileURLWithPath: "/bin/sh"),
        arguments: [package.appending(path: "scripts/build-info").path, package.path, output.path],
        outputFilesDirectory: output)
    ]
  }
}
