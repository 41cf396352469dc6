import Foundation
import ProviderAPI
import SFTPClient

#if canImport(Glibc)
  import Glibc
#endif

extension SFTPProvider {
  /// Downloads into `destination` (pipelined READs; the remote file FSTAT-ed before and after).
  /// A file that changed during the download is read again (up to three times); the bytes written
  /// must be as many as the server stated.
  public func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    let path = try requirePath(identifier)
    return try await withConnection { c in
      let remote = c.remote(path)
      var attempt = 0
      while true {
        attempt += 1
        do {
          let attributes = try await c.client.download(remote, to: destination.path) { done, total in
            progress(TransferProgress(completedBytes: Int64(clamping: done), totalBytes: total.map { Int64(clamping: $0) }))
          }
          guard attributes.fileType != .directory else {
            throw ProviderError(.invalidArgument, "\(path.displayString) is a folder")
          }
          let written = try FileManager.default.attributesOfItem(atPath: destination.path)[.size] as? NSNumber
          guard let size = attributes.size, written?.uint64Value == size else {
            throw ProviderError(
              .ioError, "the download of \(path.displayString) is incomplete (\(written?.uint64Value ?? 0) of \(attributes.size ?? 0) bytes)")
          }
          return self.makeItem(path, attributes, linkTarget: nil, root: c.root)
        } catch let error as SFTPError where error.code == .conflict && attempt < 3 {
          continue
        } catch let error as SFTPError where error.code == .conflict {
          throw ProviderError(.serverBusy, "\(path.displayString) keeps changing on the server; Folio retries later")
        }
      }
    }
  }

  /// Reads `range` (clamped to the file) and writes it at the same offsets of `destination`.
  public func fetchPartialContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, range: Range<Int64>, to destination: URL
  ) async throws(ProviderError) -> (item: Item, range: Range<Int64>) {
    let path = try requirePath(identifier)
    guard range.lowerBound >= 0 else { throw ProviderError(.invalidArgument, "invalid range \(range)") }
    return try await withConnection { c in
      let handle = try await c.client.open(c.remote(path), flags: .read)
      do {
        let attributes = try await c.client.fstat(handle)
        let item = self.makeItem(path, attributes, linkTarget: nil, root: c.root)
        guard !item.isFolder else { throw ProviderError(.invalidArgument, "\(path.displayString) is a folder") }
        let size = Int64(clamping: attributes.size ?? 0)
        let wanted = min(range.lowerBound, size)..<min(range.upperBound, size)
        let fd = Glibc.open(destination.path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ProviderError(.ioError, "cannot write \(destination.path): \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        var position = wanted.lowerBound
        while position < wanted.upperBound {
          let length = Int(min(Int64(c.client.readLength), wanted.upperBound - position))
          let data = try await c.client.read(handle, offset: UInt64(position), length: length)
          if data.isEmpty { break }
          try Self.writeAll(fd, data, at: position)
          position += Int64(data.count)
        }
        try await c.client.close(handle)
        return (item, wanted.lowerBound..<position)
      } catch {
        try? await c.client.close(handle)
        throw error
      }
    }
  }

  static func writeAll(_ fd: Int32, _ data: [UInt8], at offset: Int64) throws {
    var written = 0
    while written < data.count {
      let n = data.withUnsafeBytes { pwrite(fd, $0.baseAddress! + written, $0.count - written, off_t(offset) + off_t(written)) }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else { throw ProviderError(.ioError, "cannot write the downloaded range: \(String(cString: strerror(errno)))") }
      written += n
    }
  }
}
