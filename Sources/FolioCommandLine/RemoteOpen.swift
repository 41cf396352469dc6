import Foundation
import ProviderAPI
import ProviderCore

/// `folio open` of a remote item: download it first when it is dataless or stale (progress on
/// stderr), hand the opener the local copy, and when the opener returns, upload the edits (based on
/// the version they started from; a version changed on the server meanwhile keeps both).
struct RemoteOpen {
  let engine: SyncEngine
  let item: Item
  let domain: Domain
  /// The item as the opener sees it: its name and type, with the path of the local copy.
  let local: Item

  static func materialize(_ item: Item, in domain: Domain, context: FolioContext) async throws(ProviderError) -> RemoteOpen {
    let engine = context.makeSyncEngine()
    let progress = ProgressLine(engine.events)
    let url: URL
    do throws(ProviderError) {
      url = try await engine.materialize(item, in: domain, forOpen: true)
    } catch {
      await progress.finish()
      throw ProviderError(error.code, FolioContext.explain(error), existingItem: error.existingItem)
    }
    await progress.finish()
    var local = item
    local.path = ItemPath(url.path)
    return RemoteOpen(engine: engine, item: item, domain: domain, local: local)
  }

  /// After the opener: notice the edits and try to upload them now. An upload that cannot go now
  /// stays journaled, and `folio sync` or the browser sends it: then the line to say is returned
  /// (the command exits with ``Console/queuedExitCode``). Edits that could not be journaled throw.
  func finish() async throws(ProviderError) -> String? {
    guard let id = try await engine.noticeEdits(item, in: domain) else { return nil }
    let progress = ProgressLine(engine.events)
    do throws(ProviderError) {
      _ = try await engine.queue.wait(for: id)
      await progress.finish()
      return nil
    } catch {
      await progress.finish()
      if FailureDisposition.of(error) == .fail {
        // Trying again cannot help: the edits are in the cached copy, not on their way.
        throw ProviderError(
          error.code,
          "\(item.filename.displayString): your changes are saved here but were not uploaded: \(FolioContext.explain(error))")
      }
      return
        "\(item.filename.displayString): your changes are saved here and queued: \(FolioContext.explain(error)); `folio sync` uploads them"
    }
  }
}
