import ProviderAPI

extension FolioServerProvider {
  /// Folio's own server (docs/PROTOCOL.md): a change log with a long-poll, server identifiers,
  /// a trash, ranges, versions checked on every write, SHA-256 of every revision, and the
  /// per-user tags and favorite ranks kept on the server.
  public var traits: ProviderTraits { .folioServer }
}

extension ProviderTraits {
  public static let folioServer = ProviderTraits(
    content: .synced, changeFeed: .push, identity: .stable, hasTrash: true, rangedReads: true,
    conditionalWrites: .honoured, contentHash: .sha256, storesFavorites: true, namesAreBytes: false)
}
