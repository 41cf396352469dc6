import Foundation
import ProviderAPI
import WorkingSetIndex

/// Where a ``ListingPoller``'s findings enter the index, for storage without a change feed: the
/// same path as a change batch (`apply(updated:deleted:into:)`: working-set items only, stale
/// content, edits here beating deletes there), after moves are re-keyed.
extension WorkingSetSync {
  /// Applies what one listing of a folder showed: moves first (the old item's rows, tags,
  /// favorite, last use, queued transfers and cached file follow it to its new identifier),
  /// then updates and deletions. Held deletions are reported as `syncFailed`, as a
  /// reconciliation's are, and nothing of them is applied.
  @discardableResult
  public func applyListing(_ changes: ListingChanges) async throws(ProviderError) -> Summary {
    var summary = Summary()
    for move in changes.moves { try relink(move) }
    try await apply(
      updated: changes.updatedItems, deleted: changes.deletedIdentifiers, into: &summary,
      favoritesListed: provider.traits.storesFavorites, tagsListed: provider.traits.storesTags)
    if !changes.moves.isEmpty || changes.folderChanged {
      // A folder shown in the browser is listed again (its new files are not in the working set,
      // so applying them above said nothing).
      events.send(
        .itemsChanged(
          domain, updated: changes.moves.map(\.new.identifier) + (changes.folderChanged ? [changes.folder] : []),
          deleted: changes.moves.map(\.old.identifier)))
    }
    if !changes.heldDeletions.isEmpty {
      summary.heldDeletions = changes.heldDeletions
      summary.ambiguousMoves = changes.ambiguousMoves
      events.send(.syncFailed(domain, error: ProviderError(.cannotSynchronize, "\(domain): " + Self.heldText(summary))))
    }
    return summary
  }

  /// Re-keys a file renamed elsewhere on path-keyed storage: its cached content is linked under
  /// the new identifier first, the index rows move in one transaction, then the old name of the
  /// cached file goes. A crash between the steps leaves a spare file, never a row without one.
  func relink(_ move: ListingMove) throws(ProviderError) {
    let old = move.old
    let new = move.new
    guard old.path != new.path, !old.isFolder else { return }
    let oldURL = store.fileURL(domain: domain, identifier: old.identifier)
    let newURL = store.fileURL(domain: domain, identifier: new.identifier)
    var linked = false
    if try index.content(domain: domain, identifier: old.identifier) != nil, DurableFile.exists(oldURL) {
      try DurableFile.link(oldURL, as: newURL)
      linked = true
    }
    // Only the item itself moves (a file has nothing below it), so the mapping needs only its
    // two paths and its folder.
    let (oldPath, newPath, oldID, newID, parent) = (old.path, new.path, old.identifier, new.identifier, new.parentIdentifier)
    do {
      try index.rekey(
        domain: domain, from: oldPath, to: newPath,
        identifier: { p in p == oldPath ? oldID : p == newPath ? newID : p == newPath.parent ? parent : ItemIdentifier(p.lossyString) },
        path: { id in id == oldID ? oldPath : nil })
    } catch {
      if linked { DurableFile.remove(newURL) }
      throw error
    }
    if linked { DurableFile.remove(oldURL) }
  }

  /// What a sync that held deletions says, and what a person can do. Renames that could not be
  /// told apart are not "deletions if that is right": confirming would forget them with their
  /// tags, so the text says where they are instead.
  public static func heldText(_ summary: Summary) -> String {
    let ambiguous = summary.ambiguousMoves.count
    let plain = summary.heldDeletions.count - ambiguous
    var parts: [String] = []
    if plain > 0 {
      parts.append(
        "the server no longer has \(plain) item(s) this computer knows; nothing was deleted here (if that is right: folio sync --allow-deletions)")
    }
    if ambiguous > 0 {
      parts.append(
        "\(ambiguous) item(s) look renamed on the server, but files alike (same size and time) make it unclear which is which; nothing was deleted here and their tags stay (open the folder to find them; --allow-deletions would forget them with their tags)")
    }
    return parts.joined(separator: "; ")
  }
}
