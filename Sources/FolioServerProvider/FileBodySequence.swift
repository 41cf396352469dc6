import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// A file's bytes as an async sequence of buffers: an upload's body, read from disk as the
/// connection asks for more (AsyncHTTPClient's backpressure), so memory stays at one chunk
/// whatever the file's size.
///
/// Exactly `size` bytes are sent: the length the request declared and the server checks together
/// with the SHA-256 computed beforehand. A file that shrank meanwhile fails the upload rather than
/// sending a short body; one that grew is cut at `size` and the server then refuses the hash.
///
/// `progress` is told the bytes that reached the connection each time the client asks for more
/// (so one chunk behind the reads). The client need not ask once the declared length is sent: the
/// caller reports the whole size when the server's answer says it has it.
struct FileBodySequence: AsyncSequence, Sendable {
  typealias Element = ByteBuffer
  let url: URL
  let size: Int64
  var progress: (@Sendable (TransferProgress) -> Void)?
  static let chunkSize = 256 * 1024

  func makeAsyncIterator() -> Iterator { Iterator(url: url, size: size, progress: progress) }

  final class Iterator: AsyncIteratorProtocol {
    private let url: URL
    private let size: Int64
    private var remaining: Int64
    private var fd: Int32 = -1
    private var opened = false
    private let progress: (@Sendable (TransferProgress) -> Void)?

    init(url: URL, size: Int64, progress: (@Sendable (TransferProgress) -> Void)?) {
      self.url = url
      self.size = size
      self.remaining = size
      self.progress = progress
    }

    deinit { if fd >= 0 { close(fd) } }

    func next() async throws -> ByteBuffer? {
      try Task.checkCancellation()
      if !opened {
        opened = true
        fd = open(url.path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
          throw ProviderError(.ioError, "cannot read \(TerminalText.escape(url.path)): \(String(cString: strerror(errno)))")
        }
      }
      guard remaining > 0 else {
        close(fd)
        fd = -1
        return nil
      }
      try await Self.letWritesCatchUp()
      progress?(TransferProgress(completedBytes: size - remaining, totalBytes: size))
      let want = Int(Swift.min(Int64(FileBodySequence.chunkSize), remaining))
      var buffer = ByteBufferAllocator().buffer(capacity: want)
      let n = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { raw in
        var n: Int
        repeat { n = read(fd, raw.baseAddress, want) } while n < 0 && errno == EINTR
        return Swift.max(n, 0)
      }
      if n == 0 {
        throw ProviderError(.ioError, "\(TerminalText.escape(url.path)) became shorter while it was being uploaded")
      }
      remaining -= Int64(n)
      return buffer
    }

    /// Waits until every event loop of the HTTP client has run what was queued on it, so the
    /// previous chunk has reached the connection before the next one is read.
    ///
    /// AsyncHTTPClient asks for the next chunk as soon as it has queued the last one's write on the
    /// connection's event loop, and stops asking only once that loop has run the write and found
    /// the socket full. Reading from the page cache is much faster than a loaded loop, so without
    /// this the chunks queued in between took a 1 GiB upload's peak RSS from 32 MiB to 45–95 MiB
    /// (folio-bench remote, docs/BENCHMARKS.md). Event loops run their tasks in order: once a no-op
    /// submitted to each has run, the write is done and the client has paused the body if the
    /// socket is full, so about two chunks are in memory, whatever the file's size.
    static func letWritesCatchUp() async throws {
      for loop in HTTPTransport.client.eventLoopGroup.makeIterator() {
        try await loop.submit {}.get()
      }
    }
  }
}

/// Size and SHA-256 of a file, read once before an upload (the server checks both).
enum FileDigest {
  /// Reads the file on a thread of its own: hashing a large file must not hold a thread of the
  /// cooperative pool for seconds.
  static func of(_ url: URL) async throws(ProviderError) -> (size: Int64, sha256: String) {
    let result: Result<(Int64, String), ProviderError> = await withCheckedContinuation { cont in
      DispatchQueue.global().async { cont.resume(returning: compute(url)) }
    }
    return try result.get()
  }

  /// The SHA-256 of some bytes, as lowercase hex.
  static func hex(_ digest: SHA256.Digest) -> String {
    digest.map { String(format: "%02x", $0) }.joined()
  }

  private static func compute(_ url: URL) -> Result<(Int64, String), ProviderError> {
    let fd = open(url.path, O_RDONLY | O_CLOEXEC)
    if fd < 0 {
      return .failure(ProviderError(.ioError, "cannot read \(TerminalText.escape(url.path)): \(String(cString: strerror(errno)))"))
    }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
      return .failure(ProviderError(.invalidArgument, "\(TerminalText.escape(url.path)) is not a regular file"))
    }
    var hasher = SHA256()
    var total: Int64 = 0
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        return .failure(ProviderError(.ioError, "cannot read \(TerminalText.escape(url.path)): \(String(cString: strerror(errno)))"))
      }
      if n == 0 { break }
      chunk.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
      total += Int64(n)
    }
    return .success((total, hex(hasher.finalize())))
  }
}
