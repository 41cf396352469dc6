import Crypto
import Foundation
import ProviderAPI
import WorkingSetIndex

#if canImport(Glibc)
  import Glibc
#endif

/// Uploads: a new file (`createItem`) or new content for an item (`modifyItem` with the version
/// the edits started from). Nothing here ever drops the staged bytes before the provider returned
/// an item holding them, and nothing overwrites the server's bytes silently: a stale base ends
/// with both versions kept (test plan §1.5 I2, I3).
extension TransferQueue {
  nonisolated func performUpload(_ t: Transfer, provider: any Provider) async throws(ProviderError) -> Item {
    guard let path = t.stagedPath, let sha = t.sha256, let size = t.bytesTotal else {
      throw ProviderError(.invalidArgument, "upload \(t.id) in the journal has no staged copy")
    }
    let staged = ContentStore.Staged(url: URL(fileURLWithPath: path.lossyString), size: size, sha256: sha)
    if t.isCreate { return try await performCreate(t, staged, provider: provider) }
    return try await performModify(t, staged, provider: provider)
  }

  /// The upload's ``ItemTemplate/uploadToken``: 16 hex digits of the SHA-256 of its staged
  /// snapshot's path. That path is in the journal row (so every attempt, in any process, finds the
  /// same token), belongs to this upload alone (`up-UUID`), and is hashed so that no local path
  /// reaches the server.
  nonisolated static func uploadToken(_ t: Transfer) -> String? {
    guard let path = t.stagedPath else { return nil }
    return SHA256.hash(data: Array("folio-upload:".utf8) + path.bytes).prefix(8).map { String(format: "%02x", $0) }.joined()
  }

  /// True when the provider's item holds exactly the staged bytes, as far as it says (size, and
  /// SHA-256 when the item carries one).
  nonisolated static func holds(_ item: Item, _ staged: ContentStore.Staged) -> Bool {
    if let size = item.documentSize, size != staged.size { return false }
    if let sha = ContentHash.expected(in: item), sha != staged.sha256 { return false }
    return true
  }

  // MARK: - New files

  nonisolated func performCreate(_ t: Transfer, _ staged: ContentStore.Staged, provider: any Provider) async throws(ProviderError) -> Item {
    if let created = t.resultIdentifier {
      // A previous attempt created the item and then stopped (a crash, a failed check).
      let item: Item
      do throws(ProviderError) {
        item = try await provider.item(for: created)
      } catch where error.code == .noSuchItem {
        return try await finishVanishedCreate(t, created: created, staged, provider: provider)
      }
      if Self.holds(item, staged) { return try await finishCreate(t, item, staged, provider: provider) }
      // Other bytes there now: stored wrong, or edited by someone since the crash — which cannot
      // be told apart from here. Sending ours over them as an edit of the version found would
      // overwrite such an edit unseen (folio-sim, seed 416); ours go beside it as a copy.
      try index.updateTransfer(t.id, at: clock()) { row in
        row.parentIdentifier = item.parentIdentifier
        row.name = ConflictNames.conflictCopy(item.filename, at: clock())
        row.resultIdentifier = nil
        row.baseVersion = nil
      }
      throw ProviderError(
        .ioError, "the server holds other bytes than were sent for \(item.filename.displayString); sending them again beside it")
    }
    guard DurableFile.exists(staged.url) else {
      throw ProviderError(.noSuchItem, "the staged copy of upload \(t.id) is gone; nothing can be sent")
    }
    guard let parent = t.parentIdentifier, let wanted = t.name else {
      throw ProviderError(.invalidArgument, "upload \(t.id) has no destination")
    }
    var name = wanted
    var parentID = parent
    for bounce in 2...50 {
      var template = ItemTemplate(
        parentIdentifier: parentID, filename: name, contentType: ContentType.forExtension(name.pathExtension),
        contentModificationDate: clock())
      template.contentDigest = staged.digest
      template.uploadToken = Self.uploadToken(t)
      do throws(ProviderError) {
        var sending = TransferActivity(t)
        sending.name = name
        let item = try await provider.createItem(
          template, fields: [.contents, .filename], contents: staged.url, options: [],
          progress: { [events, progressGate, sending] p in
            // The browser's `↑ n%` on the new file's pending row, as for a download.
            var a = sending
            a.completedBytes = p.completedBytes
            a.totalBytes = p.totalBytes ?? staged.size
            progressGate.report(a, to: events)
          })
        try index.updateTransfer(t.id, at: clock()) { row in
          row.resultIdentifier = item.identifier
          row.name = name
        }
        var made = TransferActivity(t)
        made.name = name
        made.createdAs = item.identifier
        // The server holds the bytes: the badge must not fall back to 0% before the end.
        made.completedBytes = staged.size
        made.totalBytes = staged.size
        progressGate.report(made, to: events, force: true)
        guard Self.holds(item, staged) else {
          try index.updateTransfer(t.id, at: clock()) { row in
            row.identifier = item.identifier
            row.parentIdentifier = nil
            row.name = nil
            row.resultIdentifier = nil
            row.baseVersion = item.version
          }
          throw ProviderError(.ioError, "the server stored other bytes than were sent for \(name.displayString); sending them again")
        }
        return try await finishCreate(t, item, staged, provider: provider)
      } catch where error.code == .filenameCollision {
        // Our own earlier attempt (a crash after the server answered)? Only a hash proves it.
        if let existing = error.existingItem, let item = try? await provider.item(for: existing),
          await holdsExactly(item, staged, provider: provider, domain: t.domain)
        {
          try index.updateTransfer(t.id, at: clock()) { $0.resultIdentifier = item.identifier }
          return try await finishCreate(t, item, staged, provider: provider)
        }
        name = ConflictNames.numbered(wanted, bounce)
        // Said at once, so a browser's pending row shows the name the file will have.
        var renamed = TransferActivity(t)
        renamed.name = name
        progressGate.report(renamed, to: events, force: true)
      } catch where error.code == .noSuchItem && parentID != .root {
        // Keeping bytes whose folder is gone too: they go to the top of the location — edits,
        // and new files alike (folio-sim: a file put into a folder deleted elsewhere before it
        // was sent failed for good, its bytes only in the journal's staged copy).
        parentID = .root
      }
    }
    throw ProviderError(.filenameCollision, "no free name for \(wanted.displayString) in its folder")
  }

  /// True when `item` provably holds the staged bytes: its stated SHA-256, or — when it states
  /// none and the size matches — the SHA-256 of its content, downloaded to a temporary file. Only
  /// asked after a name collision, to recognise our own upload that landed before a crash.
  nonisolated func holdsExactly(
    _ item: Item, _ staged: ContentStore.Staged, provider: any Provider, domain: DomainIdentifier
  ) async -> Bool {
    guard !item.isFolder, item.documentSize == nil || item.documentSize == staged.size else { return false }
    if let sha = ContentHash.expected(in: item) { return sha == staged.sha256 }
    let folder = store.folder(for: domain)
    guard let (temp, fd) = try? DurableFile.createTemporary(in: folder) else { return false }
    close(fd)
    defer { DurableFile.remove(temp) }
    guard (try? await provider.fetchContents(item.identifier, version: nil, to: temp, progress: { _ in })) != nil,
      let digest = try? await BlockingWork.run({ c throws(ProviderError) in try DurableFile.digest(of: temp, cancel: c) })
    else { return false }
    return digest.size == staged.size && digest.sha256 == staged.sha256
  }

  nonisolated static func isPlaceholder(_ id: ItemIdentifier) -> Bool { id.rawValue.hasPrefix(placeholderPrefix) }

  /// The provider created the item: its bytes become the item's materialized content (no
  /// download needed), the transfer goes, and a copy kept for a conflict is recorded as one.
  nonisolated func finishCreate(
    _ t: Transfer, _ item: Item, _ staged: ContentStore.Staged, provider: any Provider
  ) async throws(ProviderError) -> Item {
    if DurableFile.exists(staged.url) { try store.adopt(staged, as: item, domain: t.domain, at: clock()) }
    // The bytes were edits of `t.identifier` that the server could not take as its content: what
    // became of the original decides its bookkeeping. Only `noSuchItem` says it is gone; any
    // other failure (a 503) is thrown, and the transfer is tried again (its created item is in
    // its journal row, so the next attempt resumes here). Taken for deleted, the original lost
    // its row, its Recents entry and its cached copy (folio-sim, seed 1106); left as it was, its
    // row stayed for ever once the feed had passed its deletion (seed 3459).
    var original: Item?
    if !Self.isPlaceholder(t.identifier) && item.identifier != t.identifier {
      do throws(ProviderError) {
        original = try await provider.item(for: t.identifier)
      } catch where error.code == .noSuchItem {
        original = nil
      }
    }
    // The journal row goes last: a crash before the original's bookkeeping below is done
    // resumes here, where removing the row first left the original's edited copy dirty for ever
    // (folio-sim, seed 416).
    defer {
      if (try? index.removeTransfer(t.id)) != nil { store.discardStaged(staged.url) }
    }
    if !Self.isPlaceholder(t.identifier) {
      // Path-keyed storage (an SSH host) gives the edits, re-created where the deleted item was,
      // the deleted item's identifier: the original is gone all the same (it used to be reported
      // as "changed here and elsewhere"), and the new item's content and row are the ones just made.
      let recreatedInPlace = item.identifier == t.identifier
      // Deleted, or put in the trash: either way not where the edits could go.
      let gone = recreatedInPlace || original == nil || original?.isTrashed == true
      let conflict = SyncConflict(
        domain: t.domain, original: t.identifier, copy: item.identifier,
        reason: gone ? .remoteDeletion : .staleBase, detected: clock())
      try index.recordConflict(conflict)
      if recreatedInPlace {
        // The bytes are this item's now. Its content record is the edits' (dirty, so the adopt
        // above left it alone): it holds the new version, clean unless edited again meanwhile
        // (folio-sim: it stayed dirty for ever, "not uploaded", though the upload was done).
        try await settleRecreated(t, item, staged)
      } else if gone, original != nil {
        // In the trash with the server's bytes: the edits live on in the new item. Unless newer
        // edits of it wait to be sent: its file holds those, and is what opening it (restored,
        // say) must show. Removed, the next open downloaded the server's older bytes, an edit of
        // them went out after the waiting one and replaced it (folio-sim, seed 258670).
        if !hasLaterEdits(than: t), let local = try store.localFile(domain: t.domain, identifier: t.identifier) {
          try index.removeContent(domain: t.domain, identifier: t.identifier)
          DurableFile.remove(local.url)
        }
      } else if original == nil {
        if let local = try store.localFile(domain: t.domain, identifier: t.identifier) {
          try index.removeContent(domain: t.domain, identifier: t.identifier)
          DurableFile.remove(local.url)
        }
        // The change feed left the row for this moment: the edits are safe in the new item.
        try index.recordDeleted(identifiers: [t.identifier], domain: t.domain)
      } else {
        try markTheirs(t.identifier, domain: t.domain, staged: staged)
      }
      events.send(.conflict(conflict))
    }
    return item
  }

  /// Whether edits of the same item newer than `t`'s wait in the journal: its local file holds
  /// them, and stays. (Unreadable journal: yes, the file is kept.)
  nonisolated func hasLaterEdits(than t: Transfer) -> Bool {
    guard let pending = try? index.pendingTransfers(domain: t.domain) else { return true }
    return pending.contains { $0.id != t.id && $0.identifier == t.identifier && $0.direction == .upload }
  }

  /// A create an earlier attempt made whose item is gone now: deleted, or moved away on path-keyed
  /// storage, by someone else before this process finished its bookkeeping. The bytes reached the
  /// server; what another actor did with them since is theirs to do (as for any upload followed by
  /// a delete elsewhere). The journal row goes, and the original of edits kept as a new file is
  /// settled as ``finishCreate`` does. Failing instead, as it did, left the original's edits dirty
  /// for ever and a failed upload no Retry could finish (folio-sim, seed 104778).
  ///
  /// - Returns: The created item as it was made (the browser reads its folder again).
  nonisolated func finishVanishedCreate(
    _ t: Transfer, created: ItemIdentifier, _ staged: ContentStore.Staged, provider: any Provider
  ) async throws(ProviderError) -> Item {
    if !Self.isPlaceholder(t.identifier) {
      do throws(ProviderError) {
        let original = try await provider.item(for: t.identifier)
        if original.isTrashed, !hasLaterEdits(than: t),
          let local = try store.localFile(domain: t.domain, identifier: t.identifier)
        {
          try index.removeContent(domain: t.domain, identifier: t.identifier)
          DurableFile.remove(local.url)
        } else if !original.isTrashed {
          try markTheirs(t.identifier, domain: t.domain, staged: staged)
        }
      } catch where error.code == .noSuchItem {
        if let local = try store.localFile(domain: t.domain, identifier: t.identifier) {
          try index.removeContent(domain: t.domain, identifier: t.identifier)
          DurableFile.remove(local.url)
        }
        try index.recordDeleted(identifiers: [t.identifier], domain: t.domain)
      }
    }
    if (try? index.removeTransfer(t.id)) != nil { store.discardStaged(staged.url) }
    let name = t.name ?? ItemName("file")
    return Item(
      identifier: created, parentIdentifier: t.parentIdentifier ?? .root, filename: name, path: ItemPath(bytes: name.bytes),
      contentType: ContentType.forExtension(name.pathExtension), documentSize: staged.size)
  }

  /// The content record of edits re-created where their deleted item was, under its identifier
  /// (path-keyed storage): the new version, and clean when the file still holds the bytes sent.
  nonisolated func settleRecreated(_ t: Transfer, _ item: Item, _ staged: ContentStore.Staged) async throws(ProviderError) {
    guard let local = try store.localFile(domain: t.domain, identifier: t.identifier), local.content.state == .dirty else {
      return
    }
    let now = try? await BlockingWork.run { _ throws(ProviderError) in try DurableFile.digest(of: local.url) }
    let stamp = DurableFile.stamp(of: local.url)
    _ = try index.updateContent(domain: t.domain, identifier: t.identifier) { content in
      content.version = item.version
      if now?.sha256 == staged.sha256, let stamp {
        content.state = .clean
        content.size = staged.size
        content.sha256 = staged.sha256
        content.fileStamp = stamp
      }
    }
  }

  // MARK: - New content for an item

  nonisolated func performModify(_ t: Transfer, _ staged: ContentStore.Staged, provider: any Provider) async throws(ProviderError) -> Item {
    guard let base = t.baseVersion else {
      throw ProviderError(.invalidArgument, "upload \(t.id) has no base version")
    }
    guard DurableFile.exists(staged.url) else {
      throw ProviderError(.noSuchItem, "the staged copy of upload \(t.id) is gone; nothing can be sent")
    }
    let indexed = try index.item(domain: t.domain, identifier: t.identifier)
    if let indexed, indexed.isTrashed || indexed.isInsideTrash {
      // Put in the trash elsewhere while it had edits here: as for a delete (I3), the edits win
      // and come back as a new item where it was; the trashed one stays restorable as it was.
      // (Sent into the trashed item they would be out of sight, in Recently Deleted.)
      let place = await Self.originalFolder(of: indexed, provider: provider)
      try convertToCopy(t, parent: place, name: indexed.originalPath?.lastComponent ?? indexed.name)
      guard let converted = try index.transfer(id: t.id) else { throw ProviderError.noSuchItem("transfer \(t.id)") }
      return try await performCreate(converted, staged, provider: provider)
    }
    do throws(ProviderError) {
      var template: ItemTemplate
      if let indexed { template = ItemTemplate(indexed.item()) } else {
        template = ItemTemplate(try await provider.item(for: t.identifier))
      }
      template.contentDigest = staged.digest
      template.uploadToken = Self.uploadToken(t)
      let item = try await provider.modifyItem(
        template, baseVersion: base, changedFields: .contents, contents: staged.url,
        progress: { [events, progressGate] p in
          // The `↑ n%` beside the edited file, as for a new file and a download.
          var a = TransferActivity(t)
          a.completedBytes = p.completedBytes
          a.totalBytes = p.totalBytes ?? staged.size
          progressGate.report(a, to: events)
        })
      if let conflict = item.uploadingError, conflict.code == .localVersionConflictingWithServer {
        return try await keptAsCopy(t, item, copy: conflict.existingItem, staged, provider: provider)
      }
      guard Self.holds(item, staged) else {
        try index.updateTransfer(t.id, at: clock()) { $0.baseVersion = item.version }
        throw ProviderError(
          .ioError, "the server stored other bytes than were sent for \(item.filename.displayString); sending them again")
      }
      try await finishModify(t, item, staged, base: base)
      return item
    } catch where error.code == .noSuchItem {
      // Deleted on the server while it had edits here: the edits win over the delete (I3) and
      // become a new item where it was.
      try convertToCopy(t, parent: indexed?.parentIdentifier ?? .root, name: indexed?.name ?? ItemName("Recovered file"))
    } catch where error.code == .cannotSynchronize {
      // A provider that refuses a stale base without keeping our bytes: keep them beside it.
      let refusal = error
      let current: Item
      do throws(ProviderError) {
        current = try await provider.item(for: t.identifier)
      } catch where error.code == .noSuchItem {
        // Gone meanwhile: as for a delete, the edits become a new item where it was.
        try convertToCopy(t, parent: indexed?.parentIdentifier ?? .root, name: indexed?.name ?? ItemName("Recovered file"))
        guard let converted = try index.transfer(id: t.id) else { throw ProviderError.noSuchItem("transfer \(t.id)") }
        return try await performCreate(converted, staged, provider: provider)
      }
      // (Any other failure of that lookup is thrown as it is: a 503 there is retried, where the
      // refusal rethrown latched the whole location for good — found by folio-sim.)
      guard current.version.content != base.content else { throw refusal }
      try convertToCopy(t, parent: current.parentIdentifier, name: ConflictNames.conflictCopy(current.filename, at: clock()))
    }
    guard let converted = try index.transfer(id: t.id) else { throw ProviderError.noSuchItem("transfer \(t.id)") }
    return try await performCreate(converted, staged, provider: provider)
  }

  /// The live folder a trashed item came from (the top of the location when that is gone too).
  nonisolated static func originalFolder(of item: IndexedItem, provider: any Provider) async -> ItemIdentifier {
    guard let original = item.originalPath, let found = try? await provider.item(at: original.parent), found.isFolder,
      !found.isTrashed
    else { return .root }
    return found.identifier
  }

  /// Turns a content upload into the creation of a new item holding the same bytes.
  nonisolated func convertToCopy(_ t: Transfer, parent: ItemIdentifier, name: ItemName) throws(ProviderError) {
    try index.updateTransfer(t.id, at: clock()) { row in
      row.parentIdentifier = parent
      row.name = name
      row.baseVersion = nil
      row.resultIdentifier = nil
    }
  }

  /// An accepted upload: one transaction moves the item, its content record and its later queued
  /// edits to the new version. The content is clean only if the file still holds the bytes sent
  /// (someone may have edited it again meanwhile: those edits stay dirty for the next upload).
  nonisolated func finishModify(_ t: Transfer, _ item: Item, _ staged: ContentStore.Staged, base: ItemVersion) async throws(ProviderError) {
    let file = store.fileURL(domain: t.domain, identifier: t.identifier)
    let now = try? await BlockingWork.run { _ throws(ProviderError) in try DurableFile.digest(of: file) }
    let stamp = DurableFile.stamp(of: file)
    try index.finishUpload(t.id, item: item, domain: t.domain, base: base) { content in
      content.version = item.version
      content.size = staged.size
      content.sha256 = staged.sha256
      if now?.sha256 == staged.sha256, let stamp {
        content.state = .clean
        content.fileStamp = stamp
      } else {
        content.state = .dirty
      }
    }
    store.discardStaged(staged.url)
  }

  /// The provider kept our bytes as a conflict copy and left the item as it was ("theirs" wins on
  /// disk, as in Apple's sample): record the conflict and let the next open fetch theirs.
  nonisolated func keptAsCopy(
    _ t: Transfer, _ item: Item, copy: ItemIdentifier?, _ staged: ContentStore.Staged, provider: any Provider
  ) async throws(ProviderError) -> Item {
    try index.finishUpload(t.id, item: item, domain: t.domain, base: nil)
    if let copy {
      if let copyItem = try? await provider.item(for: copy) {
        try index.upsert([copyItem], domain: t.domain, insertNew: true)
      }
      let conflict = SyncConflict(
        domain: t.domain, original: t.identifier, copy: copy, reason: .staleBase, detected: clock())
      try index.recordConflict(conflict)
      events.send(.conflict(conflict))
    }
    try markTheirs(t.identifier, domain: t.domain, staged: staged)
    store.discardStaged(staged.url)
    return item
  }

  /// After a conflict the local file holds "mine", which is now safe in the copy: the content is
  /// stale (the next open downloads theirs) — unless it was edited again since, when it stays
  /// dirty and its next upload makes another copy rather than overwrite theirs.
  nonisolated func markTheirs(_ identifier: ItemIdentifier, domain: DomainIdentifier, staged: ContentStore.Staged) throws(ProviderError) {
    guard let local = try store.localFile(domain: domain, identifier: identifier) else { return }
    let current = try? DurableFile.digest(of: local.url)
    guard current?.sha256 == staged.sha256 else { return }
    try index.updateContent(domain: domain, identifier: identifier) { c in
      c.state = .stale
      c.sha256 = staged.sha256
      c.fileStamp = DurableFile.stamp(of: local.url) ?? c.fileStamp
    }
  }
}
