import Foundation
import ProviderAPI
import WorkingSetIndex

/// Finding edits in a materialized file and queueing them: after an opener returns, when an
/// opener's process died before anyone looked, and before a remote change or delete is applied.
enum EditNotice {
  /// Compares the file with its record; when its bytes changed, stages a snapshot and queues an
  /// upload based on the version the edits started from.
  ///
  /// The record then describes the noticed state (stamp and hash), so noticing again without a
  /// new edit queues nothing; its version stays the base until the upload is accepted.
  ///
  /// - Returns: The upload's transfer id, or nil when nothing changed.
  static func notice(
    _ url: URL, _ content: MaterializedContent, store: ContentStore, queue: TransferQueue
  ) async throws(ProviderError) -> Int64? {
    guard let before = DurableFile.stamp(of: url), before != content.fileStamp else { return nil }
    let staged = try await store.stage(url, domain: content.domain)
    guard staged.sha256 != content.sha256 else {
      // Touched (saved unchanged): remember the new stamp so the file is not read again.
      store.discardStaged(staged.url)
      try store.index.updateContent(domain: content.domain, identifier: content.identifier) { $0.fileStamp = before }
      return nil
    }
    let id = try await queue.enqueueModify(staged, of: content.identifier, base: content.version, domain: content.domain)
    try store.index.updateContent(domain: content.domain, identifier: content.identifier) { c in
      c.fileStamp = before
      c.sha256 = staged.sha256
      c.size = staged.size
    }
    return id
  }
}
