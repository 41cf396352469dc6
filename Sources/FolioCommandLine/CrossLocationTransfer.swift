import Foundation
import ProviderAPI
import ProviderCore

/// `folio cp` and `folio mv` between locations (this computer and an SSH host, two servers): the
/// browser's Paste job (`CrossLocationCopy`) run from the command line, then, as `folio put`
/// does, the journaled uploads sent and waited for.
///
/// A move removes its sources only once every copy of the group is safe — written here, or
/// uploaded and confirmed by the server. An upload left queued (the server cannot be reached) or
/// refused keeps every source of its group: the copy may still fail, and a source removed then
/// would be the only version lost.
struct CrossLocationTransfer {
  let context: FolioContext
  let target: Domain
  let folder: Item

  /// Whether `source` and `target` are one location for a copy or a move: the same domain, or
  /// two folders of this computer (the local provider crosses filesystems itself).
  static func isWithin(_ source: Domain, _ target: Domain) -> Bool {
    source.identifier == target.identifier || (source.hasDirectContent && target.hasDirectContent)
  }

  func run(_ sources: [(Domain, Item)], removingSources: Bool, tally: inout FailureTally) async throws(ProviderError) {
    let engine = context.makeSyncEngine()
    var groups: [(Domain, [Item])] = []
    for (domain, item) in sources {
      if let i = groups.firstIndex(where: { $0.0.identifier == domain.identifier }) {
        groups[i].1.append(item)
      } else {
        groups.append((domain, [item]))
      }
    }
    let destination = CrossLocationCopy.Destination(
      path: folder.path, identifier: folder.identifier, name: folder.filename.displayString)
    for (source, items) in groups {
      let job = CrossLocationCopy(items: context.items, sync: engine, source: source, target: target)
      switch await job.run(items, into: destination) {
      case .signIn(let domain, let error, _, let done):
        report(done, into: &tally)
        tally.report(ProviderError(.notAuthenticated, "\(error.message) — \(RemoteDomains.signInHint(domain))"))
      case .done(let done):
        report(done, into: &tally)
        let sent = await send(done.queued, engine: engine, tally: &tally)
        guard removingSources, sent else { continue }
        for item in items where done.whole.contains(item.identifier) {
          do throws(ProviderError) {
            try await context.items.deleteForever(item, in: source)
          } catch {
            tally.report(
              ProviderError(error.code, "\(item.filename.displayString) was copied but not removed: \(FolioContext.explain(error))"))
          }
        }
      }
    }
  }

  /// What the copy did ("Queued 2 uploads, made 1 folder"), and each failure on its own line.
  private func report(_ done: CrossLocationCopy.Tally, into tally: inout FailureTally) {
    if done.entries > done.failures.count { Console.out(done.summary) }
    for (name, error) in done.failures {
      tally.report(ProviderError(error.code, "\(name): \(FolioContext.explain(error))", existingItem: error.existingItem))
    }
  }

  /// Sends the journaled uploads now and waits for each; true when the server confirmed all.
  private func send(_ queued: [Int64], engine: SyncEngine, tally: inout FailureTally) async -> Bool {
    guard !queued.isEmpty else { return true }
    let progress = ProgressLine(engine.events)
    var all = true
    for id in queued {
      do throws(ProviderError) {
        let item = try await engine.queue.wait(for: id)
        Console.out("uploaded \(item.path.displayString)")
      } catch {
        all = false
        let what = FailureDisposition.of(error) == .fail ? "it was not uploaded" : "it stays queued for `folio sync`"
        tally.report(ProviderError(error.code, "\(FolioContext.explain(error)); \(what)", existingItem: error.existingItem))
      }
    }
    await progress.finish()
    return all
  }
}
