import Foundation
import ProviderAPI
import WebDAVClient

#if canImport(Glibc)
  import Glibc
#endif

extension WebDAVProvider {
  /// Downloads into `destination`, streamed. The file is described (PROPFIND Depth 0) before the
  /// GET, and the GET's answer must show the same version (its ETag, or its size and date where the
  /// server lists no ETag): bytes of a version that changed while they came are read again once,
  /// then refused, never kept under the version listed.
  public func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    let path = try requirePath(identifier)
    guard path != .root else { throw ProviderError(.invalidArgument, "the top of the location is a folder") }
    return try await withClient { c in
      let davPath = try Self.davPath(path)
      for attempt in 1...2 {
        let entry = try await c.stat(davPath)
        if entry.isCollection { throw ProviderError(.invalidArgument, "\(path.displayString) is a folder") }
        let fd = open(destination.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ProviderError(.ioError, "cannot write \(destination.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let total = entry.size
        let got = try await c.download(davPath, to: fd) { done in
          progress(TransferProgress(completedBytes: done, totalBytes: total))
        }
        guard Self.sameVersion(entry, got) else {
          if attempt == 1 { continue }
          throw ProviderError(.serverBusy, "\(path.displayString) changed on the server while it was downloading; Folio tries again")
        }
        guard fsync(fd) == 0 else { throw ProviderError(.ioError, "cannot save \(destination.path): \(String(cString: strerror(errno)))") }
        return self.item(path, entry)
      }
      throw ProviderError(.serverBusy, "\(path.displayString) changed on the server while it was downloading")
    }
  }

  /// A ranged GET, pinned to the version it started on: `If-Match` where the server honours it,
  /// and the answer's version compared in any case (remote-providers.md §1.4).
  public func fetchPartialContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, range: Range<Int64>, to destination: URL
  ) async throws(ProviderError) -> (item: Item, range: Range<Int64>) {
    let path = try requirePath(identifier)
    guard range.lowerBound >= 0 else { throw ProviderError(.invalidArgument, "invalid range \(range)") }
    return try await withClient { c in
      let davPath = try Self.davPath(path)
      let entry = try await c.stat(davPath)
      if entry.isCollection { throw ProviderError(.invalidArgument, "\(path.displayString) is a folder") }
      let item = self.item(path, entry)
      let size = max(0, entry.size ?? 0)
      let wanted = min(range.lowerBound, size)..<min(range.upperBound, size)
      guard !wanted.isEmpty else { return (item, wanted) }
      let fd = open(destination.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
      guard fd >= 0 else { throw ProviderError(.ioError, "cannot write \(destination.path): \(String(cString: strerror(errno)))") }
      defer { close(fd) }
      let pin = self.conditionalWrites == .honoured && !entry.isETagWeak ? entry.etag : nil
      let got = try await c.download(
        davPath, to: fd, fileOffset: wanted.lowerBound,
        range: WebDAVByteRange(offset: wanted.lowerBound, length: wanted.upperBound - wanted.lowerBound), ifMatch: pin)
      guard Self.sameVersion(entry, got) else {
        throw ProviderError(.serverBusy, "\(path.displayString) changed on the server while it was read")
      }
      return (item, wanted.lowerBound..<(wanted.lowerBound + got.bytes))
    }
  }

  /// Whether a GET's answer is of the version a PROPFIND described: the same ETag (weak or
  /// strong) where both have one, else the same size and date.
  static func sameVersion(_ entry: WebDAVEntry, _ got: WebDAVDownload) -> Bool {
    if let listed = WebDAVVersion.strong(entry.etag), let sent = WebDAVVersion.strong(got.etag) { return listed == sent }
    if let size = entry.size, let total = got.totalSize, size != total { return false }
    if let listed = entry.lastModified, let sent = got.lastModified, abs(listed.timeIntervalSince(sent)) >= 1 { return false }
    return true
  }
}
