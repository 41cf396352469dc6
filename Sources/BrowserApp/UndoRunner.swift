import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore

/// Takes an ``UndoRecord`` back (Undo) or does it again (Redo, the record of an undo): first
/// every step is checked against the world — the item still where the action left it, with
/// the same content version, and its old place free — and only then does anything change. A
/// check that fails refuses the whole record, naming what changed, and touches nothing.
///
/// Items that trade places (a Rename in Editor that swapped two names) go through temporary
/// names first, as the bulk rename itself does, so no step finds its old name taken by another.
struct UndoRunner: Sendable {
  let service: ItemService
  let registry: DomainRegistry

  func run(_ record: UndoRecord, redo: Bool) async -> UndoOutcome {
    let verb = redo ? "redo" : "undo"
    let domain: Domain
    do throws(ProviderError) { domain = try registry.require(record.domain) } catch {
      return .failed(record, redo: redo, "Cannot \(verb) \(record.title): \(TerminalText.escapeMessage(error.message))")
    }
    // Check.
    var current: [Item] = []
    do throws(ProviderError) {
      let trashed = record.steps.contains { if case .trashed = $0 { return true } else { return false } }
        ? try await service.trashedItems(in: domain) : []
      let leaving = Set(record.steps.map(\.item.path))
      for step in record.steps {
        if let refusal = try await check(step, in: domain, trashed: trashed, leaving: leaving, found: &current) {
          return .refused("Cannot \(verb): \(refusal)")
        }
      }
    } catch {
      return .failed(record, redo: redo, "Cannot \(verb) \(record.title): \(TerminalText.escapeMessage(error.message))")
    }
    // Act.
    var inverse: [UndoStep] = []
    let swaps = record.steps.contains { step in
      guard case .moved(_, let from) = step else { return false }
      return record.steps.contains { $0.item.path == from }
    }
    var parked: [Int: Item] = [:]
    do throws(ProviderError) {
      if swaps {
        for (i, step) in record.steps.enumerated() {
          guard case .moved = step else { continue }
          let folder = try await domain.provider.item(at: current[i].path.parent)
          let temporary = ItemName(".folio-undo-\(UUID().uuidString.prefix(8))-\(i)")
          parked[i] = try await service.relocate(current[i], to: folder, named: temporary, in: domain)
        }
      }
      for (i, step) in record.steps.enumerated() {
        switch step {
        case .moved(_, let from):
          let item = parked[i] ?? current[i]
          let folder = try await domain.provider.item(at: from.parent)
          let back = try await service.relocate(item, to: folder, named: from.lastComponent ?? item.filename, in: domain)
          parked[i] = nil
          inverse.append(.moved(back, from: current[i].path))
        case .trashed:
          let restored = try await service.restore(current[i], in: domain)
          inverse.append(.restored(restored))
        case .restored:
          let trashed = try await service.trash(current[i], in: domain)
          inverse.append(.trashed(trashed, from: current[i].path))
        }
      }
    } catch {
      let left = parked.values.map { "; “\($0.filename.displayString)” is left at \($0.path.displayString)" }.joined()
      let rest = UndoRecord(domain: record.domain, title: record.title, steps: Array(record.steps.dropFirst(inverse.count)))
      return .failed(rest, redo: redo, "Could not \(verb) \(record.title): \(TerminalText.escapeMessage(error.message))\(left)")
    }
    let done = UndoRecord(domain: record.domain, title: record.title, steps: inverse)
    return .done(inverse: done, redo: redo, "\(redo ? "Redid" : "Undid") \(record.title)")
  }

  /// Why `step` cannot be taken back now, or nil (and the item as it is now appended to `found`).
  private func check(
    _ step: UndoStep, in domain: Domain, trashed: [Item], leaving: Set<ItemPath>, found: inout [Item]
  ) async throws(ProviderError) -> String? {
    let item = step.item
    let name = "“\(item.filename.displayString)”"
    let now: Item
    let from: ItemPath
    switch step {
    case .trashed(_, let was):
      guard let there = trashed.first(where: { $0.identifier == item.identifier }) else {
        return "\(name) is no longer in Recently Deleted"
      }
      now = there
      from = was
    case .moved(_, let was):
      guard let there = try await itemIfPresent(at: item.path, in: domain), there.identifier == item.identifier else {
        return "\(name) is no longer at \(item.path.parent.displayString)"
      }
      // A folder's content version moves with what it holds (a file saved inside): moving the
      // folder back is still what was asked, so only a file's edits refuse.
      guard item.isFolder || there.version.content == item.version.content else { return "\(name) was changed since" }
      now = there
      from = was
    case .restored:
      guard let there = try await itemIfPresent(at: item.path, in: domain), there.identifier == item.identifier else {
        return "\(name) is no longer at \(item.path.parent.displayString)"
      }
      guard item.isFolder || there.version.content == item.version.content else { return "\(name) was changed since" }
      found.append(there)
      return nil
    }
    // The old place: free, or held by an item of this record that leaves it first.
    if !leaving.contains(from), let taken = try await itemIfPresent(at: from, in: domain) {
      return "“\(taken.filename.displayString)” is taken in \(from.parent.displayString)"
    }
    found.append(now)
    return nil
  }

  private func itemIfPresent(at path: ItemPath, in domain: Domain) async throws(ProviderError) -> Item? {
    do throws(ProviderError) {
      return try await domain.provider.item(at: path)
    } catch where error.code == .noSuchItem {
      return nil
    }
  }
}
