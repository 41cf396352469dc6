import Crypto
import FolioProtocol
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Bytes verified and on disk in `uploads/`, waiting to be published.
struct StagedUpload: Sendable {
  let url: URL
  let size: Int64
  let sha256: String

  /// Removes the file (an upload refused after it arrived: quota at commit, a lost race).
  func discard() { unlink(url.path) }
}

/// One upload being written: appends chunks, hashes them, and verifies at the end.
///
/// Not Sendable across tasks: the request handler that reads the body owns it.
final class UploadSink {
  private let fd: Int32
  let url: URL
  private var hasher = SHA256()
  private(set) var count: Int64 = 0
  private var closed = false

  init(directory: URL) throws {
    url = directory.appendingPathComponent("up-\(UUID().uuidString)")
    fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw ServerError(.serverError, "cannot create an upload file (errno \(errno))") }
  }

  deinit {
    if !closed {
      close(fd)
      unlink(url.path)
    }
  }

  /// Appends bytes, refusing more than `limit` in total (the stated Content-Length).
  func append(_ bytes: UnsafeRawBufferPointer, limit: Int64) throws {
    guard count + Int64(bytes.count) <= limit else {
      throw ServerError(.contentMismatch, "the body is longer than its Content-Length; nothing was stored")
    }
    hasher.update(bufferPointer: bytes)
    var offset = 0
    while offset < bytes.count {
      let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        throw ServerError(.serverError, "cannot write an upload (errno \(errno))")
      }
      offset += n
    }
    count += Int64(bytes.count)
  }

  /// Checks length and hash, fsyncs and closes. On a mismatch the file is removed.
  func finish(expectedSize: Int64, expectedSHA256: String) throws -> StagedUpload {
    let digest = hasher.finalize().map { String(format: "%02x", $0) }.joined()
    closed = true
    guard count == expectedSize else {
      close(fd)
      unlink(url.path)
      throw ServerError(
        .contentMismatch, "received \(count) bytes but Content-Length said \(expectedSize); nothing was stored")
    }
    guard digest == expectedSHA256.lowercased() else {
      close(fd)
      unlink(url.path)
      throw ServerError(.contentMismatch, "the SHA-256 of the bytes differs from X-Folio-SHA256; nothing was stored")
    }
    guard fsync(fd) == 0 else {
      let e = errno
      close(fd)
      unlink(url.path)
      throw ServerError(.serverError, "cannot fsync an upload (errno \(e))")
    }
    close(fd)
    return StagedUpload(url: url, size: count, sha256: digest)
  }
}
