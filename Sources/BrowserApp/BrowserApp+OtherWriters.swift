import BrowserUI
import Foundation
import ProviderCore
import WorkingSetIndex

/// What other `folio` processes write to the index, as the loop hears it.
extension BrowserApp {
  /// How often the index is asked whether another process wrote it.
  static let otherWritersInterval: Duration = .seconds(1)

  /// Recents and the sidebar are GRDB observations, which see this process's commits only: a
  /// `folio tag`, `folio pin` or `folio sync` in another terminal would show only after a key.
  /// The index's version of other writers is read once a second, off the loop (the read waits
  /// for the writer's connection), and a change reads both lists again. The folder on screen is
  /// not reloaded: a `folio sync` writing for minutes would reload a million-entry folder each
  /// second; Ctrl-R does it.
  func watchOtherWriters() {
    let index = services.index
    syncTasks.append(
      Task.detached { [weak self] in
        var seen = try? index.versionOfOtherWriters()
        while !Task.isCancelled {
          try? await Task.sleep(for: Self.otherWritersInterval)
          guard let now = try? index.versionOfOtherWriters(), now != seen else { continue }
          seen = now
          guard let self else { return }
          await self.send(.indexChangedElsewhere)
          // Transfers another process journaled or left throttled: this window's queue runs
          // them (it is the one that stays), and lists them.
          if let engine = await self.services.sync {
            await engine.queue.journalChanged()
            let remote = await self.services.registry.domains.filter { $0.isSynced }.map(\.identifier)
            await self.readJournal(remote, engine: engine)
          }
        }
      })
  }
}
