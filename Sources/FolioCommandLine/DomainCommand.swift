import ArgumentParser
import FolioConfig
import FolioServerProvider
import Foundation
import ProviderAPI
import ProviderCore
import SFTPClient
import SFTPProvider
import Synchronization
import WebDAVProvider
import WorkingSetIndex

/// `folio domain`: add, list, sign in to and remove locations on servers.
struct DomainCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "domain",
    abstract: "Add, list, sign in to or remove a location on a Folio server or an SSH host.",
    discussion: """
      folio domain add NAME --server URL --user USER [--ca-file PEM]
                       [--password-stdin]
      folio domain add NAME --sftp HOST [--port N] [--path /remote/folder]
                       [--ssh-config FILE]
      folio domain add NAME --extension PROGRAM [--set KEY=VALUE]...
      folio domain add NAME --rclone REMOTE:PATH
      folio domain login NAME [--password-stdin]
      folio domain list [--json]
      folio domain remove NAME [--keep-unsynced | --keep-downloaded]

      The location is written to config.toml ([[domain]]); its password to \
      $XDG_CONFIG_HOME/folio/credentials (NAME=SECRET lines, mode 0600).
      """,
    subcommands: [
      DomainAddCommand.self, DomainLoginCommand.self, DomainListCommand.self, DomainCheckCommand.self, DomainRemoveCommand.self,
    ])
}

/// Reads the password the way the options say: standard input, or the terminal with echo off.
func readDomainPassword(stdin: Bool, user: String, server: URL) throws(ProviderError) -> String {
  if stdin { return try PasswordInput.fromStandardInput() }
  let host = TerminalText.escape(server.host ?? server.absoluteString)
  return try PasswordInput.prompt("Password for \(TerminalText.escape(user)) on \(host): ")
}

/// Signs in once with `password`, so that nothing is saved for a server that says no.
private func checkSignIn(
  _ domain: DomainIdentifier, displayName: String, account: ServerAccount, user: String, password: String
) async throws(ProviderError) {
  let provider = FolioServerProvider(domain: domain, displayName: displayName, account: account)
  try await provider.authenticate(Credentials(user: user, secret: password))
  await provider.signOut()
}

struct DomainAddCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "add",
    abstract: "Add a Folio server location (sign in once, then save it in config.toml and its password), an SSH host's folder (--sftp), an S3 bucket (--s3) or a WebDAV folder (--webdav).",
    discussion: "With --sftp, HOST is anything ssh takes (an alias of ~/.ssh/config, user@host): Folio runs your own ssh, so your keys, agent, ~/.ssh/config and known_hosts work as they do for you. It connects once, asking on this terminal for what ssh asks (a password, a passphrase, an unknown host key, shown with its fingerprint: type yes only if you know it), then saves [[domain]] type = \"sftp\". Tags and favorites of its items are kept on this computer. With --s3, the bucket is listed once and probed on a scratch key (does it refuse a write conditioned on a version it does not have?), then [[domain]] type = \"s3\" is saved with what the probe found. With --webdav, Folio signs in once and probes the server on a scratch file (does it refuse stale conditional writes? does a PUT write into the file in place?), then saves [[domain]] type = \"webdav\" with what it found and the password in the credentials file.")

  @Argument(help: "The location's name: letters, digits, '-', '_' or '.' (NAME:/path on the command line).")
  var name: String
  @Option(help: "The server: http(s)://host:port, or host:port.") var server: String?
  @Option(help: "The user name on the server.") var user: String?
  @Option(help: ArgumentHelp("An SSH host (as ssh takes it) whose folder becomes the location.", valueName: "HOST"))
  var sftp: String?
  @Option(
    help: ArgumentHelp(
      "An S3 bucket, or a folder of one, as s3://BUCKET[/PREFIX]: credentials as the AWS CLI finds them.", valueName: "URL"))
  var s3: String?
  @Option(
    help: ArgumentHelp(
      "A WebDAV folder (Nextcloud, ownCloud, Apache, nginx, a NAS) as https://host/path/; with --user.", valueName: "URL"))
  var webdav: String?
  @Option(help: ArgumentHelp("With --s3: an S3-compatible store's URL (MinIO, R2, Ceph…).", valueName: "URL")) var endpoint: String?
  @Option(help: "With --s3: the bucket's region (default: the AWS configuration's, else us-east-1).") var region: String?
  @Option(help: "With --s3: a profile of ~/.aws/credentials or ~/.aws/config.") var profile: String?
  @Option(help: ArgumentHelp("With --s3: an access key id; its secret is read from standard input (--secret-stdin).", valueName: "ID"))
  var accessKeyId: String?
  @Flag(help: "With --s3 --access-key-id: read the secret from the first line of standard input.") var secretStdin = false
  @Option(parsing: .unconditional, help: "With --sftp: the SSH port (default: ssh's).") var port: Int?
  @Option(help: ArgumentHelp("With --sftp: the remote folder (default: the login's home).", valueName: "PATH")) var path: String?
  @Option(help: ArgumentHelp("With --sftp: an ssh configuration file, passed as ssh -F.", valueName: "FILE"))
  var sshConfig: String?
  @Option(help: "What the sidebar calls it (default: the name).") var displayName: String?
  @Option(
    help: ArgumentHelp(
      "A PEM file of the certificate(s) to trust for https instead of the system's: a server with its own or a self-signed certificate.",
      valueName: "PEM"))
  var caFile: String?
  @Flag(help: "Read the password from the first line of standard input instead of asking.") var passwordStdin = false
  @Option(
    name: .customLong("extension"),
    help: ArgumentHelp("An extension (FEP/1, docs/EXTENSIONS.md) that serves the location: a program on PATH, beside folio, or a path.", valueName: "PROGRAM"))
  var extensionProgram: String?
  @Option(name: .customLong("set"), help: ArgumentHelp("With --extension: one of its settings ([domain.config]); repeat it.", valueName: "KEY=VALUE"))
  var extensionSettings: [String] = []
  @Option(help: ArgumentHelp("An rclone remote (and a folder of it) served by folio-rclone, e.g. gdrive:Documents.", valueName: "REMOTE:PATH"))
  var rclone: String?

  func validate() throws {
    if extensionProgram != nil || rclone != nil {
      try validateExtension()
      return
    }
    if !extensionSettings.isEmpty { throw ValidationError("--set goes with --extension or --rclone") }
    if webdav != nil {
      if s3 != nil || sftp != nil || server != nil || port != nil || path != nil || sshConfig != nil || endpoint != nil
        || region != nil || profile != nil || accessKeyId != nil || secretStdin
      {
        throw ValidationError("--webdav takes --user, --password-stdin and --ca-file only")
      }
      guard user != nil else { throw ValidationError("--webdav needs --user USER") }
      return
    }
    if s3 != nil {
      if sftp != nil || server != nil || user != nil || port != nil || path != nil || sshConfig != nil || passwordStdin {
        throw ValidationError("--s3 takes --endpoint, --region, --profile, --access-key-id and --secret-stdin only")
      }
      if (accessKeyId != nil) != secretStdin { throw ValidationError("--access-key-id and --secret-stdin go together") }
      if accessKeyId != nil && profile != nil { throw ValidationError("give --profile or --access-key-id, not both") }
      return
    }
    if endpoint != nil || region != nil || profile != nil || accessKeyId != nil || secretStdin {
      throw ValidationError("--endpoint, --region, --profile, --access-key-id and --secret-stdin go with --s3")
    }
    if sftp == nil {
      guard server != nil, user != nil else { throw ValidationError("give --server URL and --user USER, or --sftp HOST") }
      if port != nil || path != nil || sshConfig != nil { throw ValidationError("--port, --path and --ssh-config go with --sftp") }
    } else {
      if server != nil || user != nil || caFile != nil || passwordStdin {
        throw ValidationError("--sftp takes no --server, --user, --ca-file or --password-stdin: ssh signs in")
      }
      if let port, !(1...65535).contains(port) { throw ValidationError("--port must be from 1 to 65535") }
    }
  }

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let paths = FolioPaths.current
      let id = try DomainIdentifier(name)
      if id == .local { throw ProviderError(.invalidArgument, "'local' is the built-in location: choose another name") }
      let file = paths.configFile
      let text = try DomainConfigEditor.read(file)
      let current = try FolioConfiguration.parse(text, file: file.path, paths: paths)
      if current.domains.contains(where: { $0.identifier == id }) {
        throw ProviderError(
          .filenameCollision,
          "a location named '\(id)' already exists: sign in again with `folio domain login \(id)`, or remove it first")
      }
      if extensionProgram != nil || rclone != nil {
        try await addExtension(id, text: text, file: file, paths: paths)
        return
      }
      if let sftp {
        try await addSFTP(id, host: sftp, text: text, file: file, paths: paths)
        return
      }
      if let s3 {
        try await addS3(id, url: s3, text: text, file: file, paths: paths)
        return
      }
      if let webdav, let user {
        try await addWebDAV(id, url: webdav, user: user, text: text, file: file, paths: paths)
        return
      }
      guard let server, let user else { return }
      let url = try RemoteDomains.serverURL(server)
      if caFile != nil && url.scheme == "http" {
        throw ProviderError(
          .invalidArgument, "--ca-file is for https servers: \(TerminalText.escape(url.absoluteString)) checks no certificate")
      }
      let trusted = try caFile.map { (file: String) throws(ProviderError) -> URL in
        try RemoteDomains.trustedCertificates(
          file, paths: paths, relativeTo: FileManager.default.currentDirectoryPath, domain: id)
      }
      let password = try readDomainPassword(stdin: passwordStdin, user: user, server: url)
      try await checkSignIn(
        id, displayName: displayName ?? name, account: ServerAccount(baseURL: url, user: user, trustedCertificates: trusted),
        user: user, password: password)
      var settings = [("server", url.absoluteString), ("user", user)]
      if let trusted { settings.append((RemoteDomains.trustedCertificatesKey, trusted.path)) }
      let updated = try DomainConfigEditor.adding(
        name: id, type: "folio", settings: settings, displayName: displayName,
        to: text, file: file.path, paths: paths)
      try CredentialsStore(paths: paths).setSecret(password, for: id)
      try DomainConfigEditor.write(updated, to: file)
      Console.out(
        "added '\(id)': \(TerminalText.escape(user)) on \(TerminalText.escape(url.absoluteString)) (browse it with: folio ls \(id):/)")
    }
  }
}

extension DomainAddCommand {
  /// Connects once (ssh asks on this terminal), checks the folder, then saves the location.
  func addSFTP(_ id: DomainIdentifier, host: String, text: String, file: URL, paths: FolioPaths) async throws(ProviderError) {
    var settings = [("host", host)]
    if let port { settings.append(("port", String(port))) }
    if let path { settings.append(("path", path)) }
    if let sshConfig {
      let absolute = sshConfig.hasPrefix("/") ? sshConfig : FileManager.default.currentDirectoryPath + "/" + sshConfig
      settings.append(("ssh_config", absolute))
    }
    let updated = try DomainConfigEditor.adding(
      name: id, type: "sftp", settings: settings, displayName: displayName, to: text, file: file.path, paths: paths)
    let config = try FolioConfiguration.parse(updated, file: file.path, paths: paths).domains.first { $0.identifier == id }
    guard let config, let provider = try RemoteDomains.sftpProvider(for: config, prompts: SSHPrompts.terminal) else {
      throw ProviderError(.badConfig, "the location '\(id)' could not be made")
    }
    let root = try await provider.item(at: .root)
    guard root.isFolder else { throw ProviderError(.invalidArgument, "\(TerminalText.escape(path ?? "~")) on \(TerminalText.escape(host)) is not a folder") }
    let folder = (try? await provider.remoteRoot()).map { TerminalText.escape(bytes: $0) } ?? TerminalText.escape(path ?? "~")
    try DomainConfigEditor.write(updated, to: file)
    Console.out("added '\(id)': \(folder) on \(TerminalText.escape(host)) over ssh (browse it with: folio ls \(id):/)")
  }
}

struct DomainLoginCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "login", abstract: "Sign in to a location again and save the password.",
    discussion: "For an SSH host (--sftp): connects once, asking on this terminal what ssh asks, and saves the password or passphrase you typed (or the one given with --password-stdin) once ssh took it, for the browser to answer with. Nothing is saved when ssh asked for none (a key or an agent signs in).")

  @Argument(help: "The location's name.") var name: String
  @Flag(help: "Read the password from the first line of standard input instead of asking.") var passwordStdin = false

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let paths = FolioPaths.current
      let id = try DomainIdentifier(name)
      let configuration = try FolioConfiguration.loadChecked(paths: paths)
      guard let config = configuration.domains.first(where: { $0.identifier == id }) else {
        throw ProviderError(.noSuchItem, "no location named '\(id)' (add one with `folio domain add`)")
      }
      if case .remote("sftp", _) = config.kind {
        try await loginSFTP(id, config: config, paths: paths)
        return
      }
      if let webdav = try RemoteDomains.webdavProvider(for: config, paths: paths), case .remote(_, let settings) = config.kind {
        let user = settings["user"] ?? ""
        let password = try readDomainPassword(stdin: passwordStdin, user: user, server: webdav.url)
        try await webdav.authenticate(Credentials(user: user, secret: password))
        try CredentialsStore(paths: paths).setSecret(password, for: id)
        Console.out("signed in to '\(id)' as \(TerminalText.escape(user))")
        return
      }
      guard let provider = try RemoteDomains.folioProvider(for: config, paths: paths) else {
        throw ProviderError(.invalidArgument, "'\(id)' is not a Folio server location: there is nothing to sign in to")
      }
      let user = provider.account.user
      let password = try readDomainPassword(stdin: passwordStdin, user: user, server: provider.account.baseURL)
      try await checkSignIn(id, displayName: config.displayName, account: provider.account, user: user, password: password)
      try CredentialsStore(paths: paths).setSecret(password, for: id)
      Console.out("signed in to '\(id)' as \(TerminalText.escape(user))")
    }
  }
}

extension DomainLoginCommand {
  /// Connects once through ssh and saves the secret that let it in (typed at ssh's question on
  /// this terminal, or read from standard input), so the browser answers with it instead of asking.
  func loginSFTP(_ id: DomainIdentifier, config: DomainConfig, paths: FolioPaths) async throws(ProviderError) {
    let given = passwordStdin ? try PasswordInput.fromStandardInput() : nil
    // The last secret given to ssh: the connection succeeding after it means ssh took it.
    // With what ssh called it: a key's passphrase is said to be one, not "the password".
    let answered = Mutex<(secret: String, isPassphrase: Bool)?>(nil)
    let prompts: SSHPromptHandler = { prompt in
      guard prompt.kind == .secret else { return await SSHPrompts.terminal(prompt) }
      let isPassphrase = prompt.lines.contains { $0.localizedCaseInsensitiveContains("passphrase") }
      if let given {
        // Asked again: ssh did not take it. Nothing else to answer with.
        guard prompt.attempt == 1 else { return .refuse }
        answered.withLock { $0 = (given, isPassphrase) }
        return .secret(given)
      }
      let answer = await SSHPrompts.terminal(prompt)
      if case .secret(let typed) = answer { answered.withLock { $0 = (typed, isPassphrase) } }
      return answer
    }
    guard let provider = try RemoteDomains.sftpProvider(for: config, prompts: prompts) else {
      throw ProviderError(.badConfig, "the location '\(id)' could not be made")
    }
    _ = try await provider.item(at: .root)
    guard let (secret, isPassphrase) = answered.withLock({ $0 }) else {
      Console.out("signed in to '\(id)' over ssh; ssh asked for no password (a key or an agent signs in), so nothing was saved")
      return
    }
    try CredentialsStore(paths: paths).setSecret(secret, for: id)
    Console.out(
      "signed in to '\(id)' over ssh; the \(isPassphrase ? "key's passphrase" : "password") is saved for the browser "
        + "(\(TerminalText.escape(paths.credentialsFile.path)))")
  }
}

struct DomainListCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "list", abstract: "List the locations with their state (online, offline, needs sign-in, over quota).")

  @Flag(help: "Print JSON.") var json = false

  struct Entry: Encodable {
    var name: String
    var displayName: String
    var type: String
    /// "local", "online", "offline", "needs sign-in", "over quota", "error" or "unsupported".
    var state: String
    var detail: String?
    var server: String?
    var user: String?
    var root: String?
    var usedBytes: Int64?
    var quotaBytes: Int64?
    /// Transfers of this location not yet done (from the transfer journal); nil when none.
    var syncing: Int?
  }

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      var entries: [Entry] = [
        Entry(name: "local", displayName: context.registry.local.displayName, type: "local", state: "local", root: "/")
      ]
      for config in context.configuration.domains {
        entries.append(Self.entry(config))
      }
      // The servers are asked side by side: one that is down costs its timeout once, not per line.
      let providers = context.registry.domains.compactMap { $0.provider as? any AccountStatusProviding }
      let states = await withTaskGroup(of: (String, AccountStatus).self) { group in
        for p in providers { group.addTask { (p.domain.rawValue, await p.accountStatus()) } }
        var out: [String: AccountStatus] = [:]
        for await (name, status) in group { out[name] = status }
        return out
      }
      for i in entries.indices {
        if let status = states[entries[i].name] { Self.apply(status, to: &entries[i]) }
        entries[i].syncing = Self.syncingCount(DomainIdentifier(unchecked: entries[i].name), index: context.index)
      }
      if json {
        Console.out(ItemJSON.encode(entries))
        return
      }
      for e in entries {
        var state = e.state
        if let n = e.syncing { state += ", syncing \(n)" }
        var place = e.root.map { TerminalText.escape($0) } ?? ""
        if let server = e.server {
          place =
            e.type == "sftp"
            ? TerminalText.escape(server) + ":" + (e.root.map { TerminalText.escape($0) } ?? "~")
            : e.type == "s3" ? TerminalText.escape(server)
            : "\(TerminalText.escape(e.user ?? "?")) on \(TerminalText.escape(server))"
        }
        if let used = e.usedBytes { place += " (\(HumanFormat.size(used))" + (e.quotaBytes.map { " of \(HumanFormat.size($0))" } ?? "") + ")" }
        if let detail = e.detail { place += ": " + detail }
        Console.out(
          HumanFormat.pad(TerminalText.escape(e.name), 14) + "  " + HumanFormat.pad(e.type, 6) + "  "
            + HumanFormat.pad(state, 14) + "  " + place)
      }
    }
  }

  static func entry(_ config: DomainConfig) -> Entry {
    var e = Entry(name: config.identifier.rawValue, displayName: config.displayName, type: "local", state: "local")
    switch config.kind {
    case .local(let root):
      e.root = root
    case .remote(let type, let settings):
      e.type = type
      e.server = settings["server"] ?? settings["url"] ?? settings["host"]
      e.user = settings["user"]
      e.root = type == "sftp" ? settings["path"] : nil
      let served = ["folio", "sftp", "s3", "webdav", "extension"].contains(type)
      if type == "extension" { e.root = config.extensionCommand?.joined(separator: " ") }
      e.state = served ? "error" : "unsupported"
      if !served { e.detail = "this build of Folio does not serve \(type) locations yet" }
      if type == "sftp" { e.detail = "no trash on an SSH host: deleting is for good" }
      if type == "webdav" {
        let hasBin = settings["dialect"] == "nextcloud" && (settings["url"] ?? settings["server"]).flatMap(URL.init(string:))
          .flatMap(WebDAVDialect.trashbin(of:)) != nil
        e.detail =
          (hasBin ? "Nextcloud: Recently Deleted" : "no trash on a WebDAV server: deleting is for good")
          + (settings["conditional_writes"] == "honoured" ? "" : "; cannot detect conflicting edits (the server ignores conditional writes)")
      }
      if type == "s3" {
        e.server = "s3://" + (settings["bucket"] ?? "?") + (settings["prefix"].map { "/" + $0 } ?? "")
          + (settings["endpoint"].map { " at " + $0 } ?? "")
        e.detail =
          (settings["versioning"] == "enabled" ? "versions kept: Recently Deleted" : "no trash in a bucket: deleting is for good")
          + (settings["conditional_writes"] == "honoured" ? "" : "; cannot detect conflicting edits (the store ignores conditional writes)")
      }
    }
    return e
  }

  static func apply(_ status: AccountStatus, to e: inout Entry) {
    switch status {
    case .online(let used, let quota):
      e.state = "online"
      // A store that states no usage (a bucket, an SSH host without statvfs) says nothing, not "0 B".
      if used > 0 || quota != nil {
        e.usedBytes = used
        e.quotaBytes = quota
      }
    case .overQuota(let used, let quota):
      e.state = "over quota"
      e.usedBytes = used
      e.quotaBytes = quota
    case .needsSignIn(let message):
      e.state = "needs sign-in"
      e.detail = message
    case .offline(let message):
      e.state = "offline"
      e.detail = message
    case .failed(let error):
      e.state = error.code == .serverNotTrusted ? "host key changed" : "error"
      e.detail = error.message
    }
  }

  /// "syncing N": the location's transfers in the journal that are not done yet.
  ///
  /// The hook for the sync engine: the count comes from the durable transfer journal, so it holds
  /// whether or not a `folio` is running. Nil when there is nothing pending (or no index).
  static func syncingCount(_ domain: DomainIdentifier, index: WorkingSetIndex) -> Int? {
    guard let n = try? index.pendingTransfers(domain: domain).count, n > 0 else { return nil }
    return n
  }
}

struct DomainRemoveCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "remove",
    abstract: "Remove a location: its config, password, index entries and downloaded content.",
    discussion: """
      Nothing that is not on the server yet is lost silently: with uploads still pending the \
      command refuses, unless --keep-unsynced (copies them to a folder first) or --keep-downloaded \
      (those, plus every downloaded file) says what to keep. The folder is printed.
      """)

  @Argument(help: "The location's name.") var name: String
  @Flag(help: "Keep a copy of each change not yet uploaded, then remove.") var keepUnsynced = false
  @Flag(help: "Keep the changes not yet uploaded and every downloaded file, then remove.") var keepDownloaded = false

  func run() async throws {
    try await runReporting { () async throws(ProviderError) in
      let paths = FolioPaths.current
      let id = try DomainIdentifier(name)
      if id == .local { throw ProviderError(.invalidArgument, "'local' is built in and cannot be removed") }
      let file = paths.configFile
      let text = try DomainConfigEditor.read(file)
      let configuration = try FolioConfiguration.parse(text, file: file.path, paths: paths)
      guard configuration.domains.contains(where: { $0.identifier == id }) else {
        throw ProviderError(.noSuchItem, "no location named '\(id)'")
      }
      let index = try WorkingSetIndex.open(at: paths.indexFile)
      let unsynced = try index.pendingTransfers(domain: id).filter { $0.direction == .upload }
      if !unsynced.isEmpty && !keepUnsynced && !keepDownloaded {
        let names = unsynced.prefix(3).map { Self.displayName(of: $0, index: index) }.joined(separator: ", ")
        throw ProviderError(
          .unsyncedEdits,
          "'\(id)' has \(unsynced.count) change(s) not uploaded yet (\(names)\(unsynced.count > 3 ? ", …" : "")): "
            + "let them upload first, or add --keep-unsynced to keep a copy of each (--keep-downloaded keeps downloads too)")
      }
      let cache = paths.contentCache.appendingPathComponent(id.rawValue, isDirectory: true)
      var kept: URL?
      var keptCount = 0
      if keepUnsynced || keepDownloaded {
        let hasDownloads = keepDownloaded && FileManager.default.fileExists(atPath: cache.path)
        if !unsynced.isEmpty || hasDownloads {
          let folder = Self.preservedFolder(paths: paths, domain: id)
          keptCount = try Self.preserve(unsynced, in: folder.appendingPathComponent("unsynced"), index: index)
          if hasDownloads { try Self.move(cache, to: folder.appendingPathComponent("downloaded")) }
          kept = folder
        }
      }
      try DomainConfigEditor.write(try DomainConfigEditor.removing(id, from: text, file: file.path, paths: paths), to: file)
      try CredentialsStore(paths: paths).removeSecret(for: id)
      try index.removeDomain(id)
      try? FileManager.default.removeItem(at: cache)
      Console.out("removed '\(id)'")
      if let kept {
        Console.out("kept \(keptCount) unsynced file(s)\(keepDownloaded ? " and the downloaded files" : "") in \(TerminalText.escape(kept.path))")
      }
    }
  }

  /// `$XDG_DATA_HOME/folio/preserved/NAME-YYYYMMDD-HHMMSS`.
  static func preservedFolder(paths: FolioPaths, domain: DomainIdentifier) -> URL {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.dateFormat = "yyyyMMdd-HHmmss"
    return paths.dataHome.appendingPathComponent("folio/preserved/\(domain.rawValue)-\(f.string(from: Date()))", isDirectory: true)
  }

  static func displayName(of t: Transfer, index: WorkingSetIndex) -> String {
    if let item = try? index.item(domain: t.domain, identifier: t.identifier) { return item.item().path.displayString }
    return t.name?.displayString ?? t.identifier.rawValue
  }

  /// Copies each staged upload to `folder`, under its path in the domain (checked component by
  /// component, so it cannot land outside the folder); returns how many were copied.
  static func preserve(_ uploads: [Transfer], in folder: URL, index: WorkingSetIndex) throws(ProviderError) -> Int {
    var count = 0
    for t in uploads {
      guard let staged = t.stagedPath else { continue }
      var components: [ItemName] = []
      if let path = (try? index.item(domain: t.domain, identifier: t.identifier))?.item().path {
        components = path.bytes.split(separator: 0x2F).compactMap { try? ItemName.validated(Array($0)) }
      }
      if components.isEmpty, let name = t.name { components = [name] }
      if components.isEmpty { components = [ItemName("upload-\(t.id)")] }
      var target = folder
      for c in components { target.appendPathComponent(c.lossyString) }
      var candidate = target
      var n = 2
      while FileManager.default.fileExists(atPath: candidate.path) {
        candidate = target.deletingLastPathComponent().appendingPathComponent("\(target.lastPathComponent) \(n)")
        n += 1
      }
      do {
        try FileManager.default.createDirectory(at: candidate.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: staged.lossyString, toPath: candidate.path)
      } catch {
        throw ProviderError(
          .ioError, "could not keep \(staged.displayString): \(error.localizedDescription); nothing was removed")
      }
      count += 1
    }
    return count
  }

  static func move(_ from: URL, to: URL) throws(ProviderError) {
    do {
      try FileManager.default.createDirectory(at: to.deletingLastPathComponent(), withIntermediateDirectories: true)
      try FileManager.default.moveItem(at: from, to: to)
    } catch {
      throw ProviderError(.ioError, "could not keep the downloaded files: \(error.localizedDescription); nothing was removed")
    }
  }
}
