import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore
import WorkingSetIndex

/// What the sync engine knows about a page of remote items, merged into them before they reach
/// the UI: whether each file's content is here (and current), whether it is kept downloaded
/// (itself or through a pinned folder), and whether an upload of it waits.
///
/// A remote provider describes its items as dataless: only this computer knows what it has
/// downloaded. Three reads of the index per page (materialized content, pins, pending
/// transfers), whatever the page's size — never one per item.
enum RemoteAnnotation {
  static func annotate(_ items: [Item], domain: DomainIdentifier, engine: SyncEngine) -> [Item] {
    guard !items.isEmpty else { return items }
    let index = engine.index
    var contents: [ItemIdentifier: MaterializedContent] = [:]
    for c in (try? index.allContent(domain: domain)) ?? [] { contents[c.identifier] = c }
    let pinned = ((try? index.pinnedItems(domain: domain)) ?? []).map { ($0.identifier, $0.path) }
    let uploads = Set(
      ((try? index.pendingTransfers(domain: domain)) ?? []).filter { $0.direction == .upload && $0.state != .failed }
        .map(\.identifier))
    return items.map { item in
      var it = item
      if !item.isFolder, let c = contents[item.identifier] {
        // Content with edits here is the newest this computer has; clean content is current only
        // at the server's version.
        let current = c.state == .dirty || (c.state == .clean && c.version.content == item.version.content)
        it.isDownloaded = current
        it.isMostRecentVersionDownloaded = current
      }
      if pinned.contains(where: { $0.0 == item.identifier || isBelow(item.path, $0.1) }) {
        it.contentPolicy = .downloadEagerlyAndKeepDownloaded
      }
      if uploads.contains(item.identifier) { it.isUploaded = false }
      return it
    }
  }

  /// Whether `path` is strictly inside `folder` (bytes, so no name is decoded to decide).
  static func isBelow(_ path: ItemPath, _ folder: ItemPath) -> Bool {
    let prefix = folder.bytes.last == 0x2F ? folder.bytes : folder.bytes + [0x2F]
    return path.bytes.count > prefix.count && path.bytes.starts(with: prefix)
  }

  /// The journal's pending transfers as the UI's transfer map: a Folio started after a crash or
  /// a quit shows what still waits (and Retry finds it) before the queue says anything.
  static func transfers(of domain: DomainIdentifier, engine: SyncEngine) -> [(ItemKey, TransferState)] {
    let now = Date()
    return ((try? engine.index.pendingTransfers(domain: domain)) ?? []).compactMap { t in
      let phase: TransferState.Phase
      var error: ProviderError?
      switch t.state {
      case .queued, .running:
        if let at = t.nextAttemptAt, at > now { phase = .retrying(at: at) } else { phase = .queued }
        error = t.lastError.map { ProviderError(.serverBusy, $0) }
      case .throttled:
        phase = .throttled
        // Only the resolvable codes latch (File Provider semantics §3).
        let code = [ProviderError.Code.notAuthenticated, .serverUnreachable, .insufficientQuota, .cannotSynchronize]
          .first { $0.rawValue == t.throttledByCode } ?? .cannotSynchronize
        error = ProviderError(code, t.lastError ?? "waiting")
      case .failed:
        phase = .failed
        error = ProviderError(.cannotSynchronize, t.lastError ?? "failed")
      case .done:
        return nil
      }
      return (
        ItemKey(domain, t.identifier),
        TransferState(
          id: t.id, direction: t.direction == .download ? .download : .upload, phase: phase, completedBytes: t.bytesDone,
          totalBytes: t.bytesTotal, error: error, name: t.name?.displayString,
          newFile: t.isCreate ? BrowserApp.newFile(t.identifier, parent: t.parentIdentifier, name: t.name) : nil)
      )
    }
  }
}
