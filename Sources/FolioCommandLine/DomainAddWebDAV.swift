import FolioConfig
import Foundation
import ProviderAPI
import WebDAVClient
import WebDAVProvider

extension DomainAddCommand {
  /// Signs in once (the top must be a folder), probes the server on a scratch file, then saves
  /// `[[domain]] type = "webdav"` with what the probe found and the password in the credentials
  /// file — and says, when the server ignores conditional writes, that it cannot detect
  /// conflicting edits.
  func addWebDAV(
    _ id: DomainIdentifier, url text: String, user: String, text config: String, file: URL, paths: FolioPaths
  ) async throws(ProviderError) {
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
      throw ProviderError(.invalidArgument, "\(TerminalText.escape(text)) is not an http(s):// URL of a WebDAV folder")
    }
    let trusted = try caFile.map { (file: String) throws(ProviderError) -> URL in
      try RemoteDomains.trustedCertificates(file, paths: paths, relativeTo: FileManager.default.currentDirectoryPath, domain: id)
    }
    do {
      // Said before a password is asked for: plain http to another machine, a CA file for http.
      _ = try WebDAVConfiguration(url: url, user: user, password: "-", caFile: trusted?.path)
    } catch {
      throw ProviderError(.invalidArgument, error.message)
    }
    let password = try readDomainPassword(stdin: passwordStdin, user: user, server: url)
    let provider = WebDAVProvider(
      domain: id, url: url, user: user, caFile: trusted?.path, password: { () async throws(ProviderError) -> String? in password })
    try await provider.checkTop()
    let dialect = try await provider.detectDialect()
    let found = try await WebDAVProvider(
      domain: id, url: url, user: user, caFile: trusted?.path, password: { () async throws(ProviderError) -> String? in password },
      dialect: dialect
    ).probe()
    var settings = [("url", url.absoluteString), ("user", user)]
    if let trusted { settings.append((RemoteDomains.trustedCertificatesKey, trusted.path)) }
    settings += Self.settings(found)
    if dialect != .generic { settings.append(("dialect", dialect.rawValue)) }
    let updated = try DomainConfigEditor.adding(
      name: id, type: "webdav", settings: settings, displayName: displayName, to: config, file: file.path, paths: paths)
    try CredentialsStore(paths: paths).setSecret(password, for: id)
    try DomainConfigEditor.write(updated, to: file)
    Console.out(
      "added '\(id)': \(TerminalText.escape(user)) on \(TerminalText.escape(url.absoluteString)) (browse it with: folio ls \(id):/)")
    if dialect == .nextcloud && WebDAVDialect.trashbin(of: url) != nil {
      Console.out("Nextcloud: deleted items go to its trash bin (Recently Deleted) and can be put back")
    } else if dialect == .nextcloud {
      Console.out(
        "Nextcloud, but this URL has no trash bin Folio can reach (use …/remote.php/dav/files/USER/): deleting is for good (Folio asks first)")
    } else {
      Console.out("a WebDAV server keeps no trash Folio can reach: deleting is for good (Folio asks first)")
    }
    for line in Self.notes(found) { Console.out("note: " + line) }
  }

  /// What a probe found, as `[[domain]]` settings.
  static func settings(_ found: WebDAVProbe) -> [(String, String)] {
    [
      ("conditional_writes", found.honoursConditionalWrites ? "honoured" : "ignored"),
      ("replaces_in_place", found.replacesInPlace.map { $0 ? "yes" : "no" } ?? "unknown"),
    ]
  }

  /// What a person should know about a server the probe found wanting.
  static func notes(_ found: WebDAVProbe) -> [String] {
    var lines: [String] = []
    if !found.honoursConditionalWrites {
      lines.append(
        "this server does not refuse a write based on a version it no longer has, so Folio cannot detect "
          + "conflicting edits by the write itself; it reads each file just before replacing it")
    }
    switch found.replacesInPlace {
    case true?:
      lines.append(
        "this server writes uploads into the file itself; Folio uploads to a temporary name and moves it over the file, "
          + "so an interrupted upload never leaves a cut-short file")
    case nil:
      lines.append(
        "the probe could not tell whether this server writes uploads into the file itself; to be safe, Folio uploads "
          + "to a temporary name and moves it over the file")
    case false?:
      break
    }
    return lines
  }
}
