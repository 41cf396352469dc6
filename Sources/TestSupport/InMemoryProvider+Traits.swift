import ProviderAPI

extension ProviderTraits {
  /// The in-memory double of FolioServerProvider: remote storage like Folio's server.
  public static let inMemory = ProviderTraits(
    content: .synced, changeFeed: .push, identity: .stable, hasTrash: true, rangedReads: true,
    conditionalWrites: .honoured, contentHash: .sha256, storesFavorites: true)
}

extension AuthenticatingProvider {
  public nonisolated var traits: ProviderTraits { backing.traits }
}
