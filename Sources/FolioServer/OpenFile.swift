import FolioProtocol
import Foundation
import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// A content file open for reading; closed when the last reference goes.
final class OpenFile: @unchecked Sendable {
  private let fd: Int32

  init(_ url: URL) throws {
    fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
    guard fd >= 0 else { throw ServerError(.serverError, "the content of this item is missing on the server") }
  }

  deinit { close(fd) }

  func read(at offset: Int64, count: Int) throws -> ByteBuffer {
    var buffer = ByteBufferAllocator().buffer(capacity: count)
    try read(into: &buffer, at: offset, count: count)
    return buffer
  }

  /// Reads into `buffer` after clearing it: its storage is reused when nothing else holds it.
  func read(into buffer: inout ByteBuffer, at offset: Int64, count: Int) throws {
    buffer.clear()
    let n = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { ptr in
      let r = pread(fd, ptr.baseAddress, count, off_t(offset))
      return max(0, r)
    }
    if n == 0, count > 0 { throw ServerError(.serverError, "the content file is shorter than its record") }
  }
}
