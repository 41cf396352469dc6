import Foundation
import NIOCore
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// A PUT's body as an async sequence of buffers, read as the connection asks for more
/// (AsyncHTTPClient's backpressure), so memory stays at about two chunks whatever the size.
///
/// Exactly `length` bytes are sent, the `Content-Length` the request declared: never chunked
/// transfer-encoding, which servers have stored truncated while answering 201 (test-plan D4). A
/// file that shrank meanwhile fails the upload rather than sending a short body.
struct UploadBody: AsyncSequence, Sendable {
  typealias Element = ByteBuffer

  enum Source: Sendable {
    /// An open file, read with `pread` from offset 0; the caller keeps it open until the upload ends.
    case file(fd: Int32, path: String)
    case bytes([UInt8])
  }

  static let chunkSize = 256 * 1024

  let source: Source
  let length: Int64
  /// Where in the file the body begins (a chunk of a chunked upload); 0 for a whole file.
  var base: Int64 = 0
  var progress: (@Sendable (Int64) -> Void)?
  /// Before the chunk that starts at this offset, ``hold`` is awaited (the probe's half-sent PUT).
  var holdAt: Int64?
  var hold: (@Sendable () async -> Void)?

  func makeAsyncIterator() -> Iterator { Iterator(body: self) }

  final class Iterator: AsyncIteratorProtocol {
    private let body: UploadBody
    private var offset: Int64 = 0
    private var held = false

    init(body: UploadBody) { self.body = body }

    func next() async throws -> ByteBuffer? {
      try Task.checkCancellation()
      guard offset < body.length else { return nil }
      if let holdAt = body.holdAt, !held, offset >= holdAt {
        held = true
        await body.hold?()
      }
      try await DAVTransport.letWritesCatchUp()
      body.progress?(offset)
      var want = Int(Swift.min(Int64(UploadBody.chunkSize), body.length - offset))
      if let holdAt = body.holdAt, offset < holdAt { want = Int(Swift.min(Int64(want), holdAt - offset)) }
      var buffer = ByteBufferAllocator().buffer(capacity: want)
      switch body.source {
      case .bytes(let bytes):
        buffer.writeBytes(bytes[Int(offset)..<Int(offset) + want])
      case .file(let fd, let path):
        var failed: Int32 = 0
        let n = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { raw in
          var n: Int
          repeat { n = pread(fd, raw.baseAddress, want, off_t(body.base + offset)) } while n < 0 && errno == EINTR
          if n < 0 { failed = errno }
          return Swift.max(n, 0)
        }
        if failed != 0 {
          throw WebDAVError(.localIO, "cannot read \(TerminalText.escape(path)): \(String(cString: strerror(failed)))")
        }
        if n == 0 {
          throw WebDAVError(.localIO, "\(TerminalText.escape(path)) became shorter while it was being uploaded")
        }
      }
      offset += Int64(buffer.readableBytes)
      return buffer
    }
  }
}
