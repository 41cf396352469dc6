import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore
import WorkingSetIndex

/// The sync engine, as the loop hears it: its events become Actions (the transfer map behind
/// the badges, the locations' states, the sign-in prompt), and the locations are asked how they
/// are — all in tasks, so the loop never waits on the network.
extension BrowserApp {
  /// How often the remote locations are asked how they are while nothing else asks.
  static let statusInterval: Duration = .seconds(60)

  /// Starts listening to the sync engine and checking the remote locations.
  func startSync() {
    let remote = services.registry.domains.filter { $0.isSynced }.map(\.identifier)
    guard !remote.isEmpty else { return }
    if let engine = services.sync {
      let stream = engine.events.stream()
      syncTasks.append(
        Task { [weak self] in
          for await event in stream {
            guard let self, !Task.isCancelled else { return }
            self.receive(event)
          }
        })
      // What the journal still holds from before (a quit with uploads pending, a crash): shown
      // at once, before the queue says anything.
      readJournal(remote, engine: engine)
    }
    // A rename a quit or a crash left half done is finished before anyone looks for its keys.
    resumeRelocations(remote)
    syncTasks.append(
      Task { [weak self] in
        while !Task.isCancelled {
          try? await Task.sleep(for: Self.statusInterval)
          guard let self, !Task.isCancelled else { return }
          self.checkLocations(remote)
        }
      })
  }

  /// The journal's transfers of the remote locations, into the transfer map and the sidebar's
  /// counts, off the loop: at launch (what a quit or a crash left), and when another process wrote
  /// the index (a `folio put` in another terminal queues files this window then lists).
  func readJournal(_ remote: [DomainIdentifier], engine: SyncEngine) {
    Task.detached {
      for d in remote {
        let pending = RemoteAnnotation.transfers(of: d, engine: engine)
        let count = SyncEngine.syncingCount(d, index: engine.index)
        await MainActor.run {
          self.send(.transfersRestored(Dictionary(pending, uniquingKeysWith: { _, last in last })))
          self.send(.locationSyncing(d, count))
        }
      }
    }
  }

  /// One sync event → the actions it means for the UI.
  func receive(_ event: SyncEvent) {
    switch event {
    case .queued(let a):
      send(.transfer(Self.key(a), Self.state(a, .queued)))
      countTransfers(a.domain)
    case .progress(let a):
      send(.transfer(Self.key(a), Self.state(a, .running)))
    case .completed(let a, let item):
      send(.transferFinished(Self.key(a), a.direction == .download ? .download : .upload, transferID: a.transferID, item: item))
      countTransfers(a.domain)
    case .retrying(let a, let error, let next):
      send(.transfer(Self.key(a), Self.state(a, .retrying(at: next), error: error)))
    case .throttled(let a, let error):
      send(.transfer(Self.key(a), Self.state(a, .throttled, error: error)))
    case .failed(let a, let error):
      send(.transfer(Self.key(a), Self.state(a, .failed, error: error)))
      countTransfers(a.domain)
    case .domainThrottled(let d, let error):
      send(.locationThrottled(d, error))
    case .domainResumed(let d):
      send(.locationResumed(d))
    case .conflict(let c):
      send(
        .notice(
          StatusMessage("Both versions were kept (a conflict copy next to the file): m, then Resolve Conflict…", isError: true)))
      send(.remoteItemsChanged(c.domain))
    case .itemsChanged(let d, _, _):
      send(.remoteItemsChanged(d))
    case .contentStale(let d, _):
      send(.remoteItemsChanged(d))
    case .syncFailed(let d, let error):
      if let status = LocationStatus.implied(by: error) { send(.locationStatus(d, status)) }
    case .syncResumed(let d):
      send(.locationReachable(d))
    }
  }

  static func key(_ a: TransferActivity) -> ItemKey { ItemKey(a.domain, a.identifier) }

  static func state(_ a: TransferActivity, _ phase: TransferState.Phase, error: ProviderError? = nil) -> TransferState {
    TransferState(
      id: a.transferID, direction: a.direction == .download ? .download : .upload, phase: phase,
      completedBytes: a.completedBytes, totalBytes: a.totalBytes, error: error, name: a.name?.displayString,
      newFile: newFile(a.identifier, parent: a.parentIdentifier, name: a.name, createdAs: a.createdAs))
  }

  /// A new file's destination (its folder lists it while it uploads); nil for any other transfer.
  /// Only a placeholder identifier is a new file: edits that became a create (kept as a copy
  /// after their item was deleted elsewhere) carry the real item's identifier, whose row is the
  /// item itself, not a pending one.
  nonisolated static func newFile(
    _ id: ItemIdentifier, parent: ItemIdentifier?, name: ItemName?, createdAs: ItemIdentifier? = nil
  ) -> TransferState.NewFile? {
    guard let parent, let name, id.rawValue.hasPrefix(TransferQueue.placeholderPrefix) else { return nil }
    return TransferState.NewFile(parent: parent, name: name, createdAs: createdAs)
  }

  /// "syncing N" for a location, read from the journal off the loop. Several events in a row
  /// cost one read: a count already on its way answers for them.
  func countTransfers(_ d: DomainIdentifier) {
    guard !countingDomains.contains(d) else { return }
    countingDomains.insert(d)
    let index = services.index
    Task.detached {
      try? await Task.sleep(for: .milliseconds(100))
      let n = SyncEngine.syncingCount(d, index: index)
      await MainActor.run {
        self.countingDomains.remove(d)
        self.send(.locationSyncing(d, n))
      }
    }
  }

  /// Asks each location how it is, side by side and off the loop; a location that signed in
  /// sends its declarations (custom actions, decorations) along.
  func checkLocations(_ domains: [DomainIdentifier]) {
    let services = self.services
    for id in domains {
      guard let domain = services.registry.domain(id), domain.isSynced else { continue }
      Task.detached {
        guard let status = await services.remote.status(id) else { return }
        // Signed in without Folio's form (an SSH host answered through the question box): the
        // uploads held for want of a sign-in go again.
        if status == .online, let queue = services.sync?.queue, await queue.latchedError(for: id)?.code == .notAuthenticated {
          await queue.resolve(domain: id)
        }
        let actions = services.customActionEntries().filter { $0.domain == id }
        let decorations = domain.provider.decorationDeclarations
        await MainActor.run {
          self.send(.locationStatus(id, status))
          self.send(.declarationsLoaded(id, actions: actions, decorations: decorations))
        }
      }
    }
  }

  /// Signs in with what the prompt was given; once accepted, the secret is saved when asked
  /// (the credentials file), and the work the engine held for this location resumes by itself.
  func authenticate(_ domainID: DomainIdentifier, user: String, secret: String, remember: Bool) {
    guard let domain = services.registry.domain(domainID) else { return }
    let services = self.services
    Task.detached {
      var actions: [Action] = []
      do throws(ProviderError) {
        try await domain.provider.authenticate(Credentials(user: user, secret: secret))
        actions.append(.authenticated(domainID))
        if remember, domain.isSynced {
          do throws(ProviderError) {
            if let note = try services.remote.saveSecret(domainID, user, secret) {
              actions.append(.notice(StatusMessage(note)))
            }
          } catch {
            actions.append(.notice(StatusMessage("Signed in, but the password was not saved: " + error.message, isError: true)))
          }
        }
        // Signing in resolves notAuthenticated: the transfers it held run again, and the changes
        // the location could not send meanwhile are read now (Recents, the sidebar's favorites and
        // tags), not at the next push or poll: a first sign-in showed no Favorites for a minute.
        await services.sync?.queue.resolve(domain: domainID)
        if let engine = services.sync { Task.detached { _ = try? await engine.syncChanges(of: domainID) } }
      } catch {
        actions.append(.authenticationFailed(domainID, error))
      }
      await MainActor.run { for a in actions { self.send(a) } }
    }
  }
}
