import BrowserUI
import Foundation
import ProviderAPI
import ProviderCore

/// Paste (`p`): the clipboard's items into the folder being browsed, off the loop
/// (`CrossLocationCopy`, which `folio cp` runs too).
/// The folder reloads when it is done; uploads carry on in the transfer queue, their badges
/// driven by its events.
extension BrowserApp {
  func paste(_ items: [Item], from sourceID: DomainIdentifier, into folder: FolderLocation) {
    let source: Domain
    let target: Domain
    do throws(ProviderError) {
      source = try services.registry.require(sourceID)
      target = try services.registry.require(folder.domain)
    } catch {
      send(.operationFailed(error))
      return
    }
    let job = CrossLocationCopy(items: services.items, sync: services.sync, source: source, target: target)
    let destination = CrossLocationCopy.Destination(path: folder.path, identifier: folder.identifier, name: folder.name)
    Task.detached {
      let outcome = await job.run(items, into: destination)
      await MainActor.run {
        switch outcome {
        case .done(let tally):
          self.report(tally, into: target)
        case .signIn(let domain, let error, let remaining, let tally):
          // What was done is in the folder; the rest runs again once signed in.
          if tally.entries > 0 { self.report(tally, into: target) }
          self.send(Self.failure(error, domain: domain, retry: .paste(remaining, from: sourceID, into: folder)))
        }
      }
    }
  }

  /// The folder reloads, and the status line says what was done, or the first failure. A paste
  /// that found its server unreachable says so in the sidebar first, so the reload's own "cannot
  /// reach" does not replace what the paste said (AppState.mayAnnounce).
  private func report(_ tally: CrossLocationCopy.Tally, into target: Domain) {
    if let unreachable = tally.unreachable, let status = LocationStatus.implied(by: unreachable) {
      send(.locationStatus(target.identifier, status))
    }
    if let failure = tally.failureText {
      let done = tally.entries > tally.failures.count ? tally.summary + ". " : ""
      send(.operationSucceeded(message: nil, reload: true, select: nil))
      send(.notice(StatusMessage(done + failure, isError: true)))
    } else {
      send(.operationSucceeded(message: tally.summary, reload: true, select: nil))
    }
  }
}

/// Cut and paste (`x`, then `p`): a move. Within a location, the provider moves each item (its
/// identity, tags and favorite stay; a name taken in the folder keeps both, as a paste does:
/// "name 2"), and Undo can take it back. Across locations, the paste's copy runs, and each source
/// is removed only once its copy is safe — written here, or uploaded and confirmed by the server
/// (as `folio mv` does): a copy left queued keeps its source.
extension BrowserApp {
  func movePasted(_ items: [Item], from sourceID: DomainIdentifier, into folder: FolderLocation) {
    let retry = Effect.movePasted(items, from: sourceID, into: folder)
    guard sourceID == folder.domain else {
      moveAcross(items, from: sourceID, into: folder, retry: retry)
      return
    }
    background(retry: (sourceID, retry)) { s throws(ProviderError) in
      let domain = try s.registry.require(sourceID)
      let target = try await domain.provider.item(at: folder.path)
      var steps: [UndoStep] = []
      var already = 0
      var failure: (Item, ProviderError)?
      for item in items {
        if item.parentIdentifier == target.identifier || item.path.parent == target.path {
          already += 1
          continue
        }
        do throws(ProviderError) {
          if target.path.bytes.starts(with: item.path.bytes + [UInt8(ascii: "/")]) || target.path == item.path {
            throw ProviderError(.invalidArgument, "a folder cannot be moved into itself")
          }
          let name = try await Self.freeName(item.filename, in: target, domain: domain)
          steps.append(.moved(try await s.items.relocate(item, to: target, named: name, in: domain), from: item.path))
        } catch {
          if error.code == .notAuthenticated { throw error }
          if failure == nil { failure = (item, error) }
        }
      }
      await self.record("the move of \(UndoRecord.what(items))", steps, in: sourceID)
      let renamed = steps.filter { $0.item.filename != Self.originalName($0) }.count
      var text = steps.isEmpty ? "" : "Moved \(steps.count == 1 ? "“\(steps[0].item.filename.displayString)”" : "\(steps.count) items") here"
      if renamed > 0 { text += " (\(renamed) renamed: the name was taken)" }
      if already > 0 { text += (text.isEmpty ? "" : "; ") + "\(already == 1 ? "1 item is" : "\(already) items are") already here" }
      if let (item, error) = failure {
        text += (text.isEmpty ? "" : ". ") + "Could not move “\(item.filename.displayString)”: \(TerminalText.escapeMessage(error.message))"
        // The folder is listed again (what moved is shown), then the failure is said.
        await MainActor.run { self.send(.operationSucceeded(message: nil, reload: true, select: nil)) }
        return .notice(StatusMessage(text, isError: true))
      }
      return .operationSucceeded(message: text, reload: true, select: steps.first?.item.identifier)
    }
  }

  nonisolated static func originalName(_ step: UndoStep) -> ItemName? {
    guard case .moved(_, let from) = step else { return nil }
    return from.lastComponent
  }

  /// `name`, else "name 2", "name 3", …: the first one `folder` does not hold.
  nonisolated static func freeName(_ name: ItemName, in folder: Item, domain: Domain) async throws(ProviderError) -> ItemName {
    for n in 1...99 {
      let candidate = n == 1 ? name : CrossLocationCopy.numbered(name, n)
      do throws(ProviderError) {
        _ = try await domain.provider.item(at: folder.path.appending(candidate))
      } catch where error.code == .noSuchItem {
        return candidate
      }
    }
    throw ProviderError(.filenameCollision, "\(folder.path.displayString) already holds \(name.displayString) and 98 numbered copies")
  }

  /// A move between locations: the paste's copy, then the sources whose copies are safe removed.
  private func moveAcross(_ items: [Item], from sourceID: DomainIdentifier, into folder: FolderLocation, retry: Effect) {
    let source: Domain
    let target: Domain
    do throws(ProviderError) {
      source = try services.registry.require(sourceID)
      target = try services.registry.require(folder.domain)
    } catch {
      send(.operationFailed(error))
      return
    }
    let service = services.items
    let engine = services.sync
    let job = CrossLocationCopy(items: service, sync: engine, source: source, target: target)
    let destination = CrossLocationCopy.Destination(path: folder.path, identifier: folder.identifier, name: folder.name)
    Task.detached {
      switch await job.run(items, into: destination) {
      case .signIn(let domain, let error, _, _):
        await MainActor.run { self.send(Self.failure(error, domain: domain, retry: retry)) }
      case .done(let tally):
        // Safe: every upload of the move sent and confirmed (none queued for later).
        var safe = !tally.offline
        if safe, let engine {
          for id in tally.queued {
            do throws(ProviderError) { _ = try await engine.queue.wait(for: id) } catch { safe = false }
          }
        }
        let movable = items.filter { tally.whole.contains($0.identifier) }
        var removed = 0
        var failure = tally.failureText
        if safe {
          for item in movable {
            do throws(ProviderError) {
              try await service.deleteForever(item, in: source)
              removed += 1
            } catch {
              failure = failure ?? "“\(item.filename.displayString)” was copied but not removed: \(TerminalText.escapeMessage(error.message))"
            }
          }
        } else if !movable.isEmpty {
          failure = failure ?? "Copied, not moved yet: the originals stay until the copies are uploaded"
        }
        let text = removed == 0 ? nil : "Moved \(removed == 1 ? "“\(movable[0].filename.displayString)”" : "\(removed) items") to \(target.displayName)"
        await MainActor.run {
          self.send(.operationSucceeded(message: text, reload: true, select: nil))
          if let failure { self.send(.notice(StatusMessage(text.map { $0 + ". " + failure } ?? failure, isError: true))) }
        }
      }
    }
  }
}
