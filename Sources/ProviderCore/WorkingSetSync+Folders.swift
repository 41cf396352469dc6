import ProviderAPI
import WorkingSetIndex

extension WorkingSetSync {
  /// The most folders looked up by one sync.
  static let folderLookupsPerSync = 64

  /// Keeps the folders between the index's rows and the top: each folder the index holds rows
  /// in but has no row for is looked up and kept (not in the working set: not in Recents), then
  /// its own folder, until every row is linked to the top through indexed folders.
  ///
  /// Why: with stable identifiers a change names only an item's new place. A folder renamed and
  /// then trashed elsewhere reaches this computer as one change, "now in the trash, was at
  /// /docs"; the index found its files by their folders or by that old path, and files two
  /// levels down, in a folder it did not keep, were at neither: they kept a path the server no
  /// longer had and read as live in Recents (folio-sim, seed 203161). Linked through their
  /// folders, they follow any move of any folder above them, as every indexed row does.
  ///
  /// Only for storage with stable identifiers (a path-keyed identifier names its folders
  /// already). At most ``folderLookupsPerSync`` lookups a sync; a lookup that fails for the
  /// server's sake is tried at the next sync, a folder that is gone or refused is not asked again
  /// by this process. Never throws: a sync's changes are applied whatever happens here.
  func keepFolders() async {
    guard provider.traits.identity != .pathKeyed else { return }
    var budget = Self.folderLookupsPerSync
    while budget > 0 {
      guard let missing = try? index.unindexedFolders(domain: domain, limit: budget + foldersNotFound.count) else { return }
      let wanted = missing.filter { !foldersNotFound.contains($0) }.prefix(budget)
      if wanted.isEmpty { return }
      for identifier in wanted {
        budget -= 1
        do throws(ProviderError) {
          let folder = try await provider.item(for: identifier)
          guard folder.isFolder else {
            foldersNotFound.insert(identifier)
            continue
          }
          try index.upsert([folder], domain: domain, insertNew: true)
        } catch where error.code == .noSuchItem || error.code == .noPermission || error.code == .featureUnsupported {
          foldersNotFound.insert(identifier)
        } catch {
          return
        }
      }
    }
  }
}
