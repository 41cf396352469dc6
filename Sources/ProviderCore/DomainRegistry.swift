import ProviderAPI

/// One configured location and the provider that serves it.
public struct Domain: Sendable {
  public let identifier: DomainIdentifier
  /// The name shown under Locations ("This Computer", "projects").
  public let displayName: String
  public let provider: any Provider
  /// For local domains: the folder shown as the root. Lets `NAME:/path` map onto a real path.
  public let localRoot: ItemPath?

  public init(identifier: DomainIdentifier, displayName: String, provider: any Provider, localRoot: ItemPath?) {
    self.identifier = identifier
    self.displayName = displayName
    self.provider = provider
    self.localRoot = localRoot
  }

  /// What the domain's storage can do (its provider's declaration).
  public var traits: ProviderTraits { provider.traits }
  /// Whether the sync engine caches and uploads this domain's content (a server), rather than
  /// programs getting the items' own paths (this computer).
  public var isSynced: Bool { traits.isSynced }
  /// Whether an item is its own file on this computer: openers and actions get its path.
  public var hasDirectContent: Bool { traits.content == .direct }
}

/// The domains Folio knows: the local computer (always present, named "This Computer") and the
/// ones from config. The composition root chooses the concrete providers; the registry only keeps
/// them, in the order the UI lists them.
public struct DomainRegistry: Sendable {
  public private(set) var domains: [Domain]

  public init(local: Domain) { domains = [local] }

  public var local: Domain { domains[0] }

  public mutating func add(_ domain: Domain) throws(ProviderError) {
    guard self.domain(domain.identifier) == nil else {
      throw ProviderError(.badConfig, "the location name '\(domain.identifier)' is used twice")
    }
    domains.append(domain)
  }

  public func domain(_ id: DomainIdentifier) -> Domain? { domains.first { $0.identifier == id } }

  public func require(_ id: DomainIdentifier) throws(ProviderError) -> Domain {
    guard let d = domain(id) else {
      let names = domains.map(\.identifier.rawValue).joined(separator: ", ")
      throw ProviderError(.noSuchItem, "no location named '\(TerminalText.escape(id.rawValue))' (known: \(names))")
    }
    return d
  }
}
