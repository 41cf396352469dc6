import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Streams a response body into a file, counting and hashing as it goes, and refuses to call the
/// result complete unless the count (and, for whole files, the SHA-256) is what the server stated.
///
/// Test-plan D3/F05/F06: a proxy that cuts the body short, a `Content-Length` that lies, bytes
/// that differ from the hash — each is an error, and a file this download created is removed, so
/// nothing partial is ever mistaken for content. Cancellation (the task is cancelled) removes it
/// too. The file is fsynced before success is reported.
///
/// The hash and the durability stay on the transfer's path but off its critical thread: the
/// buffers are hashed on a queue of their own (``StreamingDigest``) while the next ones are
/// written, and writeback starts as the file grows (``FileWriteback``), so the final `fsync` has
/// little left (docs/BENCHMARKS.md, "Remote storage").
struct ContentDownload {
  let destination: URL
  let server: String
  /// Where in the file the body's first byte goes (a range request writes at its offset).
  var offset: Int64 = 0
  /// Truncate the file first (a whole-content download into a file that may hold older bytes).
  var truncate = true

  /// How often progress is reported, in bytes.
  static let progressStep: Int64 = 1 << 20

  /// Writes `body` and checks it.
  ///
  /// - Parameters:
  ///   - expectedLength: The length the server stated; the body must have exactly this many bytes.
  ///   - expectedSHA256: The lowercase hex hash of the bytes, when they are the whole content.
  ///   - progress: Called with the bytes written so far.
  /// - Throws: `ioError` for a short, long or corrupted body (after removing a file it created),
  ///   `serverUnreachable` for a stalled connection, `cancelled` when the task was cancelled.
  func write(
    _ body: HTTPClientResponse.Body, expectedLength: Int64, expectedSHA256: String?,
    progress: @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) {
    var created = true
    var fd = open(destination.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    if fd < 0 && errno == EEXIST {
      created = false
      fd = open(destination.path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
    }
    if fd < 0 {
      throw ProviderError(
        .ioError, "cannot write \(TerminalText.escape(destination.path)): \(String(cString: strerror(errno)))",
        underlying: errno)
    }
    let digest = expectedSHA256 == nil ? nil : StreamingDigest()
    let writeback = FileWriteback(fd: fd, start: offset)
    var closed = false
    func fail(_ error: ProviderError) -> ProviderError {
      digest?.abandon()
      writeback.finish()
      if !closed { close(fd) }
      closed = true
      if created { unlink(destination.path) }
      return error
    }
    if truncate && ftruncate(fd, 0) != 0 {
      throw fail(ProviderError(.ioError, "cannot write \(TerminalText.escape(destination.path))", underlying: errno))
    }
    var written: Int64 = 0
    // Progress is reported every `progressStep` bytes, not per buffer (64 KiB or less): the
    // callback may hop to an actor, and 16,000 hops per GiB would be paid on the receive loop.
    var reported: Int64 = 0
    var position = offset
    progress(TransferProgress(completedBytes: 0, totalBytes: expectedLength))
    do {
      for try await buffer in body {
        if Task.isCancelled { throw fail(.cancelledError) }
        let count = Int64(buffer.readableBytes)
        guard written + count <= expectedLength else {
          throw fail(
            ProviderError(.ioError, "\(server) sent more bytes than the \(expectedLength) it announced; nothing was kept"))
        }
        let ok = buffer.withUnsafeReadableBytes { raw -> Bool in
          var done = 0
          while done < raw.count {
            let n = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(position) + off_t(done))
            if n < 0 {
              if errno == EINTR { continue }
              return false
            }
            done += n
          }
          return true
        }
        guard ok else {
          let code = errno
          throw fail(
            ProviderError(
              .ioError, "cannot write \(TerminalText.escape(destination.path)): \(String(cString: strerror(code)))",
              underlying: code))
        }
        await digest?.update(buffer)
        written += count
        position += count
        writeback.written(upTo: position)
        if written - reported >= Self.progressStep || written == expectedLength {
          reported = written
          progress(TransferProgress(completedBytes: written, totalBytes: expectedLength))
        }
      }
    } catch let error as ProviderError {
      throw error
    } catch {
      if let e = error as? HTTPClientError, e == .readTimeout {
        throw fail(
          ProviderError(
            .serverUnreachable, "\(server) stopped sending after \(written) of \(expectedLength) bytes (nothing for 60 s)"))
      }
      if ServerErrorMapping.transport(error, server: server).code == .cancelled { throw fail(.cancelledError) }
      throw fail(
        ProviderError(.ioError, "the download from \(server) was cut short after \(written) of \(expectedLength) bytes"))
    }
    if Task.isCancelled { throw fail(.cancelledError) }
    guard written == expectedLength else {
      throw fail(
        ProviderError(.ioError, "the download from \(server) was cut short after \(written) of \(expectedLength) bytes"))
    }
    if let expectedSHA256, let digest {
      let actual = FileDigest.hex(await digest.finalize())
      guard actual == expectedSHA256.lowercased() else {
        throw fail(ProviderError(.ioError, "the bytes from \(server) do not match their SHA-256; nothing was kept"))
      }
    }
    writeback.finish()
    if fsync(fd) != 0 {
      throw fail(ProviderError(.ioError, "cannot write \(TerminalText.escape(destination.path))", underlying: errno))
    }
    close(fd)
    closed = true
  }
}
