import Crypto
import Foundation
import NIOCore
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// A download into a file: opens it, gives the connection a ``ContentSink`` to stream the body
/// into, and refuses to call the result complete unless the count (and, for whole files, the
/// SHA-256) is what the server stated.
///
/// Test-plan D3/F05/F06: a proxy that cuts the body short, a `Content-Length` that lies, bytes
/// that differ from the hash — each is an error, and a file this download created is removed, so
/// nothing partial is ever mistaken for content. Cancellation (the task is cancelled) removes it
/// too. The file is fsynced before success is reported; writeback starts as the file grows
/// (``FileWriteback``), so that final `fsync` has little left (docs/BENCHMARKS.md, "Remote
/// storage").
struct ContentDownload {
  let destination: URL
  let server: String
  /// Where in the file the body's first byte goes (a range request writes at its offset).
  var offset: Int64 = 0
  /// Truncate the file first (a whole-content download into a file that may hold older bytes).
  var truncate = true
  /// The body may be longer than the length expected: only that many bytes are kept, then the
  /// connection is closed (``ContentSink``'s `keepsOnlyExpected`).
  var keepsOnlyExpected = false

  /// The open file and what was asked of it, between ``open(expectedLength:expectedSHA256:progress:)``
  /// and ``finish(_:)``.
  struct Receiving {
    let sink: ContentSink
    let fd: Int32
    let created: Bool
    let expectedSHA256: String?
  }

  /// Opens (or creates) the file and a sink that writes the body into it.
  ///
  /// - Parameters:
  ///   - expectedLength: The length the server stated; the body must have exactly this many bytes.
  ///   - expectedSHA256: The lowercase hex hash of the bytes, when they are the whole content.
  ///   - progress: Called with the bytes written so far (from the writing queue).
  func open(
    expectedLength: Int64, expectedSHA256: String?, progress: @escaping @Sendable (TransferProgress) -> Void
  ) throws(ProviderError) -> Receiving {
    var created = true
    var fd = Glibc.open(destination.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    if fd < 0 && errno == EEXIST {
      created = false
      fd = Glibc.open(destination.path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
    }
    if fd < 0 {
      throw ProviderError(
        .ioError, "cannot write \(TerminalText.escape(destination.path)): \(String(cString: strerror(errno)))",
        underlying: errno)
    }
    if truncate && ftruncate(fd, 0) != 0 {
      let code = errno
      close(fd)
      if created { unlink(destination.path) }
      throw ProviderError(.ioError, "cannot write \(TerminalText.escape(destination.path))", underlying: code)
    }
    let sink = ContentSink(
      fd: fd, start: offset, expectedLength: expectedLength, hashing: expectedSHA256 != nil,
      keepsOnlyExpected: keepsOnlyExpected, path: destination.path, server: server, progress: progress)
    return Receiving(sink: sink, fd: fd, created: created, expectedSHA256: expectedSHA256)
  }

  /// Waits for the sink to have written (and hashed) everything, checks the count and the hash,
  /// and makes the file durable.
  ///
  /// - Throws: `ioError` for a short, long or corrupted body (after removing a file it created),
  ///   `serverUnreachable` for a stalled connection, `cancelled` when the task was cancelled.
  func finish(_ r: Receiving) async throws(ProviderError) {
    await r.sink.drained()
    r.sink.stop()
    func fail(_ error: ProviderError) -> ProviderError {
      close(r.fd)
      if r.created { unlink(destination.path) }
      return error
    }
    if Task.isCancelled { throw fail(.cancelledError) }
    let written: Int64
    switch r.sink.outcome {
    case .failure(let e): throw fail(e)
    case .success(let n): written = n
    }
    guard written == r.sink.expectedLength else {
      throw fail(
        ProviderError(
          .ioError, "the download from \(server) was cut short after \(written) of \(r.sink.expectedLength) bytes"))
    }
    if let expected = r.expectedSHA256, let digest = r.sink.digest() {
      guard FileDigest.hex(digest) == expected.lowercased() else {
        throw fail(ProviderError(.ioError, "the bytes from \(server) do not match their SHA-256; nothing was kept"))
      }
    }
    if fsync(r.fd) != 0 {
      throw fail(ProviderError(.ioError, "cannot write \(TerminalText.escape(destination.path))", underlying: errno))
    }
    close(r.fd)
  }

  /// Gives up before any byte was received: closes the file and removes it if it was created.
  func abandon(_ r: Receiving) {
    r.sink.fail(.cancelledError)
    r.sink.stop()
    close(r.fd)
    if r.created { unlink(destination.path) }
  }
}
