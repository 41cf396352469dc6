import BrowserUI
import Foundation
import ProviderAPI
import Synchronization

/// Carries a location's questions (ssh's password, passphrase, host key) from the connection
/// that asks, on any thread, to the browser's loop, and the person's answer back.
///
/// `ask` suspends its caller — the askpass relay's task, never the loop — until the question box
/// is answered: the loop only receives an action and later performs an effect, so it never waits
/// for a person. Before the browser is attached (the launch resolving its start folder before the
/// terminal is set up) and after it quits, every question is refused: nobody could answer it, and
/// the connection then fails with ssh's reason instead of hanging.
public final class SignInBroker: Sendable {
  private struct State {
    var deliver: (@Sendable (SignInQuestion) -> Void)?
    var waiting: [UInt64: CheckedContinuation<SignInAnswer, Never>] = [:]
    var nextID: UInt64 = 1
  }
  private let state = Mutex(State())

  public init() {}

  /// Asks the person; returns their answer (`.refuse` when no browser is there to ask).
  public func ask(
    domain: DomainIdentifier, kind: SignInQuestion.Kind, lines: [String], fingerprint: String?, askedAgain: Bool
  ) async -> SignInAnswer {
    await withCheckedContinuation { (c: CheckedContinuation<SignInAnswer, Never>) in
      let sent = state.withLock { s -> (SignInQuestion, @Sendable (SignInQuestion) -> Void)? in
        guard let deliver = s.deliver else { return nil }
        let q = SignInQuestion(
          id: s.nextID, domain: domain, kind: kind, lines: lines, fingerprint: fingerprint, askedAgain: askedAgain)
        s.nextID += 1
        s.waiting[q.id] = c
        return (q, deliver)
      }
      guard let (question, deliver) = sent else {
        c.resume(returning: .refuse)
        return
      }
      deliver(question)
    }
  }

  /// The browser takes the questions from now on (`deliver` sends each to its loop).
  public func attach(_ deliver: @escaping @Sendable (SignInQuestion) -> Void) {
    state.withLock { $0.deliver = deliver }
  }

  /// The browser is gone: the questions still open are refused, and later ones at once.
  public func detach() {
    let open = state.withLock { s -> [CheckedContinuation<SignInAnswer, Never>] in
      s.deliver = nil
      defer { s.waiting = [:] }
      return Array(s.waiting.values)
    }
    for c in open { c.resume(returning: .refuse) }
  }

  /// The person's answer to question `id` (an unknown id — answered already — is ignored).
  public func answer(_ id: UInt64, _ answer: SignInAnswer) {
    let c = state.withLock { $0.waiting.removeValue(forKey: id) }
    c?.resume(returning: answer)
  }
}
