import Foundation
import PackagePlugin

/// Writes the commit `folio --version` reports into a generated Swift file, whenever it may have
/// changed.
///
/// A build command, rerun by the build system when one of its inputs changes: the files git
/// updates when HEAD moves or the index changes (`HEAD`, `index`, `logs/HEAD`, the branch's ref),
/// every source file of the package (an edit may make the tree dirty) and BUILD_COMMIT. Not a
/// prebuild command: SwiftPM runs those only when it plans the build anew (a file added, the
/// manifest changed), so a new commit kept the old hash. The command is `/bin/sh
/// scripts/build-info`, which rewrites the file only when its text changes, so a build at the same
/// commit recompiles nothing. Why this and not a script run before `swift build`:
/// docs/DECISIONS.md, "The commit in `folio --version`".
@main struct BuildInfoPlugin: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
    let package = context.package.directoryURL
    let output = context.pluginWorkDirectoryURL.appending(path: "BuildCommit.swift")
    var inputs = Self.gitFiles(package) + [package.appending(path: "BUILD_COMMIT"), package.appending(path: "Package.swift")]
    for case let module as any SourceModuleTarget in context.package.targets {
      inputs += module.sourceFiles.map(\.url)
    }
    inputs = inputs.filter { FileManager.default.fileExists(atPath: $0.path) }
    return [
      .buildCommand(
        displayName: "Recording the commit for folio --version",
        executable: URL(fileURLWithPath: "/bin/sh"),
        arguments: [package.appending(path: "scripts/build-info").path, package.path, output.path],
        inputFiles: inputs, outputFiles: [output])
    ]
  }

  /// The files git rewrites when HEAD moves or the index changes, for a checkout or a worktree
  /// (`.git` a file naming the git directory); none without `.git`.
  static func gitFiles(_ package: URL) -> [URL] {
    let dotGit = package.appending(path: ".git")
    var gitDir = dotGit
    if let text = try? String(contentsOf: dotGit, encoding: .utf8), text.hasPrefix("gitdir:") {
      let path = text.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines)
      gitDir = path.hasPrefix("/") ? URL(fileURLWithPath: path) : package.appending(path: path)
    }
    // A worktree's refs are in the common directory (`commondir`, relative to the git directory).
    var common = gitDir
    if let text = try? String(contentsOf: gitDir.appending(path: "commondir"), encoding: .utf8) {
      let path = text.trimmingCharacters(in: .whitespacesAndNewlines)
      common = path.hasPrefix("/") ? URL(fileURLWithPath: path) : gitDir.appending(path: path)
    }
    var files = [gitDir.appending(path: "HEAD"), gitDir.appending(path: "index"), gitDir.appending(path: "logs/HEAD")]
    if let head = try? String(contentsOf: gitDir.appending(path: "HEAD"), encoding: .utf8), head.hasPrefix("ref:") {
      let ref = head.dropFirst("ref:".count).trimmingCharacters(in: .whitespacesAndNewlines)
      files += [common.appending(path: ref), common.appending(path: "packed-refs")]
    }
    return files
  }
}
