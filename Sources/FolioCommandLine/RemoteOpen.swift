import Foundation
import ProviderAPI
import ProviderCore
import WorkingSetIndex

/// `folio open` of a remote item: download it first when it is dataless or stale (progress on
/// stderr), hand the opener the local copy under the item's own name (``OpenedCopy``), and when
/// the opener returns, upload the edits (based on the version they started from; a version
/// changed on the server meanwhile keeps both).
struct RemoteOpen {
  let engine: SyncEngine
  let item: Item
  let domain: Domain
  /// The item as the opener sees it: its name and type, with the path of the local copy.
  let local: Item
  /// The named path the opener gets, and the stored file behind it.
  let opened: OpenedCopy
  /// The conflict copies of this item known before the opener ran: a new one after the upload
  /// is this open's.
  let copiesBefore: Set<ItemIdentifier>

  /// How the edits ended, when they did not simply reach the server.
  enum Unfinished {
    /// Journaled, not sent: the line to say (exit ``Console/queuedExitCode``).
    case queued(String)
    /// Sent, and kept as a conflict copy beside a newer version (exit ``Console/conflictExitCode``).
    case conflict(String)
  }

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
    let opened = engine.openedCopy(of: url, for: item)
    var local = item
    local.path = ItemPath(opened.url.path)
    let before = Set(((try? engine.index.conflicts(domain: domain.identifier)) ?? []).filter { $0.original == item.identifier }.map(\.copy))
    return RemoteOpen(engine: engine, item: item, domain: domain, local: local, opened: opened, copiesBefore: before)
  }

  /// After the opener: notice the edits (an editor that saved by renaming too) and try to upload
  /// them now. An upload that cannot go now stays journaled, and `folio sync` or the browser sends
  /// it; one the server kept as a conflict copy (it had a newer version) is said with the copy's
  /// name. Edits that could not be journaled throw.
  func finish() async throws(ProviderError) -> Unfinished? {
    opened.settle()
    guard let id = try await engine.noticeEdits(item, in: domain) else { return nil }
    let progress = ProgressLine(engine.events)
    do throws(ProviderError) {
      _ = try await engine.queue.wait(for: id)
      await progress.finish()
      return conflictLine().map { .conflict($0) }
    } catch {
      await progress.finish()
      if FailureDisposition.of(error) == .fail {
        // Trying again cannot help: the edits are in the cached copy, not on their way.
        throw ProviderError(
          error.code,
          "\(item.filename.displayString): your changes are saved here but were not uploaded: \(FolioContext.explain(error))")
      }
      return .queued(
        "\(item.filename.displayString): your changes are saved here and queued: \(FolioContext.explain(error)); `folio sync` uploads them"
      )
    }
  }

  /// The line for a conflict this upload made, naming the copy that holds the edits.
  func conflictLine() -> String? {
    let conflicts = (try? engine.index.conflicts(domain: domain.identifier)) ?? []
    guard let c = conflicts.first(where: { $0.original == item.identifier && !copiesBefore.contains($0.copy) }) else {
      return nil
    }
    let copy = (try? engine.index.item(domain: domain.identifier, identifier: c.copy)).map { $0.path.displayString }
      ?? TerminalText.escape(c.copy.rawValue)
    let name = item.filename.displayString
    let place = "\(domain.identifier.rawValue):\(copy)"
    switch c.reason {
    case .staleBase:
      return
        "\(name) changed on the server while you edited it: your changes were kept as a conflict copy, \(place); `folio conflicts` lists it, `folio resolve` settles it"
    case .remoteDeletion:
      return
        "\(name) was deleted on the server while you edited it: your changes were kept as a new item, \(place); `folio resolve` settles it"
    }
  }
}
