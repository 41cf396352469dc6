import Foundation
import ProviderAPI
import WorkingSetIndex

/// What became of an item that the working set names (a Recents, Tags, search or favorite entry),
/// found by its identifier with its last known path as the hint.
public enum EntryResolution: Sendable, Equatable {
  /// It is where the entry says; its metadata refreshed.
  case current(Item)
  /// It was renamed or moved behind Folio's back and found by its identifier: the index now says
  /// where (its tags, favorite and last use went with it).
  case moved(Item, from: ItemPath)
  /// Nothing with its identifier can be found: deleted, or moved where the hint does not lead.
  case gone(ProviderError)
}

extension ItemService {
  /// Resolves an entry of the working set to the item it names before anything acts on it.
  ///
  /// The index's path is only where the item was last seen: a file renamed in another shell keeps
  /// its identifier (local identifiers are inodes), and a new file at the old path is another item.
  /// Opening the old path would hand an editor a name that no longer exists, and the editor would
  /// create an empty file there (issue 9). So the provider is asked for the identifier, with the
  /// path as a hint; a move is followed and written to the index, a missing item is reported, never
  /// replaced by whatever now sits at the path.
  ///
  /// A remote location that cannot be reached answers with the index's view: the sync engine serves
  /// the downloaded copy and journals edits, as `itemAllowingOffline` does for paths.
  ///
  /// - Parameters:
  ///   - offlineAnswersFromIndex: false for a caller about to change the item, which must fail
  ///     when the storage cannot be reached.
  ///   - recordingMoves: false for a read-only command (`folio recents`): a move is reported, the
  ///     index left as it is.
  public func resolve(
    _ item: Item, in domain: Domain, offlineAnswersFromIndex: Bool = true, recordingMoves: Bool = true
  ) async throws(ProviderError) -> EntryResolution {
    let fresh: Item
    do throws(ProviderError) {
      fresh = try await domain.provider.item(for: item.identifier, pathHint: item.path)
    } catch where error.code == .noSuchItem {
      return .gone(error)
    } catch where error.code == .serverUnreachable && domain.isSynced && offlineAnswersFromIndex {
      return .current(item)
    }
    // An identifier can be reused: a filesystem gives a deleted file's inode to the next file
    // made, often at once (the editor's new file at the old path). A creation date never changes,
    // so two different ones mean another item.
    if Self.isReused(fresh, seenCreated: item.creationDate) {
      return .gone(
        ProviderError(
          .noSuchItem, "no such item: \(item.path.displayString) (it was deleted; another item has its identifier now)"))
    }
    let annotated = annotate([fresh], domain: domain.identifier)[0]
    if fresh.path != item.path || fresh.identifier != item.identifier {
      if recordingMoves {
        try index.recordMoved(identifier: item.identifier, to: fresh, domain: domain.identifier, from: item.path)
      }
      return .moved(annotated, from: item.path)
    }
    return .current(annotated)
  }

  /// Removes an entry whose item is gone from the working set: its row, and so its place in
  /// Recents, Favorites and Tags. Indexed items below a gone folder keep their rows: each is
  /// resolved on its own when it is opened (one of them may have been moved out before).
  public func forget(_ item: Item, in domain: Domain) throws(ProviderError) {
    try index.forget(identifier: item.identifier, domain: domain.identifier)
  }
}
