import AsyncHTTPClient
import FolioProtocol
import Foundation
import NIOCore
import NIOHTTP1
import ProviderAPI

extension FolioServerProvider {
  /// How long one long-poll waits on the server (docs/PROTOCOL.md allows up to 60 s). Shorter than
  /// the 60 s idle timeout, so a healthy wait never looks like a stalled connection.
  static let longPollSeconds = 25
  /// The longest pause between long-polls after errors (doubling from 1 s, with jitter).
  static let maxSignalBackoff: Double = 60
  /// The same while the server cannot be reached at all: its return is noticed within seconds.
  static let maxUnreachableBackoff: Double = 4

  /// The end of the server's change log. Only the working set has one: the whole tree.
  public func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor {
    try requireWorkingSet(container)
    let answer = try await connection.json(ServerRequest(.GET, ["anchor"]), as: AnchorResponse.self, what: "an anchor")
    return try Self.anchor(answer.anchor)
  }

  /// One batch of the change log since `anchor`, oldest first. A batch with one invalid item is
  /// refused whole; an anchor the server no longer knows is `syncAnchorExpired`.
  public func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch {
    try requireWorkingSet(container)
    let since = try Self.anchorText(anchor)
    let answer = try await connection.json(
      ServerRequest(.GET, ["changes"], query: [("since", since), ("limit", "500")]), as: ChangesResponse.self,
      what: "a change batch")
    let updated = try mapper.items(answer.updated)
    var deleted: [ItemIdentifier] = []
    for raw in answer.deleted {
      let id = try WireItemMapper.identifier(raw)
      guard !id.isReserved else {
        throw ProviderError(.cannotSynchronize, "\(connection.serverName) reported the \(id) container deleted")
      }
      deleted.append(id)
    }
    return ChangeBatch(
      updatedItems: updated, deletedIdentifiers: deleted, anchor: try Self.anchor(answer.anchor), moreComing: answer.more)
  }

  /// A signal each time the server's change log moves: push through the long-poll.
  ///
  /// One `GET /v1/changes/wait` is kept waiting; when it answers `changed`, the stream yields and
  /// the next wait starts from the new anchor. Errors (server down, not signed in) pause it with
  /// a backoff with jitter — doubling from 1 s to `maxUnreachableBackoff` while the server cannot
  /// be reached (a refused connection costs nothing, and its return must be noticed within
  /// seconds), to a minute for a server that answers with failures — and it goes on by itself.
  /// The stream also yields once when the server stops answering and once when it answers again
  /// (a quick `GET /v1/anchor`, not a wait that could hold the news for 25 s): the consumer, asking
  /// for changes then, learns that the domain is offline, and then that it is back and what
  /// changed meanwhile. It ends when the consumer cancels the stream. The whole tree is one change
  /// log, so every container gets the same signals.
  public func changeSignals(for container: ItemIdentifier) -> AsyncStream<Void> {
    let connection = self.connection
    return AsyncStream { continuation in
      let task = Task {
        var anchor: String?
        var failures = 0
        while !Task.isCancelled {
          do throws(ProviderError) {
            guard let since = anchor, failures == 0 else {
              let answer = try await connection.json(
                ServerRequest(.GET, ["anchor"]), as: AnchorResponse.self, what: "an anchor")
              // Back after failures: the old anchor is kept, so a wait from it answers at once if
              // the log moved meanwhile (the consumer is told anyway).
              if anchor == nil { anchor = answer.anchor }
              if failures > 0 { continuation.yield() }
              failures = 0
              continue
            }
            let answer = try await connection.json(
              ServerRequest(
                .GET, ["changes", "wait"], query: [("since", since), ("timeout", String(Self.longPollSeconds))],
                timeout: .seconds(Int64(Self.longPollSeconds) + 30)),
              as: WaitResponse.self, what: "a long-poll answer")
            anchor = answer.anchor
            if answer.changed { continuation.yield() }
          } catch {
            if error.code == .cancelled || Task.isCancelled { break }
            if error.code == .syncAnchorExpired {
              // The log was replaced: whatever the consumer knew is stale. Start again from its end
              // and signal, so the consumer asks for changes (and learns of the expiry itself).
              anchor = nil
              failures = max(failures, 1)
              continue
            }
            failures += 1
            // Stopped answering: the consumer asks now, and so hears it at once.
            if failures == 1 { continuation.yield() }
            let cap = error.code == .serverUnreachable ? Self.maxUnreachableBackoff : Self.maxSignalBackoff
            let base = min(cap, pow(2, Double(min(failures - 1, 10))))
            try? await Task.sleep(nanoseconds: UInt64(base * Double.random(in: 0.75...1.25) * 1e9))
          }
        }
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  private func requireWorkingSet(_ container: ItemIdentifier) throws(ProviderError) {
    guard container == .workingSet else {
      throw ProviderError(
        .featureUnsupported, "a Folio server tracks changes for the working set (the whole tree), not per folder")
    }
  }

  static func anchor(_ text: String) throws(ProviderError) -> SyncAnchor {
    try SyncAnchor(Data(text.utf8))
  }

  static func anchorText(_ anchor: SyncAnchor) throws(ProviderError) -> String {
    guard let s = String(data: anchor.data, encoding: .utf8), !s.isEmpty else {
      throw ProviderError(.syncAnchorExpired, "this sync anchor did not come from a Folio server")
    }
    return s
  }
}
