import BrowserApp
import ExtensionHost
import FolioConfig
import FolioServerProvider
import Foundation
import ProviderAPI
import S3Client
import S3Provider
import SFTPClient
import SFTPProvider
import WebDAVProvider

/// Builds the providers of remote `[[domain]]`s: `type = "folio"`, a FolioServer account, and
/// `type = "sftp"`, a folder on an SSH host reached through the user's own ssh.
///
/// The password is looked for only when the provider has to sign in, in this order: the
/// credentials file (``CredentialsStore``), then the domain's `password_command`. Neither is read
/// while building, so a command that never touches the domain never reads a secret.
enum RemoteDomains {
  /// The command that signs in again, for `notAuthenticated` messages.
  static func signInHint(_ domain: DomainIdentifier) -> String {
    "sign in with `folio domain login \(domain)`"
  }

  /// The provider of a remote domain, or nil for a type this build does not serve.
  ///
  /// - Parameters:
  ///   - signInHint: The command line (true) asks an SSH host's prompts on the terminal.
  ///   - signIn: The browser, which owns the terminal, asks them in its question box (after a
  ///     saved password); without either, a saved password answers and the rest is refused.
  static func provider(
    for config: DomainConfig, paths: FolioPaths, signInHint withHint: Bool = true, signIn: SignInBroker? = nil
  ) throws(ProviderError) -> (any Provider)? {
    guard case .remote(let type, let settings) = config.kind else { return nil }
    switch type {
    case "folio": return try folioProvider(for: config, paths: paths, signInHint: withHint)
    case "sftp":
      let prompts: SSHPromptHandler
      if let signIn {
        prompts = SSHPrompts.browser(config.identifier, broker: signIn, paths: paths)
      } else {
        prompts = withHint ? SSHPrompts.commandLine(config.identifier, paths: paths) : SSHPrompts.stored(config.identifier, paths: paths)
      }
      return try sftpProvider(for: config, prompts: prompts)
    case "s3": return try s3Provider(for: config, paths: paths)
    case "webdav": return try webdavProvider(for: config, paths: paths)
    case "extension": return try extensionProvider(for: config, paths: paths)
    default:
      _ = settings
      return nil
    }
  }

  /// A `[[domain]] type = "s3"`: `bucket`, and optionally `prefix` (the location's folder in the
  /// bucket), `endpoint` (an S3-compatible store; path-style), `region`, `profile`,
  /// `access_key_id` (its secret then in the credentials file) and `conditional_writes` (what
  /// `folio domain add` found). Credentials are otherwise found as the AWS CLI finds them; none
  /// found is not an error here: the location then asks to sign in.
  static func s3Provider(for config: DomainConfig, paths: FolioPaths) throws(ProviderError) -> S3Provider? {
    guard case .remote("s3", let settings) = config.kind else { return nil }
    let id = config.identifier
    guard let bucket = settings["bucket"] else {
      throw ProviderError(.badConfig, "the location '\(id)' has no bucket (add bucket = \"NAME\" to its [[domain]])")
    }
    let loader = AWSCredentialsLoader()
    let found = try? loader.load(profile: settings["profile"])
    var credentials = found?.credentials
    if let keyID = settings["access_key_id"] {
      credentials = (try? CredentialsStore(paths: paths).secret(for: id)).flatMap { $0 }.map {
        S3Credentials(accessKeyID: keyID, secretAccessKey: $0)
      }
    }
    let endpoint: S3Endpoint
    do {
      endpoint = try S3Endpoint(
        bucket: bucket, prefix: settings["prefix"] ?? "", region: settings["region"] ?? found?.region ?? "us-east-1",
        endpoint: settings["endpoint"] ?? found?.endpointURL)
    } catch {
      throw ProviderError(.badConfig, "the location '\(id)': \((error as? S3Error)?.message ?? "\(error)")")
    }
    let conditional = settings["conditional_writes"].flatMap(ProviderTraits.ConditionalWrites.init(rawValue:)) ?? .unknown
    return S3Provider(
      domain: id, endpoint: endpoint, credentials: credentials, conditionalWrites: conditional,
      versioned: settings["versioning"] == "enabled", journalFolder: paths.s3Jobs(id.rawValue),
      firstByteTimeout: firstByteTimeout(settings) ?? S3Client.defaultFirstByteTimeout)
  }

  /// A `[[domain]] type = "webdav"`: `url` (the collection that is the location's top), `user`,
  /// and optionally `tls_ca`, `password_command`, and what `folio domain add` found:
  /// `conditional_writes`, `replaces_in_place` ("yes", "no" or "unknown") and `dialect`
  /// ("nextcloud": permissions, the trash bin; else "generic"), and `chunk_size_mib` (Nextcloud:
  /// files above it go up in chunks of that size; 10 by default, 5 at least, the server's
  /// smallest chunk). The password is read at the first request (the credentials file, then
  /// `password_command`).
  static func webdavProvider(for config: DomainConfig, paths: FolioPaths) throws(ProviderError) -> WebDAVProvider? {
    guard case .remote("webdav", let settings) = config.kind else { return nil }
    let id = config.identifier
    guard let text = settings["url"] ?? settings["server"], let url = URL(string: text) else {
      throw ProviderError(.badConfig, "the location '\(id)' has no url (add url = \"https://host/path/\" to its [[domain]])")
    }
    guard let user = settings["user"] else {
      throw ProviderError(.badConfig, "the location '\(id)' has no user (add user = \"NAME\" to its [[domain]])")
    }
    let store = CredentialsStore(paths: paths)
    let command = config.passwordCommand
    let conditional = settings["conditional_writes"].flatMap(ProviderTraits.ConditionalWrites.init(rawValue:)) ?? .unknown
    let inPlace: Bool? = settings["replaces_in_place"].flatMap { $0 == "yes" ? true : $0 == "no" ? false : nil }
    return WebDAVProvider(
      domain: id, url: url, user: user, caFile: settings[trustedCertificatesKey],
      password: { () async throws(ProviderError) -> String? in
        if let secret = try store.secret(for: id) { return secret }
        if let command { return try await PasswordCommand.run(command, domain: id) }
        return nil
      }, conditionalWrites: conditional, replacesInPlace: inPlace,
      dialect: settings["dialect"].flatMap(WebDAVDialect.init(rawValue:)) ?? .generic,
      chunking: settings["chunk_size_mib"].flatMap { Int64($0) }.map {
        NextcloudChunking(threshold: max(5, $0) << 20, chunkSize: max(5, $0) << 20)
      } ?? .standard,
      firstByteTimeout: firstByteTimeout(settings) ?? .seconds(30))
  }

  /// A `[[domain]] type = "sftp"`: `host` (anything ssh takes: an alias of ~/.ssh/config,
  /// user@host), and optionally `port`, `path` (the remote folder; default the login's home) and
  /// `ssh_config` (passed as `ssh -F`).
  static func sftpProvider(for config: DomainConfig, prompts: SSHPromptHandler?) throws(ProviderError) -> SFTPProvider? {
    guard case .remote("sftp", let settings) = config.kind else { return nil }
    let id = config.identifier
    guard let host = settings["host"], !host.isEmpty else {
      throw ProviderError(.badConfig, "the location '\(id)' has no host (add host = \"user@host\" to its [[domain]])")
    }
    var port: Int? = nil
    if let text = settings["port"] {
      guard let p = Int(text), (1...65535).contains(p) else {
        throw ProviderError(.badConfig, "the location '\(id)' has port = \(TerminalText.escape(text)): a number from 1 to 65535")
      }
      port = p
    }
    return SFTPProvider(
      domain: id, host: host, port: port, remotePath: settings["path"], sshConfigFile: settings["ssh_config"],
      askpassProgram: SSHPrompts.askpassProgram, prompts: prompts)
  }

  /// A `[[domain]] type = "folio"`: an account on Folio's own server.
  static func folioProvider(
    for config: DomainConfig, paths: FolioPaths, signInHint withHint: Bool = true
  ) throws(ProviderError) -> FolioServerProvider? {
    guard case .remote(let type, let settings) = config.kind, type == "folio" else { return nil }
    let id = config.identifier
    guard let server = settings["server"] ?? settings["url"] else {
      throw ProviderError(.badConfig, "the location '\(id)' has no server")
    }
    guard let user = settings["user"] else {
      throw ProviderError(.badConfig, "the location '\(id)' has no user (add user = \"NAME\" to its [[domain]])")
    }
    // Not read here: a certificate file gone missing must not stop every command (local ones
    // too); this location's requests say it instead (ServerConnection).
    let trusted = settings[trustedCertificatesKey].map { URL(fileURLWithPath: $0) }
    let url = try serverURL(server)
    if trusted != nil && url.scheme == "http" {
      throw ProviderError(
        .badConfig, "the location '\(id)' has tls_ca but its server is http://, where no certificate is checked: use https://")
    }
    let account = ServerAccount(baseURL: url, user: user, trustedCertificates: trusted)
    let store = CredentialsStore(paths: paths)
    let command = config.passwordCommand
    let source = PasswordSource { () async throws(ProviderError) -> String? in
      if let secret = try store.secret(for: id) { return secret }
      if let command { return try await PasswordCommand.run(command, domain: id) }
      return nil
    }
    return FolioServerProvider(
      domain: id, displayName: config.displayName, account: account, password: source, signInHint: withHint ? signInHint(id) : nil)
  }

  /// Whether a host names this machine: `localhost`, or an IPv4 address in 127.0.0.0/8 (an
  /// address, not a name that merely starts with "127.", which could be anywhere).
  static func isThisMachine(_ host: String) -> Bool {
    if host == "localhost" { return true }
    var address = in_addr()
    guard inet_pton(AF_INET, host, &address) == 1 else { return false }
    return UInt32(bigEndian: address.s_addr) >> 24 == 127
  }

  /// The `[[domain]]` key of a PEM file of certificates to trust for https instead of the system's.
  static let trustedCertificatesKey = "tls_ca"

  /// The absolute path of a `tls_ca` file (`~` expanded, relative paths from `directory`), which
  /// must be readable now: a typo is said here, not as a TLS failure at every request.
  static func trustedCertificates(
    _ text: String, paths: FolioPaths, relativeTo directory: String, domain: DomainIdentifier
  ) throws(ProviderError) -> URL {
    var path = paths.expandingTilde(text)
    if !path.hasPrefix("/") { path = directory + "/" + path }
    let url = URL(fileURLWithPath: path).standardizedFileURL
    guard FileManager.default.isReadableFile(atPath: url.path) else {
      throw ProviderError(
        .badConfig, "the certificates to trust for '\(domain)' (tls_ca) cannot be read: \(TerminalText.escape(url.path))")
    }
    return url
  }

  /// `first_byte_timeout = "SECONDS"` of an S3 or WebDAV location: how long a listing or a probe
  /// waits for the server to start answering before the location reads offline (a store far
  /// away, or one slow to start a listing, may want more than the default 10 s). Nil when unset
  /// or not a positive number.
  static func firstByteTimeout(_ settings: [String: String]) -> Duration? {
    guard let text = settings["first_byte_timeout"], let seconds = Double(text), seconds > 0, seconds < 86_400 else {
      return nil
    }
    return .milliseconds(Int64(seconds * 1000))
  }

  /// The base URL of a server setting: `http(s)://host[:port][/prefix]`, or `host[:port]`, which
  /// means https — or http for this machine (localhost, 127.0.0.0/8, ::1), where nothing travels
  /// over a network.
  static func serverURL(_ text: String) throws(ProviderError) -> URL {
    var s = text.trimmingCharacters(in: .whitespaces)
    if !s.contains("://") {
      let host = s.split(separator: ":").first.map(String.init) ?? s
      s = (isThisMachine(host) || s.hasPrefix("[::1]") ? "http://" : "https://") + s
    }
    while s.hasSuffix("/") { s.removeLast() }
    guard let url = URL(string: s), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
      let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil, url.user == nil
    else {
      throw ProviderError(
        .badConfig, "'\(TerminalText.escape(text))' is not a server address (use e.g. https://files.example.com or host:8470)")
    }
    return url
  }
}
