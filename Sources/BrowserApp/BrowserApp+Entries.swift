import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore

/// Entries of the working set (Recents, Tags, search results, favorites) are resolved to the item
/// they name off the loop before the reducer acts on them (AppState+Entries.swift).
extension BrowserApp {
  func resolveEntry(_ row: IndexedRow) {
    guard let domain = services.registry.domain(row.domain) else {
      send(.operationFailed(ProviderError(.noSuchItem, "no location named \(row.domain)")))
      return
    }
    let retry = Effect.openEntry(row)
    background(retry: (row.domain, retry)) { services throws(ProviderError) in
      switch try await services.items.resolve(row.item, in: domain) {
      case .current(let item), .moved(let item, _): return .entryFound(row, item)
      case .gone(let error): return .entryGone(row, error)
      }
    }
  }

  /// Ctrl-R in Recents: each entry of this computer is found again by identifier (one lstat, and
  /// a scan of its folder when it is not where it was); moves are written to the index, whose
  /// observation redraws Recents. Server entries are kept current by the sync engine and are
  /// left alone (a request each would be a burst of hundreds).
  func checkEntries(_ rows: [IndexedRow]) {
    let services = self.services
    background { _ throws(ProviderError) in
      var followed = 0
      var missing: [ItemKey] = []
      for row in rows where !row.isDeleted {
        guard let domain = services.registry.domain(row.domain), domain.hasDirectContent else { continue }
        switch try await services.items.resolve(row.item, in: domain) {
        case .current: break
        case .moved: followed += 1
        case .gone: missing.append(ItemKey(row.domain, row.item.identifier))
        }
      }
      return .entriesChecked(followed: followed, missing: missing)
    }
  }
}
