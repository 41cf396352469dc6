import Foundation
import ProviderAPI
import WorkingSetIndex

#if canImport(Glibc)
  import Glibc
#endif

/// A content file an opener may write in place is never a name of a staged upload's snapshot.
///
/// A file just created or uploaded here is a hard link of its staged snapshot (``ContentStore/adopt``)
/// until its transfer's journal row goes. A crash in between leaves both names; an editor that then
/// saved in place changed the snapshot too, and the resumed upload sent those bytes under the
/// journal's old digest. It was retried for ever as "the server stored other bytes than were sent",
/// and the version the journal promised was gone from this computer (folio-sim, seed 112720).
extension ContentStore {
  /// Copies the content file onto an inode of its own when a pending upload's snapshot shares it
  /// (a copy beside it, fsynced, renamed over it), and records the new file's stamp, so the copy
  /// does not read as an unnoticed edit. Other names are left alone: an opener's own link
  /// (`OpenedCopy`, kept a day for a detached editor) must keep naming the stored file. A file
  /// with one name, the usual case, costs one `lstat`.
  func unshare(domain: DomainIdentifier, identifier: ItemIdentifier) async throws(ProviderError) {
    let url = fileURL(domain: domain, identifier: identifier)
    guard DurableFile.linkCount(of: url) > 1, let file = DurableFile.fileID(of: url) else { return }
    let snapshots = try index.pendingTransfers(domain: domain).compactMap(\.stagedPath)
    guard snapshots.contains(where: { DurableFile.fileID(of: URL(fileURLWithPath: $0.lossyString)) == file }) else { return }
    try await BlockingWork.run { cancel throws(ProviderError) in
      let (temp, fd) = try DurableFile.createTemporary(in: url.deletingLastPathComponent())
      do throws(ProviderError) {
        let copied = Result { () throws(ProviderError) in try DurableFile.copyContents(from: url, to: fd, cancel: cancel) }
        close(fd)
        try copied.get()
        try DurableFile.publish(temp, as: url)
      } catch {
        DurableFile.remove(temp)
        throw error
      }
    }
    guard let stamp = DurableFile.stamp(of: url) else {
      throw ProviderError(.ioError, "the content of \(identifier) vanished while it was copied")
    }
    _ = try index.updateContent(domain: domain, identifier: identifier) { $0.fileStamp = stamp }
  }
}
