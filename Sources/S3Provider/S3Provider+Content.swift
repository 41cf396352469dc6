import Foundation
import ProviderAPI
import S3Client

#if canImport(Glibc)
  import Glibc
#endif

extension S3Provider {
  /// Downloads into `destination`, streamed. Bytes that Folio uploaded carry their SHA-256
  /// (`x-amz-meta-folio-sha256`): the download is hashed as it is written and refused when it
  /// differs (a store that mangled or truncated them).
  public func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await fetchVerifiedContents(identifier, version: version, to: destination, progress: progress).item
  }

  public func fetchVerifiedContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> (item: Item, digest: ContentDigest?) {
    let path = try requirePath(identifier)
    guard path != .root else { throw ProviderError(.invalidArgument, "the top of the location is a folder") }
    return try await withClient { c in
      let fd = open(destination.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
      guard fd >= 0 else { throw ProviderError(.ioError, "cannot write \(destination.path): \(String(cString: strerror(errno)))") }
      defer { close(fd) }
      let download: S3Download
      do {
        download = try await c.getObject(Self.key(path), to: fd, computeSHA256: true) { done, total in
          progress(TransferProgress(completedBytes: done, totalBytes: total))
        }
      } catch let error as S3Error where error.code == .noSuchKey {
        if (try? await self.exists(path, c)) == true {
          throw ProviderError(.invalidArgument, "\(path.displayString) is a folder")
        }
        throw error
      }
      let item = self.fileItem(
        path, size: download.info.size, lastModified: download.info.lastModified, etag: download.info.etag,
        versionID: download.info.versionID)
      guard let stated = download.info.metadata[Self.sha256Key] else { return (item, nil) }
      guard stated.lowercased() == download.sha256 else {
        throw ProviderError(
          .cannotSynchronize,
          "\(path.displayString) on the store is not what was uploaded (its SHA-256 differs from the one it was stored with)")
      }
      guard fsync(fd) == 0 else { throw ProviderError(.ioError, "cannot save \(destination.path): \(String(cString: strerror(errno)))") }
      return (item, ContentDigest(size: download.bytesWritten, sha256: stated.lowercased()))
    }
  }

  /// A ranged GET, pinned to the version it started on (If-Match), written at the same offsets.
  public func fetchPartialContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, range: Range<Int64>, to destination: URL
  ) async throws(ProviderError) -> (item: Item, range: Range<Int64>) {
    let path = try requirePath(identifier)
    guard range.lowerBound >= 0 else { throw ProviderError(.invalidArgument, "invalid range \(range)") }
    return try await withClient { c in
      let info = try await c.headObject(Self.key(path))
      let item = self.fileItem(
        path, size: info.size, lastModified: info.lastModified, etag: info.etag, versionID: info.versionID)
      let wanted = min(range.lowerBound, info.size)..<min(range.upperBound, info.size)
      guard !wanted.isEmpty else { return (item, wanted) }
      let fd = open(destination.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
      guard fd >= 0 else { throw ProviderError(.ioError, "cannot write \(destination.path): \(String(cString: strerror(errno)))") }
      defer { close(fd) }
      let got = try await c.getObject(
        Self.key(path), range: S3ByteRange(start: wanted.lowerBound, end: wanted.upperBound - 1), ifMatch: info.etag,
        to: fd, at: wanted.lowerBound)
      return (item, wanted.lowerBound..<(wanted.lowerBound + got.bytesWritten))
    }
  }

  /// The user metadata that carries the SHA-256 of what Folio uploaded.
  static let sha256Key = "folio-sha256"
}
