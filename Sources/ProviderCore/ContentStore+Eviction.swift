import Foundation
import ProviderAPI
import WorkingSetIndex

#if canImport(Glibc)
  import Glibc
#endif

/// Removing downloads: by request ("Remove Download", `folio evict`), under the cache budget (LRU),
/// and what a crash left behind. Never content with edits not uploaded, pinned content, or content
/// an opener has open (File Provider semantics §5; rclone never evicts dirty cache data, D15).
extension ContentStore {
  /// Removes an item's downloaded content, leaving it dataless.
  ///
  /// - Throws: `unsyncedEdits` for content with edits not uploaded (or written since it was
  ///   downloaded and not noticed yet); `nonEvictable` for pinned or open content.
  public func evict(domain: DomainIdentifier, identifier: ItemIdentifier, name: String) throws(ProviderError) {
    guard let (url, content) = try localFile(domain: domain, identifier: identifier) else { return }
    let uploads = try index.pendingUploads(domain: domain, identifier: identifier)
    if content.state == .dirty || !uploads.isEmpty {
      throw ProviderError(.unsyncedEdits, "\(name) has changes that are not uploaded yet; run `folio sync` first")
    }
    if hasUnnoticedChanges(content) {
      throw ProviderError(
        .unsyncedEdits, "\(name) was changed here since it was downloaded; run `folio sync` to upload the change first")
    }
    if try index.isOpen(domain: domain, identifier: identifier) {
      throw ProviderError(.nonEvictable, "\(name) is open in a program; close it first")
    }
    if try index.isPinned(domain: domain, identifier: identifier) {
      throw ProviderError(.nonEvictable, "\(name) is kept downloaded: turn Keep Downloaded off first (folio pin --off)")
    }
    try index.removeContent(domain: domain, identifier: identifier)
    DurableFile.remove(url)
  }

  /// Evicts the least recently used content until the store holds at most `budget` bytes.
  ///
  /// - Returns: What was evicted.
  @discardableResult
  public func enforceBudget(_ budget: Int64) throws(ProviderError) -> [MaterializedContent] {
    var total = try index.contentBytes()
    guard total > budget else { return [] }
    var evicted: [MaterializedContent] = []
    for candidate in try index.evictionCandidates() {
      guard total > budget else { break }
      let url = fileURL(domain: candidate.domain, identifier: candidate.identifier)
      if DurableFile.exists(url) && hasUnnoticedChanges(candidate) { continue }
      try index.removeContent(domain: candidate.domain, identifier: candidate.identifier)
      DurableFile.remove(url)
      total -= candidate.size
      evicted.append(candidate)
    }
    return evicted
  }

  /// Removes what a crash or `kill -9` left: temporary files of processes that are gone, staged
  /// snapshots no transfer points at, and materialized files without a record. Files younger than
  /// `grace` are left alone: another process may be between writing one and committing its row.
  ///
  /// - Parameters:
  ///   - staged: The staged paths the transfer journal still points at.
  /// - Returns: How many files were removed.
  @discardableResult
  public func removeLeftovers(keeping staged: Set<String>, grace: TimeInterval = 600) throws(ProviderError) -> Int {
    guard let domains = try? FileManager.default.contentsOfDirectory(atPath: root.path) else { return 0 }
    let known = Set(try index.allContent().map { fileURL(domain: $0.domain, identifier: $0.identifier).path })
    let now = Date().timeIntervalSince1970
    var removed = 0
    for d in domains {
      let folder = root.appendingPathComponent(d, isDirectory: true)
      guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { continue }
      for name in names {
        let url = folder.appendingPathComponent(name, isDirectory: false)
        var info = stat()
        guard lstat(url.path, &info) == 0 else { continue }
        let age = now - Double(info.st_mtim.tv_sec)
        var remove = false
        if let pid = DurableFile.temporaryOwner(name) {
          remove = !ProcessLiveness.isAlive(pid)
        } else if name.hasPrefix("up-") {
          remove = !staged.contains(url.path) && age > grace
        } else if name.utf8.count == 64 {
          remove = !known.contains(url.path) && age > grace
        }
        if remove {
          DurableFile.remove(url)
          removed += 1
        }
      }
    }
    return removed
  }
}
