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

  /// What is left to do once `run` returns.
  struct Outcome {
    /// Uploads still queued (the server could not be reached, or refused for now): `folio sync`
    /// sends them. The command exits 75, as `folio put` does, when nothing else failed.
    var leftQueued = false
  }

  /// The place the items go, as the command line names it ("Box:/Docs", or a local path).
  private var destinationName: String {
    target.hasDirectContent
      ? folder.path.displayString : "\(context.locationName(target)):\(folder.path.displayString)"
  }

  func run(_ sources: [(Domain, Item)], removingSources: Bool, tally: inout FailureTally) async throws(ProviderError)
    -> Outcome
  {
    let engine = context.makeSyncEngine()
    var outcome = Outcome()
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
        let sent = await send(done.queued, engine: engine, tally: &tally, outcome: &outcome)
        guard removingSources else { continue }
        let movable = items.filter { done.whole.contains($0.identifier) }
        guard sent else {
          // Said in so many words: the person asked for a move and got a copy, for now.
          if !movable.isEmpty {
            Console.err(
              "not moved yet: \(Self.what(movable)) \(movable.count == 1 ? "stays" : "stay") where "
                + "\(movable.count == 1 ? "it was" : "they were") until the copies are uploaded (`folio sync`), then remove "
                + "\(movable.count == 1 ? "it" : "them") or run `folio mv` again")
          }
          continue
        }
        var moved = 0
        for item in movable {
          do throws(ProviderError) {
            try await context.items.deleteForever(item, in: source)
            moved += 1
          } catch {
            tally.report(
              ProviderError(error.code, "\(item.filename.displayString) was copied but not removed: \(FolioContext.explain(error))"))
          }
        }
        if moved > 0 { Console.out("moved \(moved == 1 ? movable[0].filename.displayString : "\(moved) items") to \(destinationName)") }
      }
    }
    return outcome
  }

  /// "notes.txt" or "3 items", escaped for the terminal.
  static func what(_ items: [Item]) -> String {
    items.count == 1 ? items[0].filename.displayString : "\(items.count) items"
  }

  /// What the copy did, in the command line's words (the browser's summary speaks of a paste and
  /// of "here"), and each failure on its own line.
  private func report(_ done: CrossLocationCopy.Tally, into tally: inout FailureTally) {
    var parts: [String] = []
    func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
    if done.copied > 0 { parts.append("copied \(count(done.copied, "item", "items")) on the server") }
    if done.written > 0 { parts.append("downloaded \(count(done.written, "file", "files")) into \(destinationName)") }
    if done.folders > 0 { parts.append("made \(count(done.folders, "folder", "folders"))") }
    if done.uploads > 0 {
      parts.append(
        "sending \(count(done.uploads, "file", "files")) to \(destinationName)"
          + (done.offline ? " (the server cannot be reached: queued for `folio sync`)" : ""))
    }
    if done.skipped > 0 { parts.append("left \(done.skipped) out (at most \(CrossLocationCopy.maxEntries) entries at once)") }
    if !parts.isEmpty { Console.out(parts.joined(separator: ", ")) }
    for (name, error) in done.failures {
      tally.report(ProviderError(error.code, "\(name): \(FolioContext.explain(error))", existingItem: error.existingItem))
    }
  }

  /// Sends the journaled uploads now and waits for each; true when the server confirmed all.
  private func send(_ queued: [Int64], engine: SyncEngine, tally: inout FailureTally, outcome: inout Outcome) async -> Bool {
    guard !queued.isEmpty else { return true }
    let progress = ProgressLine(engine.events)
    var all = true
    for id in queued {
      do throws(ProviderError) {
        let item = try await engine.queue.wait(for: id)
        Console.out("uploaded \(context.locationName(target)):\(item.path.displayString)")
      } catch {
        all = false
        if FailureDisposition.of(error) == .fail {
          tally.report(ProviderError(error.code, "\(FolioContext.explain(error)); it was not uploaded", existingItem: error.existingItem))
        } else {
          outcome.leftQueued = true
          tally.reportQueued(
            ProviderError(error.code, "\(FolioContext.explain(error)); it stays queued for `folio sync`", existingItem: error.existingItem))
        }
      }
    }
    await progress.finish()
    return all
  }
}
