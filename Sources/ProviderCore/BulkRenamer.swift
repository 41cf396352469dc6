import ProviderAPI

/// Performs a ``BulkRenamePlan`` through ``ItemService/rename(_:to:in:)`` — the path a single
/// Rename takes, so the provider checks each name, the index follows each item and a remote
/// location is renamed on its server.
///
/// Steps run one at a time, in the plan's order. The first refusal stops the batch: the cycle it
/// belongs to is undone step by step in reverse, so no item stays under a temporary name, and
/// the outcome says what was renamed and what was not. Renames of earlier chains and cycles stay
/// done (they are complete and independent); nothing later is tried.
public enum BulkRenamer {
  public struct Outcome: Sendable {
    /// Batch positions of the items now under their new name.
    public var renamed: [Int]
    /// Batch positions of the changed items that kept their old name.
    public var notRenamed: [Int]
    /// The step that failed and why; nil when every step ran.
    public var failure: (step: BulkRenamePlan.Step, error: ProviderError)?
    /// Items a failed undo left under a temporary name (only if the storage refused that too).
    public var leftAtTemporary: [(item: Int, name: ItemName)]
    /// The batch's items as they are now (renamed ones under their new name): what Undo takes back.
    public var items: [Item] = []

    /// One status line: "Renamed 3 items", or what stopped and where things stand.
    public func message(names: [ItemName]) -> String {
      func count(_ n: Int) -> String { "\(n) item\(n == 1 ? "" : "s")" }
      guard let failure else { return "Renamed \(count(renamed.count))" }
      let original = names[failure.step.item]
      var text =
        "Stopped: “\(original.displayString)” could not be renamed to “\(failure.step.to.displayString)”: \(failure.error.message). "
        + "Renamed \(renamed.count) of \(renamed.count + notRenamed.count)"
      if !renamed.isEmpty { text += " (\(Self.list(renamed.map { names[$0] })))" }
      if !notRenamed.isEmpty { text += "; not renamed: \(Self.list(notRenamed.map { names[$0] }))" }
      for (i, tmp) in leftAtTemporary {
        text += "; “\(names[i].displayString)” is left as “\(tmp.displayString)”, rename it back by hand"
      }
      return text
    }

    static func list(_ names: [ItemName]) -> String {
      let shown = names.prefix(4).map { "“\($0.displayString)”" }.joined(separator: ", ")
      return names.count > 4 ? shown + " and \(names.count - 4) more" : shown
    }
  }

  /// Runs the plan on `items` (the batch, in the plan's positions).
  public static func run(
    _ plan: BulkRenamePlan, items: [Item], service: ItemService, domain: Domain
  ) async -> Outcome {
    var current = items
    var doneInGroup: [BulkRenamePlan.Step] = []
    var group = -1
    var finished = Set<Int>()
    for step in plan.steps {
      if step.group != group {
        group = step.group
        doneInGroup = []
      }
      do throws(ProviderError) {
        current[step.item] = try await service.rename(current[step.item], to: step.to, in: domain)
        doneInGroup.append(step)
        if !step.toTemporary { finished.insert(step.item) }
      } catch {
        var left: [(Int, ItemName)] = []
        // A chain leaves no temporary name behind; a cycle is put back as it was.
        if doneInGroup.contains(where: \.toTemporary) {
          for done in doneInGroup.reversed() {
            do throws(ProviderError) {
              current[done.item] = try await service.rename(current[done.item], to: done.from, in: domain)
              finished.remove(done.item)
            } catch {
              if done.toTemporary { left.append((done.item, done.to)) }
              // An item that cannot go back keeps its new name: it is renamed, and said so.
            }
          }
        }
        let renamed = plan.changed.filter { finished.contains($0) }
        var outcome = Outcome(
          renamed: renamed, notRenamed: plan.changed.filter { !finished.contains($0) }, failure: (step, error),
          leftAtTemporary: left)
        outcome.items = current
        return outcome
      }
    }
    var outcome = Outcome(renamed: plan.changed, notRenamed: [], failure: nil, leftAtTemporary: [])
    outcome.items = current
    return outcome
  }
}
