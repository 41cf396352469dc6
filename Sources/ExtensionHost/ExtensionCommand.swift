import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Where an extension's argv[0] is found: as written when it has a slash; else on `PATH`, then
/// beside the running folio binary (where `scripts/install` puts the shipped ones), then in
/// `$XDG_DATA_HOME/folio/extensions/`.
public enum ExtensionCommand {
  /// The executable's path, or a `badConfig` naming every place looked in.
  public static func resolve(
    _ name: String, path: String? = ProcessInfo.processInfo.environment["PATH"], directories: [String]
  ) throws(ProviderError) -> String {
    guard !name.isEmpty else { throw ProviderError(.badConfig, "the extension's command is empty") }
    if name.contains("/") {
      guard isExecutableFile(name) else {
        let why = FileManager.default.fileExists(atPath: name) ? "is not an executable file" : "does not exist"
        throw ProviderError(.badConfig, "the extension \(TerminalText.escape(name)) \(why)")
      }
      return name
    }
    var places: [String] = []
    for dir in (path ?? "").split(separator: ":").map(String.init) where !dir.isEmpty {
      if isExecutableFile(dir + "/" + name) { return dir + "/" + name }
    }
    places.append("PATH")
    for dir in directories {
      if isExecutableFile(dir + "/" + name) { return dir + "/" + name }
      places.append(dir)
    }
    throw ProviderError(
      .badConfig,
      "the extension \(TerminalText.escape(name)) was not found (looked in \(places.map(TerminalText.escape).joined(separator: ", ")))")
  }

  /// The folder of the running binary (`/proc/self/exe`), for extensions installed beside it.
  public static var binaryDirectory: String? {
    guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
    return (exe as NSString).deletingLastPathComponent
  }

  static func isExecutableFile(_ path: String) -> Bool {
    var st = stat()
    guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return false }
    return access(path, X_OK) == 0
  }
}
