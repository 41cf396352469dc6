import AsyncHTTPClient
import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// A range of a local file as an upload's body, read as the connection asks for more
/// (AsyncHTTPClient's backpressure), so memory stays at about two chunks whatever the size.
///
/// Exactly `length` bytes are sent: the length the request declared and signed with the SHA-256
/// the caller computed beforehand. A file that shrank meanwhile fails the upload rather than send
/// a short body; one that changed is refused by a server that checks the payload hash (AWS does;
/// moto does not).
///
/// The same shape as FolioServerProvider's `FileBodySequence`, for the same measured reason (see
/// ``letWritesCatchUp(_:)``); S3Client cannot import that module.
struct S3FileBody: AsyncSequence, Sendable {
  typealias Element = ByteBuffer
  let path: String
  let offset: Int64
  let length: Int64
  let eventLoops: any EventLoopGroup
  let progress: S3ProgressHandler?
  static let chunkSize = 256 * 1024

  func makeAsyncIterator() -> Iterator { Iterator(self) }

  final class Iterator: AsyncIteratorProtocol {
    private let body: S3FileBody
    private var position: Int64
    private var fd: Int32 = -1
    private var opened = false

    init(_ body: S3FileBody) {
      self.body = body
      self.position = body.offset
    }

    deinit { if fd >= 0 { close(fd) } }

    func next() async throws -> ByteBuffer? {
      try Task.checkCancellation()
      if !opened {
        opened = true
        fd = open(body.path, O_RDONLY | O_CLOEXEC)
        if fd < 0 { throw S3Error(.localIO, "cannot read \(body.path): \(String(cString: strerror(errno)))") }
      }
      let sent = position - body.offset
      guard sent < body.length else {
        close(fd)
        fd = -1
        return nil
      }
      try await Self.letWritesCatchUp(body.eventLoops)
      body.progress?(sent, body.length)
      let want = Int(Swift.min(Int64(S3FileBody.chunkSize), body.length - sent))
      var buffer = ByteBufferAllocator().buffer(capacity: want)
      let fd = self.fd
      let at = off_t(position)
      var failure: Int32 = 0
      let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { raw in
        var n: Int
        repeat { n = pread(fd, raw.baseAddress, want, at) } while n < 0 && errno == EINTR
        if n < 0 { failure = errno }
        return Swift.max(n, 0)
      }
      if failure != 0 { throw S3Error(.localIO, "cannot read \(body.path): \(String(cString: strerror(failure)))") }
      if count == 0 { throw S3Error(.localIO, "\(body.path) became shorter while it was being uploaded") }
      position += Int64(count)
      return buffer
    }

    /// Waits until every event loop of the HTTP client has run what was queued on it, so the
    /// previous chunk has reached the connection before the next one is read.
    ///
    /// AsyncHTTPClient asks for the next chunk as soon as it has queued the last one's write, and
    /// stops asking only once the loop has run the write and found the socket full; reading from
    /// the page cache is faster than a loaded loop, so without this chunks pile up in between
    /// (FolioServerProvider measured 32 MiB → 45–95 MiB peak RSS for 1 GiB, docs/BENCHMARKS.md).
    static func letWritesCatchUp(_ group: any EventLoopGroup) async throws {
      for loop in group.makeIterator() {
        try await loop.submit {}.get()
      }
    }
  }
}

/// Told the bytes done and the bytes in all, as a transfer goes.
public typealias S3ProgressHandler = @Sendable (_ completed: Int64, _ total: Int64) -> Void
