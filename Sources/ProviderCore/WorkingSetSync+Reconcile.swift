import Foundation
import ProviderAPI
import WorkingSetIndex

/// The full re-enumeration after `syncAnchorExpired` (or before the first sync): what the change
/// log can no longer tell is asked item by item.
extension WorkingSetSync {
  /// Takes the provider's current anchor first (changes after it are read next time, so nothing
  /// between is missed), lists the working set where the provider can, and checks every item the
  /// index knows that the listing lacks by its identifier.
  ///
  /// A listing that fails stops everything with nothing deleted and no anchor saved: the next
  /// sync starts over. A listing that is empty or partial deletes nothing by itself: only a
  /// `noSuchItem` for an item's own identifier does, and never more than `massDeleteShare` of the
  /// known items at once unless `allowMassDeletion` (rclone bisync's `--max-delete`, D1, D2).
  func reconcile(allowMassDeletion: Bool) async throws(ProviderError) -> Summary {
    var summary = Summary()
    summary.reconciled = true
    let anchor = try await provider.currentSyncAnchor(for: .workingSet)

    var listed: [ItemIdentifier: Item] = [:]
    var page: Page?
    listing: repeat {
      let answer: ItemPage
      do {
        answer = try await provider.enumerate(
          EnumerationRequest(container: .workingSet, includeHidden: true, suggestedPageSize: 500), page: page,
          progress: { _ in })
      } catch where error.code == .featureUnsupported || error.code == .noSuchItem {
        break listing  // no working-set listing here: the known items are checked one by one
      }
      for item in answer.items { listed[item.identifier] = item }
      page = answer.nextPage
    } while page != nil

    var updates = Array(listed.values)
    var gone: [ItemIdentifier] = []
    var unconfirmed = 0
    let known = try index.itemIdentifiers(domain: domain)
    for identifier in known where listed[identifier] == nil && !identifier.isReserved {
      do {
        updates.append(try await provider.item(for: identifier))
      } catch where error.code == .noSuchItem {
        gone.append(identifier)
      } catch where error.isResolvable || error.code == .cancelled {
        throw error  // offline or signed out: no reconciliation now, and nothing deleted
      } catch {
        unconfirmed += 1  // unknown: kept as it is, and asked again by the next sync
      }
    }
    if !allowMassDeletion && gone.count >= massDeleteMinimum && Double(gone.count) > massDeleteShare * Double(known.count) {
      summary.heldDeletions = gone
      events.send(
        .syncFailed(
          domain,
          error: ProviderError(
            .cannotSynchronize,
            "\(domain): the server no longer knows \(gone.count) of \(known.count) items; nothing was deleted here (run `folio sync --allow-deletions` if that is right)"
          )))
      try await apply(updated: updates, deleted: [], into: &summary)
      return summary  // no anchor: the next sync reconciles (and asks) again
    }
    try await apply(updated: updates, deleted: gone, into: &summary)
    // An item the server did not answer for (a 503) may be gone: with the anchor set, a delete
    // from before it is never seen again, and the index would show the item for ever (folio-sim,
    // seed 494). Without it, the next sync reconciles and asks again.
    if unconfirmed == 0 { try index.setAnchor(anchor, domain: domain) }
    return summary
  }
}
