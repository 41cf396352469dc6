import Foundation
import ProviderAPI
import WorkingSetIndex

/// "Resolve Conflict…": keep mine (the copy that holds this side's bytes), keep theirs (the
/// server's item as it is), or keep both (two items, no conflict marks) — the one path of the
/// browser and `folio resolve`.
///
/// A provider whose storage resolves conflicts itself (`ConflictResolvingProvider`: FolioServer's
/// `POST /v1/conflicts/{copyId}/resolve`) resolves the stale-base copies it made; for any other
/// provider, and for the copy of a remote deletion, the engine resolves with the plain operations
/// of the contract: fetch both versions, modify the original from its current version with mine,
/// and the copy with theirs, then trash the copy. Either way nothing is deleted forever: the
/// version not kept goes to the trash. Where the storage has no trash (an SSH host) the version not
/// kept can only be deleted for good, so the caller must say `permanently` — refused before
/// anything changes otherwise, and the browser's menu and `folio resolve` say so in their words.
extension SyncEngine {
  /// The conflict an item is part of (as the copy or the original), if any.
  public func conflict(involving item: Item, in domain: Domain) throws(ProviderError) -> SyncConflict? {
    try index.conflict(domain: domain.identifier, involving: item.identifier)
  }

  /// Resolves a conflict.
  ///
  /// - Parameter permanently: Where the location has no trash, that the version not kept may be
  ///   deleted for good (ignored where there is a trash).
  /// - Returns: The item that holds the kept content (the original, or for `keepBoth` and remote
  ///   deletions the copy).
  @discardableResult
  public func resolve(_ conflict: SyncConflict, _ choice: ConflictChoice, permanently: Bool = false)
    async throws(ProviderError) -> Item
  {
    let domain = try registry.require(conflict.domain)
    let provider = domain.provider
    let hasTrash = domain.traits.hasTrash
    // The provider's own resolution is for the copies it made (a stale base it kept); the copy of
    // a remote deletion is an ordinary item this computer created, which it knows nothing about.
    if conflict.reason == .staleBase, let resolving = provider as? any ConflictResolvingProvider {
      let item = try await resolving.resolveConflict(copy: conflict.copy, keeping: choice)
      try index.removeConflict(domain: conflict.domain, copy: conflict.copy)
      try index.upsert([item], domain: conflict.domain)
      return item
    }
    let copy = try await provider.item(for: conflict.copy)
    let original: Item?
    if conflict.original == conflict.copy {
      // Path-keyed storage re-created the edited item where the deleted one was: same identifier,
      // but the original is gone all the same.
      original = nil
    } else {
      do {
        let found = try await provider.item(for: conflict.original)
        // Put in the trash there while edited here: as deleted (keeping mine must not write into
        // the trash); it stays restorable where it is.
        original = found.isTrashed ? nil : found
      } catch where error.code == .noSuchItem {
        original = nil  // deleted there while edited here: the copy is all there is
      }
    }
    let dropsAVersion = choice == .keepTheirs || (choice == .keepMine && original != nil)
    if dropsAVersion && !hasTrash && !permanently {
      throw ProviderError(
        .featureUnsupported,
        "\(domain.displayName) has no trash: keeping \(choice.rawValue) deletes the other version for good; "
          + "say so (folio resolve --permanently), or keep both")
    }
    guard let original, choice != .keepBoth else {
      if choice == .keepTheirs && original == nil {
        // Theirs is "deleted": the copy goes to the trash, where it can still be put back (or,
        // with no trash, away as asked).
        try await discard(copy, hasTrash: hasTrash, provider: provider, domain: domain)
      }
      try index.removeConflict(domain: conflict.domain, copy: conflict.copy)
      return original ?? copy
    }
    var kept = original
    var dropped = copy
    if choice == .keepMine {
      let folder = store.folder(for: domain.identifier)
      let (mine, fd) = try DurableFile.createTemporary(in: folder)
      close(fd)
      defer { DurableFile.remove(mine) }
      let (theirs, fd2) = try DurableFile.createTemporary(in: folder)
      close(fd2)
      defer { DurableFile.remove(theirs) }
      _ = try await provider.fetchContents(copy.identifier, version: nil, to: mine, progress: { _ in })
      if !hasTrash {
        // Nowhere to keep theirs: mine goes into the original, the copy away (asked for above).
        kept = try await modifyOriginal(original, with: mine, provider: provider, domain: domain)
        try await discard(copy, hasTrash: false, provider: provider, domain: domain)
        try index.removeConflict(domain: conflict.domain, copy: conflict.copy)
        return kept
      }
      // Theirs first: it goes into the copy, which then goes to the trash as the version not kept
      // (trashing the copy with mine in it lost theirs: the original's bytes were overwritten).
      _ = try await provider.fetchContents(original.identifier, version: original.version, to: theirs, progress: { _ in })
      kept = try await modifyOriginal(original, with: mine, provider: provider, domain: domain)
      dropped = try await provider.modifyItem(
        ItemTemplate(copy), baseVersion: copy.version, changedFields: .contents, contents: theirs)
    }
    _ = try await trash(dropped, provider: provider, domain: domain)
    try index.removeConflict(domain: conflict.domain, copy: conflict.copy)
    return kept
  }

  /// The original with `mine` as its content; a server that moved on meanwhile is a new conflict.
  private func modifyOriginal(_ original: Item, with mine: URL, provider: any Provider, domain: Domain)
    async throws(ProviderError) -> Item
  {
    let kept = try await provider.modifyItem(
      ItemTemplate(original), baseVersion: original.version, changedFields: .contents, contents: mine)
    if let e = kept.uploadingError, e.code == .localVersionConflictingWithServer {
      throw ProviderError(
        .localVersionConflictingWithServer,
        "\(original.filename.displayString) changed on the server again; resolve the new conflict first",
        existingItem: e.existingItem)
    }
    try index.upsert([kept], domain: domain.identifier)
    if let local = try store.localFile(domain: domain.identifier, identifier: original.identifier),
      local.content.state == .clean
    {
      _ = try index.markContentStale(domain: domain.identifier, identifier: original.identifier, remoteVersion: kept.version)
    }
    return kept
  }

  /// The version not kept: to the trash, or — where there is none, and only when asked — away.
  private func discard(_ item: Item, hasTrash: Bool, provider: any Provider, domain: Domain) async throws(ProviderError) {
    if hasTrash {
      _ = try await trash(item, provider: provider, domain: domain)
      return
    }
    try await provider.deleteItem(item.identifier, baseVersion: item.version, options: [])
    if let local = try store.localFile(domain: domain.identifier, identifier: item.identifier) {
      try index.removeContent(domain: domain.identifier, identifier: item.identifier)
      DurableFile.remove(local.url)
    }
    _ = try index.recordDeleted(identifiers: [item.identifier], domain: domain.identifier)
  }

  private func trash(_ item: Item, provider: any Provider, domain: Domain) async throws(ProviderError) -> Item {
    var template = ItemTemplate(item)
    template.parentIdentifier = .trash
    let trashed = try await provider.modifyItem(
      template, baseVersion: item.version, changedFields: .parentItemIdentifier, contents: nil)
    try index.recordTrashed(trashed, originalPath: item.path, domain: domain.identifier)
    return trashed
  }
}
