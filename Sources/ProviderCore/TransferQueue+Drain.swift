import Foundation
import ProviderAPI
import WorkingSetIndex

/// `folio sync`: run the journal until nothing more can move without a person.
extension TransferQueue {
  /// Runs every transfer of the configured domains until each is done, throttled by a
  /// resolvable error, failed, or has failed `RetryPolicy.attemptsPerDrain` times in this run.
  ///
  /// A new run is itself the person's "try again": transfers throttled by an earlier process are
  /// released first. Whatever is not done stays in the journal for the next run or the browser.
  public func drain() async -> DrainReport {
    stopLoop()
    scope = .all
    drainCap = policy.attemptsPerDrain
    // Counted from where each transfer stands now: the journal's count is cumulative, and a
    // transfer that had failed four times ever was skipped by every later `folio sync` (found by
    // folio-sim: an edit left queued for good once the server was back).
    drainStartAttempts = Dictionary(
      ((try? index.pendingTransfers()) ?? []).map { ($0.id, $0.attempt) }, uniquingKeysWith: { a, _ in a })
    completedInDrain = []
    for domain in providers.keys {
      latched[domain] = nil
      _ = try? index.releaseThrottledTransfers(domain: domain, at: clock())
    }
    generation += 1
    let gen = generation
    while true {
      let next = await tick()
      if active.isEmpty && next == nil { break }
      await sleep(until: next, generation: gen)
    }
    drainCap = nil
    drainStartAttempts = [:]
    let left = ((try? index.pendingTransfers()) ?? []).filter { providers[$0.domain] != nil }
    return DrainReport(
      completed: completedInDrain,
      unfinished: left.map { t in
        DrainReport.Entry(
          activity: TransferActivity(t), state: t.state, message: t.lastError,
          code: t.throttledByCode ?? latched[t.domain]?.code.rawValue,
          recovery: (latched[t.domain]).flatMap(\.recoverySuggestion), attempts: t.attempt)
      })
  }
}

/// What a drain did.
public struct DrainReport: Sendable, Equatable {
  public struct Entry: Sendable, Equatable {
    public var activity: TransferActivity
    /// `throttled` (a resolvable error holds it), `failed` (a person must act) or `queued`
    /// (transient failures; it is tried again later).
    public var state: Transfer.State
    public var message: String?
    /// The `ProviderError.Code` raw value that throttles it.
    public var code: Int?
    /// What the person can do, for resolvable errors.
    public var recovery: String?
    public var attempts: Int
  }

  public var completed: [TransferActivity]
  public var unfinished: [Entry]

  /// True when every transfer completed.
  public var succeeded: Bool { unfinished.isEmpty }
}
