import ExtensionHost
import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// `folio-serve`, the server's own executable (docs/DECISIONS.md, "The server is its own
/// executable"): looked for beside the running `folio` first, where `scripts/install` and
/// `swift build` put it, so a `folio` runs the server built with it; then on `PATH`.
enum ServeExecutable {
  static let name = "folio-serve"

  /// The executable's path, or an error naming where it was looked for.
  static func locate(
    beside directory: String? = ExtensionCommand.binaryDirectory,
    path: String? = ProcessInfo.processInfo.environment["PATH"]
  ) throws(ProviderError) -> String {
    var places: [String] = []
    if let directory {
      let candidate = directory + "/" + name
      if isExecutableFile(candidate) { return candidate }
      places.append(directory)
    }
    for dir in (path ?? "").split(separator: ":").map(String.init) where !dir.isEmpty {
      if isExecutableFile(dir + "/" + name) { return dir + "/" + name }
    }
    places.append("PATH")
    throw ProviderError(
      .ioError,
      "\(name) was not found (looked in \(places.map(TerminalText.escape).joined(separator: ", "))): "
        + "install it beside folio (scripts/install does)")
  }

  /// Replaces this process with `folio-serve serve ARGUMENTS…`: the same process id, so a
  /// signal or a `kill` meant for `folio serve` reaches the server, and its exit status is
  /// the command's.
  static func exec(_ arguments: [String]) -> Never {
    let path: String
    do throws(ProviderError) { path = try locate() } catch {
      Console.err(error.message)
      exit(1)
    }
    let argv = [path, "serve"] + arguments
    var cArgs = argv.map { strdup($0) }
    cArgs.append(nil)
    execv(path, cArgs)
    Console.err("cannot run \(TerminalText.escape(path)) (errno \(errno))")
    exit(1)
  }

  private static func isExecutableFile(_ path: String) -> Bool {
    var st = stat()
    guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return false }
    return access(path, X_OK) == 0
  }
}
