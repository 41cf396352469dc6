import BrowserApp
import BrowserUI
import FolioConfig
import FolioProtocol
import FolioServerProvider
import Foundation
import ProviderAPI
import ProviderCore
import WorkingSetIndex

/// The browser's remote locations, composed: which provider a domain is (only here), where its
/// secret is kept, and what the sidebar and the sign-in prompt know about it.
enum BrowseRemote {
  /// The hooks the app calls for remote locations (``RemoteHooks``).
  static func hooks(registry: DomainRegistry, configuration: FolioConfiguration, paths: FolioPaths) -> RemoteHooks {
    let store = CredentialsStore(paths: paths)
    let users = configuredUsers(configuration)
    return RemoteHooks(
      status: { id in
        guard let provider = registry.domain(id)?.provider as? any AccountStatusProviding else { return nil }
        return status(await provider.accountStatus())
      },
      saveSecret: { (id: DomainIdentifier, user: String, secret: String) throws(ProviderError) -> String? in
        // The credentials file holds a password for the user config.toml names; a person who
        // signed in as someone else keeps that session, but it is not written down for next time.
        if let configured = users[id], configured != user {
          return "Signed in as \(TerminalText.escape(user)) for now; config.toml signs in as \(TerminalText.escape(configured)), so the password was not saved"
        }
        try store.setSecret(secret, for: id)
        if users[id] == nil, Self.isS3(id, configuration) {
          // A bucket whose keys were found nowhere: the access key id goes into its [[domain]]
          // table, so the saved secret is used next time (it is not a secret; the secret is not
          // written there).
          let file = paths.configFile
          let text = try DomainConfigEditor.read(file)
          try DomainConfigEditor.write(
            try DomainConfigEditor.setting("access_key_id", to: user, in: id, text: text, file: file.path, paths: paths), to: file)
        }
        return nil
      })
  }

  static func isS3(_ id: DomainIdentifier, _ configuration: FolioConfiguration) -> Bool {
    configuration.domains.contains { if $0.identifier == id, case .remote("s3", _) = $0.kind { true } else { false } }
  }

  /// The user each remote location signs in as (`user = "…"` of its `[[domain]]`).
  static func configuredUsers(_ configuration: FolioConfiguration) -> [DomainIdentifier: String] {
    var out: [DomainIdentifier: String] = [:]
    for d in configuration.domains {
      if case .remote(_, let settings) = d.kind, let user = settings["user"] ?? settings["access_key_id"] { out[d.identifier] = user }
    }
    return out
  }

  /// The sidebar's locations: remote ones with the user they sign in as and a hint for the
  /// prompt (`folio demo` gives one).
  static func locations(
    _ registry: DomainRegistry, configuration: FolioConfiguration, hints: [DomainIdentifier: String]
  ) -> [LocationEntry] {
    let users = configuredUsers(configuration)
    return AppServices.locationEntries(of: registry).map { entry in
      var e = entry
      e.userName = users[entry.domain]
      e.signInHint = hints[entry.domain]
      if isS3(entry.domain, configuration) { e.credentialLabels = CredentialLabels(user: "Access key", secret: "Secret key") }
      // ssh signs in to an SSH host: its questions come to the question box, not to a form.
      e.signsInByQuestions = configuration.domains.contains {
        if $0.identifier == entry.domain, case .remote("sftp", _) = $0.kind { true } else { false }
      }
      return e
    }
  }

  static func status(_ s: AccountStatus) -> LocationStatus {
    switch s {
    case .online: return .online
    case .overQuota: return .overQuota
    case .needsSignIn(let m): return .needsSignIn(m)
    case .offline(let m): return .offline(m)
    case .failed(let e): return e.code == .serverNotTrusted ? .untrusted(e.message) : .error(e.message)
    }
  }

  /// The sync engine of the remote locations, or nil when there are none.
  static func engine(registry: DomainRegistry, index: WorkingSetIndex, configuration: FolioConfiguration, paths: FolioPaths)
    -> SyncEngine?
  {
    guard registry.domains.contains(where: { $0.isSynced }) else { return nil }
    return SyncEngine(
      registry: registry, index: index, contentRoot: paths.contentCache, cacheBudget: configuration.cacheBudgetBytes)
  }

  /// What is still on its way up when the browser quits: said on stderr once the terminal is
  /// back, so nobody believes their edits are on the server when they are not.
  static func pendingNote(_ engine: SyncEngine) -> String? {
    var uploads = 0
    for d in engine.remoteDomains {
      uploads += ((try? engine.index.pendingTransfers(domain: d.identifier)) ?? []).filter { $0.direction == .upload }.count
    }
    guard uploads > 0 else { return nil }
    return "\(uploads) upload\(uploads == 1 ? " is" : "s are") still waiting; \(uploads == 1 ? "it goes" : "they go") when folio next runs (or now: folio sync)"
  }
}
