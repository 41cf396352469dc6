import ProviderAPI
import Testing

@testable import ProviderCore
@testable import TestSupport

@Suite struct DomainRegistryTests {
  static func domain(_ name: String, local: Bool = false) -> Domain {
    Domain(
      identifier: DomainIdentifier(unchecked: name), displayName: name,
      provider: InMemoryProvider(domain: DomainIdentifier(unchecked: name), traits: local ? .localFilesystem : .inMemory),
      localRoot: local ? .root : nil)
  }

  @Test func theLocalDomainComesFirstThenTheOthersInOrder() throws {
    var registry = DomainRegistry(local: Self.domain("local", local: true))
    try registry.add(Self.domain("work"))
    try registry.add(Self.domain("photos"))
    #expect(registry.domains.map(\.identifier.rawValue) == ["local", "work", "photos"])
    #expect(registry.local.identifier == .local)
    #expect(registry.local.hasDirectContent)
    #expect(registry.domain(DomainIdentifier(unchecked: "work"))?.isSynced == true)
    #expect(registry.domain(DomainIdentifier(unchecked: "photos"))?.provider.domain.rawValue == "photos")
    #expect(registry.domain(DomainIdentifier(unchecked: "Photos")) == nil)
  }

  @Test func aDuplicateNameIsRefusedAndNothingChanges() throws {
    var registry = DomainRegistry(local: Self.domain("local", local: true))
    try registry.add(Self.domain("work"))
    let error = #expect(throws: ProviderError.self) { try registry.add(Self.domain("work")) }
    #expect(error?.code == .badConfig)
    #expect(error?.message.contains("'work'") == true)
    // The local domain's name is taken too.
    let local = #expect(throws: ProviderError.self) { try registry.add(Self.domain("local")) }
    #expect(local?.code == .badConfig)
    #expect(registry.domains.map(\.identifier.rawValue) == ["local", "work"])
    // The first "work" is still the one registered.
    #expect(registry.domain(DomainIdentifier(unchecked: "work"))?.displayName == "work")
  }

  @Test func requireFindsADomainOrListsTheKnownNames() throws {
    var registry = DomainRegistry(local: Self.domain("local", local: true))
    try registry.add(Self.domain("work"))
    try registry.add(Self.domain("photos"))
    #expect(try registry.require(DomainIdentifier(unchecked: "photos")).identifier.rawValue == "photos")

    let error = #expect(throws: ProviderError.self) { try registry.require(DomainIdentifier(unchecked: "wrok")) }
    #expect(error?.code == .noSuchItem)
    #expect(error?.message.contains("'wrok'") == true)
    #expect(error?.message.contains("known: local, work, photos") == true)
  }

  @Test func anUnknownNameIsEscapedInTheMessage() throws {
    // Registered names are validated by the config; the name asked for may be anything typed.
    let registry = DomainRegistry(local: Self.domain("local", local: true))
    let error = #expect(throws: ProviderError.self) {
      try registry.require(DomainIdentifier(unchecked: "\u{1B}]52;c;cHduZWQ=\u{07}"))
    }
    #expect(error?.message.unicodeScalars.contains("\u{1B}") == false)
    #expect(error?.message.unicodeScalars.contains("\u{07}") == false)
    #expect(error?.message.contains("known: local") == true)
  }
}
