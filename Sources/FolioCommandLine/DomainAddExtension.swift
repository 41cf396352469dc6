import ArgumentParser
import ExtensionHost
import FolioConfig
import Foundation
import ProviderAPI

/// `folio domain add NAME --extension PROGRAM [--set K=V]…` and `--rclone REMOTE:PATH`: asks the
/// extension which settings it has (`describe`), refuses when a required one is missing, starts
/// it once with them (`initialize`, the top folder), then saves `[[domain]] type = "extension"`.
extension DomainAddCommand {
  func validateExtension() throws {
    if extensionProgram != nil && rclone != nil { throw ValidationError("give --extension or --rclone, not both") }
    if server != nil || user != nil || sftp != nil || s3 != nil || webdav != nil || port != nil || path != nil
      || sshConfig != nil || endpoint != nil || region != nil || profile != nil || accessKeyId != nil || secretStdin
      || caFile != nil || passwordStdin
    {
      throw ValidationError("--extension and --rclone take --set KEY=VALUE and --display-name only")
    }
    for s in extensionSettings where !s.contains("=") || s.hasPrefix("=") {
      throw ValidationError("--set takes KEY=VALUE (not \(s))")
    }
  }

  /// The command and settings the options say: `--rclone R` is `folio-rclone` with `remote = R`.
  var extensionChoice: (command: [String], settings: [(String, String)]) {
    var settings: [(String, String)] = []
    if let rclone { settings.append(("remote", rclone)) }
    for s in extensionSettings {
      let key = String(s.prefix { $0 != "=" })
      let value = String(s.dropFirst(key.count + 1))
      settings.removeAll { $0.0 == key }
      settings.append((key, value))
    }
    return (rclone != nil ? ["folio-rclone"] : [extensionProgram ?? ""], settings)
  }

  func addExtension(_ id: DomainIdentifier, text: String, file: URL, paths: FolioPaths) async throws(ProviderError) {
    let (command, settings) = extensionChoice
    let updated = try DomainConfigEditor.addingExtension(
      name: id, command: command, config: settings, displayName: displayName, to: text, file: file.path, paths: paths)
    guard let config = try FolioConfiguration.parse(updated, file: file.path, paths: paths).domains.first(where: { $0.identifier == id }),
      let provider = try RemoteDomains.extensionProvider(for: config, paths: paths)
    else { throw ProviderError(.badConfig, "the location '\(id)' could not be made") }
    // Its settings, from the extension itself.
    let described = try await provider.describe()
    let given = Set(settings.map(\.0))
    let declared = described["settings"]?.array ?? []
    let missing = declared.filter { $0["required"]?.bool == true && !given.contains($0["name"]?.string ?? "") }
    if !missing.isEmpty {
      let list = missing.map { s in
        let name = TerminalText.escape(s["name"]?.string ?? "?")
        let what = s["description"]?.string.map { " (\(TerminalText.escape($0)))" } ?? ""
        return "--set \(name)=…\(what)"
      }
      throw ProviderError(
        .invalidArgument, "\(TerminalText.escape(command[0])) needs \(missing.count == 1 ? "a setting" : "settings"): \(list.joined(separator: ", "))")
    }
    let known = Set(declared.compactMap { $0["name"]?.string })
    for key in given.sorted() where !known.isEmpty && !known.contains(key) {
      Console.err("note: \(TerminalText.escape(command[0])) declares no setting '\(TerminalText.escape(key))'; it is passed all the same")
    }
    // Started once with them: a wrong setting is said now, not at the first listing.
    let root: Item
    do throws(ProviderError) {
      root = try await provider.item(for: .root)
    } catch {
      await provider.shutdown()
      throw error
    }
    await provider.shutdown()
    try DomainConfigEditor.write(updated, to: file)
    let name = described["extension"]?["name"]?.string.map(TerminalText.escape) ?? TerminalText.escape(command[0])
    Console.out("added '\(id)': \(root.filename.displayString) through \(name) (browse it with: folio ls \(id):/)")
  }
}
