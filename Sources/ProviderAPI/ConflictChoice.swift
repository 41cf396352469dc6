/// What a person keeps when resolving a conflict: the one choice the browser's "Resolve
/// Conflict…", `folio resolve --keep` and the sync engine share.
public enum ConflictChoice: String, Sendable, Equatable, CaseIterable, Codable {
  /// Mine: the conflict copy's bytes (the edit that lost the race) become the item's.
  case keepMine = "mine"
  /// Theirs: the server's version stays; the copy goes to Recently Deleted.
  case keepTheirs = "theirs"
  /// Both stay, as two items with no conflict mark.
  case keepBoth = "both"
}

/// A provider whose storage settles the conflicts it kept as copies itself (FolioServer's
/// `POST /v1/conflicts/{copy}/resolve`), in one request and atomically on its side. Optional: for
/// any other storage the sync engine resolves with the plain operations of the contract.
public protocol ConflictResolvingProvider: Provider {
  /// Resolves the conflict whose copy is `copy` (a stale-base copy this storage made). The
  /// version not kept goes to its trash, never away for good.
  ///
  /// - Returns: The item that holds the kept content.
  func resolveConflict(copy: ItemIdentifier, keeping choice: ConflictChoice) async throws(ProviderError) -> Item
}
