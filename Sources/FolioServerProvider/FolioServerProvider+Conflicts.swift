import FolioProtocol
import ProviderAPI

extension FolioServerProvider: ConflictResolvingProvider {
  /// The server settles its stale-base copies itself, atomically: the sync engine's one path for
  /// the browser and `folio resolve` comes here for them.
  public func resolveConflict(copy: ItemIdentifier, keeping choice: ConflictChoice) async throws(ProviderError) -> Item {
    let keep: ResolveConflictRequest.Keep =
      switch choice {
      case .keepMine: .copy
      case .keepTheirs: .original
      case .keepBoth: .both
      }
    return try await resolveConflict(copy: copy, keep: keep)
  }
}
