import ArgumentParser
import ExtensionHost
import FolioConfig
import Foundation
import ProviderAPI
import S3Provider
import WebDAVClient
import WebDAVProvider

/// `folio domain check NAME`: runs the probes of `domain add` again and keeps what they find — a
/// store upgraded to honour conditional writes (or one that stopped) is then treated as it is.
struct DomainCheckCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "check",
    abstract: "Probe a location again (does the store refuse a write based on a version it no longer has?) and keep the answer.",
    discussion: "For an S3 or WebDAV location: on a scratch name, a create with If-None-Match: * twice and a write with a wrong If-Match; the finding is saved as conditional_writes in config.toml. A WebDAV server is also watched while a PUT is under way (does a reader see the new bytes before it ends?): replaces_in_place.")

  @Argument(help: "The location's name.") var name: String

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let paths = FolioPaths.current
      let id = try DomainIdentifier(name)
      let file = paths.configFile
      let text = try DomainConfigEditor.read(file)
      let configuration = try FolioConfiguration.parse(text, file: file.path, paths: paths)
      guard let config = configuration.domains.first(where: { $0.identifier == id }) else {
        throw ProviderError(.noSuchItem, "no location named '\(id)' (see folio domain list)")
      }
      if let provider = try RemoteDomains.extensionProvider(for: config, paths: paths) {
        try await Self.checkExtension(provider, id)
        return
      }
      if let webdav = try RemoteDomains.webdavProvider(for: config, paths: paths) {
        let found = try await webdav.probe()
        var updated = text
        let dialect = try await webdav.detectDialect()
        for (key, value) in DomainAddCommand.settings(found) + [("dialect", dialect.rawValue)] {
          updated = try DomainConfigEditor.setting(key, to: value, in: id, text: updated, file: file.path, paths: paths)
        }
        try DomainConfigEditor.write(updated, to: file)
        Console.out(
          found.honoursConditionalWrites
            ? "'\(id)': the server refuses stale conditional writes: an edit based on an old version never replaces a newer one"
            : "'\(id)': the server ignores conditional writes: Folio cannot detect conflicting edits by the write itself; it reads each file just before replacing it")
        Console.out(
          found.replacesInPlace == false
            ? "'\(id)': the server replaces a file only once its upload is complete"
            : "'\(id)': the server writes uploads into the file itself: Folio uploads to a temporary name and moves it over the file")
        return
      }
      guard let provider = try RemoteDomains.s3Provider(for: config, paths: paths) else {
        throw ProviderError(.featureUnsupported, "'\(id)' has nothing to probe: S3 and WebDAV locations are probed")
      }
      let found = try await S3Probe.conditionalWrites(try provider.client())
      let versioning = try await S3Probe.versioning(try provider.client())
      var updated = try DomainConfigEditor.setting(
        "conditional_writes", to: found.rawValue, in: id, text: text, file: file.path, paths: paths)
      updated = try DomainConfigEditor.setting("versioning", to: versioning, in: id, text: updated, file: file.path, paths: paths)
      try DomainConfigEditor.write(updated, to: file)
      Console.out(versioning == "enabled" ? "'\(id)': the bucket keeps versions: Recently Deleted" : "'\(id)': the bucket keeps no versions: deleting is for good")
      Console.out(
        found == .honoured
          ? "'\(id)': the store refuses stale conditional writes: an edit based on an old version never replaces a newer one"
          : "'\(id)': the store ignores conditional writes: Folio cannot detect conflicting edits by the write itself; it reads each object just before replacing it")
    }
  }
}
