import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore

/// Undo and Redo (`u`, `U`): the records the operations leave (`record`), and the runner that
/// takes them back (`UndoRunner`), off the loop.
extension BrowserApp {
  func performUndo(_ record: UndoRecord, redo: Bool) {
    let runner = UndoRunner(service: services.items, registry: services.registry)
    Task.detached {
      let outcome = await runner.run(record, redo: redo)
      await MainActor.run { self.send(.undoEnded(outcome)) }
    }
  }

  /// Files a done action for Undo (nothing when no step was done).
  nonisolated func record(_ title: String, _ steps: [UndoStep], in domain: DomainIdentifier) async {
    guard !steps.isEmpty else { return }
    await MainActor.run { self.send(.undoRecorded(UndoRecord(domain: domain, title: title, steps: steps))) }
  }
}
