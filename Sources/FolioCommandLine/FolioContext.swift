import BrowserApp
import FolioConfig
import Foundation
import LocalProvider
import ProviderAPI
import ProviderCore
import WorkingSetIndex

/// The composition root: reads the config, opens the index, builds the domains with their
/// concrete providers and the services the commands use. Only this file chooses providers.
struct FolioContext: Sendable {
  let paths: FolioPaths
  let configuration: FolioConfiguration
  let index: WorkingSetIndex
  let registry: DomainRegistry
  let items: ItemService
  let actions: ActionRunner
  let openers: OpenerResolver

  /// - Parameter readOnly: The command only reads (`ls`, `info`, `recents`, `search`,
  ///   `conflicts`): the index is opened without writing anything to disk
  ///   (``WorkingSetIndex/openForReading(at:)``).
  static func make(readOnly: Bool = false) throws(ProviderError) -> FolioContext {
    let paths = FolioPaths.current
    let configuration = try FolioConfiguration.loadChecked(paths: paths)
    let index = try readOnly ? WorkingSetIndex.openForReading(at: paths.indexFile) : WorkingSetIndex.open(at: paths.indexFile)
    return try make(paths: paths, configuration: configuration, registry: makeRegistry(configuration), index: index)
  }

  /// The context from parts made separately: the browser builds the registry first and reads the
  /// start folder while the index opens.
  static func make(
    paths: FolioPaths, configuration: FolioConfiguration, registry: DomainRegistry, index: WorkingSetIndex
  ) -> FolioContext {
    FolioContext(
      paths: paths, configuration: configuration, index: index, registry: registry,
      items: ItemService(registry: registry, index: index, contentRoot: paths.contentCache), actions: ActionRunner(userActions: configuration.actions),
      openers: OpenerResolver(rules: configuration.openers))
  }

  /// The domains with their concrete providers: nothing here needs the index.
  /// - Parameter commandLineHints: Whether `notAuthenticated` messages end with the command that
  ///   signs in (`folio domain login NAME`); the terminal UI asks in its own prompt instead.
  /// - Parameter signIn: The browser's question box: SSH hosts ask their questions there.
  static func makeRegistry(
    _ configuration: FolioConfiguration, commandLineHints: Bool = true, signIn: SignInBroker? = nil
  ) throws(ProviderError) -> DomainRegistry {
    var registry = DomainRegistry(
      local: Domain(identifier: .local, displayName: "This Computer", provider: LocalProvider(), localRoot: .root))
    for d in configuration.domains {
      if case .local(let root) = d.kind {
        let rootPath = ItemPath(root)
        try registry.add(
          Domain(
            identifier: d.identifier, displayName: d.displayName,
            provider: LocalProvider(domain: d.identifier, root: rootPath, displayName: d.displayName), localRoot: rootPath))
      } else {
        // A remote location that cannot be made (a key missing from its table) is left out, not
        // the end of every command: addressing it says why (``domain(for:registry:configuration:)``).
        guard
          let provider = try? RemoteDomains.provider(for: d, paths: .current, signInHint: commandLineHints, signIn: signIn)
        else { continue }
        try registry.add(Domain(identifier: d.identifier, displayName: d.displayName, provider: provider, localRoot: nil))
      }
    }
    return registry
  }

  /// The domain an address names, with a clear error for unknown and not-yet-supported ones.
  func domain(for address: ItemAddress) throws(ProviderError) -> Domain {
    try Self.domain(for: address, registry: registry, configuration: configuration)
  }

  /// The same before the index is open (the browser's launch).
  static func domain(
    for address: ItemAddress, registry: DomainRegistry, configuration: FolioConfiguration
  ) throws(ProviderError) -> Domain {
    guard let id = address.domain else { return registry.local }
    if let d = registry.domain(id) { return d }
    if let configured = configuration.domains.first(where: { $0.identifier == id }), case .remote(let type, _) = configured.kind {
      // Made again to say why it could not be: its configuration's error, or a type not served.
      _ = try RemoteDomains.provider(for: configured, paths: .current)
      throw ProviderError(
        .featureUnsupported,
        "the location '\(id)' is a \(type) location; this build of Folio serves local, folio, sftp, s3 and webdav locations only")
    }
    let known = registry.domains.map(\.identifier.rawValue).joined(separator: ", ")
    throw ProviderError(
      .noSuchItem,
      "no location named '\(TerminalText.escape(id.rawValue))' (known: \(known)); for a local file with a colon in its name write ./\(TerminalText.escape(id.rawValue)):…")
  }

  /// The real path an address points at: local paths as they are, `NAME:/p` under a local root.
  func path(for address: ItemAddress, in domain: Domain) -> ItemPath { Self.path(for: address, in: domain) }

  static func path(for address: ItemAddress, in domain: Domain) -> ItemPath {
    guard address.domain != nil, let root = domain.localRoot else { return address.path }
    if address.path == .root { return root }
    return ItemPath(bytes: (root == .root ? [] : root.bytes) + address.path.bytes)
  }

  /// Resolves a command-line argument to its domain and item.
  ///
  /// - Parameter offline: When the server cannot be reached, the item as the index last saw it
  ///   (put, open and get: work that is journaled, or served from the content cache).
  func resolve(_ argument: String, offline: Bool = false) async throws(ProviderError) -> (Domain, Item) {
    let address = try ItemAddress.parse(RawArguments.bytes(of: argument), currentDirectory: ItemAddress.currentDirectory)
    let domain = try self.domain(for: address)
    let path = path(for: address, in: domain)
    let item = try await offline ? items.itemAllowingOffline(at: path, in: domain) : items.item(at: path, in: domain)
    return (domain, item)
  }

  /// The location name shown for items of a domain ("local", "projects").
  func locationName(_ domain: Domain) -> String { domain.identifier.rawValue }
}
