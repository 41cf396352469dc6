import ArgumentParser
import Foundation
import ProviderAPI
import ProviderCore
import WorkingSetIndex

/// `folio sync`: what the browser does in the background, once, without it — read every remote
/// location's changes into the index, then send and fetch every journaled transfer until each is
/// done or needs a person.
struct SyncCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync",
    abstract: "Apply remote changes and run every pending upload and download.",
    discussion: """
      Exits 0 when everything is done. Otherwise one line per location or transfer that did not \
      finish says why and what to do (sign in, free space, check the network); those transfers \
      stay journaled and the next `folio sync` (or the browser) tries again. The exit status is \
      then 75 when everything left is waiting (nothing lost, nothing needs a decision), 1 when a \
      transfer failed for good or deletions were held back. A conflict this run \
      created (both versions kept) is named with where your version now is.
      """)

  @Flag(help: "Print JSON.") var json = false
  @Flag(help: "Apply deletions a full re-read found even when they are most of a location.")
  var allowDeletions = false

  struct DomainJSON: Encodable {
    var name: String
    var updated = 0
    var deleted = 0
    var heldDeletions = 0
    var reconciled = false
    var error: String?
  }

  struct TransferJSON: Encodable {
    var id: Int64
    var location: String
    var direction: String
    var item: String
    var name: String?
    var state: String
    var error: String?
    var attempts: Int?
  }

  /// A conflict this sync created: both versions are kept, and the person should know where.
  struct ConflictJSON: Encodable {
    var location: String
    /// "staleBase" (changed here and elsewhere) or "remoteDeletion" (deleted elsewhere, edited here).
    var reason: String
    var original: String
    var copy: String
    /// Where this computer's version now is.
    var copyPath: String?
  }

  struct Output: Encodable {
    var locations: [DomainJSON]
    var completed: [TransferJSON]
    var unfinished: [TransferJSON]
    var conflicts: [ConflictJSON]
  }

  func run() async throws {
    var failed = false
    // Not done, but only waiting: every unfinished transfer is journaled and will be retried.
    var onlyWaiting = true
    try await runReporting { () async throws(ProviderError) in
      let context = try FolioContext.make()
      let engine = context.makeSyncEngine()
      await engine.recover()
      var domains: [DomainJSON] = []
      for domain in engine.remoteDomains {
        // `folio sync` is a Retry: an extension that kept crashing is started again.
        (domain.provider as? any RetryableProvider)?.retryNow()
        var d = DomainJSON(name: domain.identifier.rawValue)
        do throws(ProviderError) {
          // A rename or move a killed process left half done is finished before the listing, so
          // the listing finds every key under its new name (and the tags already there).
          // One that cannot be finished now is said, and does not hold back the location's sync.
          let moving = RelocationProgress(domain.identifier.rawValue, quiet: json)
          var moved = 0
          do throws(ProviderError) {
            moved = try await context.items.resumeRelocations(in: domain, progress: moving.report)
          } catch {
            failed = true
            if FailureDisposition.of(error) == .fail { onlyWaiting = false }
            if !json {
              Console.err("\(domain.identifier): a rename left unfinished is not finished yet: \(FolioContext.explain(error))")
            }
          }
          moving.finish()
          if moved > 0, !json { Console.out("\(domain.identifier): finished \(moved) rename(s) left unfinished") }
          let s = try await engine.syncChanges(of: domain.identifier, allowMassDeletion: allowDeletions)
          d.updated = s.updated
          d.deleted = s.deleted
          d.heldDeletions = s.heldDeletions.count
          d.reconciled = s.reconciled
          if !s.heldDeletions.isEmpty {
            failed = true
            onlyWaiting = false
            d.error = WorkingSetSync.heldText(s)
          }
        } catch {
          failed = true
          // Offline or signed out is waiting; a refusal (permission, a bad setting) needs a person.
          if FailureDisposition.of(error) == .fail { onlyWaiting = false }
          d.error = FolioContext.explain(error)
        }
        if let e = d.error, !json { Console.err("\(domain.identifier): \(e)") }
        domains.append(d)
      }
      // The index is this computer's: a conflict recorded in it while this ran (by this run, or a
      // browser here at the same time) kept a version made here. Unreadable before: none named.
      let knownConflicts = (try? context.index.conflicts()).map { Set($0.map { "\($0.domain.rawValue)/\($0.copy.rawValue)" }) }
      let progress = json ? nil : ProgressLine(engine.events)
      let report = await engine.queue.drain()
      await progress?.finish()
      _ = try? engine.store.enforceBudget(engine.cacheBudget)

      func name(_ a: TransferActivity) -> String? {
        if let n = a.name { return n.displayString }
        return (try? context.index.item(domain: a.domain, identifier: a.identifier))?.path.displayString
      }
      let completed = report.completed.map { a in
        TransferJSON(
          id: a.transferID, location: a.domain.rawValue, direction: a.direction.rawValue, item: a.identifier.rawValue,
          name: name(a), state: "done")
      }
      let unfinished = report.unfinished.map { e in
        var message = e.message
        if let m = message, let r = e.recovery, !m.contains(r) { message = "\(m) (\(r))" }
        return TransferJSON(
          id: e.activity.transferID, location: e.activity.domain.rawValue, direction: e.activity.direction.rawValue,
          item: e.activity.identifier.rawValue, name: name(e.activity), state: e.state.rawValue, error: message,
          attempts: e.attempts)
      }
      let newConflicts = knownConflicts.map { known in
        ((try? context.index.conflicts()) ?? []).filter { !known.contains("\($0.domain.rawValue)/\($0.copy.rawValue)") }
      } ?? []
      let conflicts = newConflicts.map { c in
        ConflictJSON(
          location: c.domain.rawValue, reason: c.reason.rawValue, original: c.original.rawValue, copy: c.copy.rawValue,
          copyPath: (try? context.index.item(domain: c.domain, identifier: c.copy))?.path.displayString)
      }
      if json {
        Console.out(
          ItemJSON.encode(Output(locations: domains, completed: completed, unfinished: unfinished, conflicts: conflicts)))
      } else {
        for t in completed {
          Console.out("\(t.direction == "upload" ? "uploaded" : "downloaded") \(t.location):\(t.name ?? t.item)")
        }
        for t in unfinished {
          let what = "\(t.direction) of \(t.location):\(t.name ?? TerminalText.escape(t.item))"
          let why = t.error ?? "not started (its location is not reachable)"
          let state = t.state == "failed" ? "failed" : t.state == "throttled" ? "waiting" : "will be retried"
          Console.err("\(what) \(state): \(why)")
        }
        for (c, j) in zip(newConflicts, conflicts) {
          let copy = "\(j.location):\(j.copyPath ?? TerminalText.escape(j.copy))"
          switch c.reason {
          case .remoteDeletion:
            Console.out("kept \(copy): your edits of an item deleted elsewhere, as a new item")
          case .staleBase:
            Console.out("conflict: changed here and elsewhere; your version is kept as \(copy) beside the other")
          }
        }
      }
      if !report.succeeded { failed = true }
      if unfinished.contains(where: { $0.state == Transfer.State.failed.rawValue }) { onlyWaiting = false }
    }
    if failed { throw onlyWaiting ? ExitCode(Console.queuedExitCode) : ExitCode.failure }
  }
}
