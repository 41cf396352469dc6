import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore
import Synchronization

/// Renames and moves that take many requests (an S3 folder: a copy and a delete per key) show
/// their progress as a transfer does — the item's badge, `↑ 42%` — and the ones a quit or a crash
/// left unfinished are finished when the browser starts, in a task: the loop never waits for them.
extension BrowserApp {
  /// A rename's progress as the item's transfer badge: an Action each time the percent changes
  /// (a folder of thousands of keys reports thousands of steps), and the badge cleared by
  /// ``relocationDone(_:)``. The id is negative: no journaled transfer has it.
  nonisolated func relocationProgress(_ key: ItemKey, name: String) -> @Sendable (TransferProgress) -> Void {
    let last = Mutex<Int?>(nil)
    let id = -Int64.random(in: 1...Int64.max)
    return { [weak self] p in
      let changed = last.withLock { shown -> Bool in
        guard shown != p.percent else { return false }
        shown = p.percent
        return true
      }
      guard changed else { return }
      let state = TransferState(
        id: id, direction: .upload, phase: .running, completedBytes: p.completedBytes, totalBytes: p.totalBytes, name: name)
      Task { @MainActor in self?.send(.transfer(key, state)) }
    }
  }

  /// Clears the badge a rename's progress put on `key`.
  nonisolated func relocationDone(_ key: ItemKey) {
    Task { @MainActor [weak self] in self?.send(.transfer(key, nil)) }
  }

  /// Finishes the renames the journal of each remote location still holds (ItemService re-keys
  /// their tags and favorites), then lists again the locations where one finished.
  func resumeRelocations(_ remote: [DomainIdentifier]) {
    let services = self.services
    Task.detached { [weak self] in
      for d in remote {
        guard let domain = services.registry.domain(d),
          let moved = try? await services.items.resumeRelocations(in: domain), moved > 0
        else { continue }
        await MainActor.run { self?.send(.remoteItemsChanged(d)) }
      }
    }
  }
}
