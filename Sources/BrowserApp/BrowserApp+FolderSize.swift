import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore

/// The size of a folder for Info (`z`): the folder walked through its provider's enumeration —
/// local and remote alike — in a task of its own, never on the loop. Progress is sent at most
/// every 100 ms; Esc or closing Info cancels the task (checked between pages). A folder that
/// cannot be listed is counted as unreadable and the walk goes on.
extension BrowserApp {
  func countFolder(ticket: UInt64, _ folder: Item, in domainID: DomainIdentifier) {
    guard let domain = services.registry.domain(domainID) else { return }
    let provider = domain.provider
    let needsPathHint = domain.traits.needsPathHint
    folderCounts[ticket] = Task.detached {
      var tally = FolderTally()
      var pending: [Item] = [folder]
      let clock = ContinuousClock()
      var lastSent = clock.now
      while let next = pending.popLast(), !Task.isCancelled {
        var page: Page? = nil
        do throws(ProviderError) {
          // A folder found by path is asked for fresh (local identifiers need their path).
          let container: ItemIdentifier
          if next.identifier == folder.identifier {
            container = try await provider.item(at: next.path).identifier
          } else {
            container = next.identifier
            if needsPathHint { _ = try await provider.item(for: container, pathHint: next.path) }
          }
          repeat {
            let result = try await provider.enumerate(
              EnumerationRequest(container: container, includeHidden: true, suggestedPageSize: 1000), page: page, progress: { _ in })
            for item in result.items {
              tally.items += 1
              if item.isFolder {
                // A link to a folder is counted, not followed (its target is elsewhere).
                if item.symlinkTargetPath == nil { pending.append(item) }
              } else {
                tally.bytes += item.documentSize ?? 0
              }
            }
            page = result.nextPage
            if clock.now - lastSent > .milliseconds(100) {
              lastSent = clock.now
              let now = tally
              await MainActor.run { self.send(.folderCounted(ticket: ticket, now, finished: false)) }
            }
          } while page != nil && !Task.isCancelled
        } catch {
          if error.code == .notAuthenticated || error.code == .serverUnreachable, next.identifier == folder.identifier {
            let failed = error
            await MainActor.run { self.send(.operationFailed(failed)) }
          }
          tally.unreadable += 1
        }
      }
      guard !Task.isCancelled else { return }
      let done = tally
      await MainActor.run {
        self.folderCounts[ticket] = nil
        self.send(.folderCounted(ticket: ticket, done, finished: true))
      }
    }
  }
}
