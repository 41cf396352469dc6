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
