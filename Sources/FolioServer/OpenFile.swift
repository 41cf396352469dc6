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

  /// The file's size now (`fstat`), or nil when it cannot be read.
  var size: Int64? {
    var st = stat()
    return fstat(fd, &st) == 0 ? Int64(st.st_size) : nil
  }

  /// A second descriptor for the same open file, for a caller that closes its own (``SendfileBody``).
  func duplicateDescriptor() throws -> Int32 {
    let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
    guard copy >= 0 else { throw ServerError(.serverError, "cannot send the content: \(String(cString: strerror(errno)))") }
    return copy
  }

  /// Asks the kernel to start reading a range into the page cache (`POSIX_FADV_WILLNEED`), so that
  /// a later `sendfile` of it finds the pages there instead of waiting for the disk.
  func willNeed(from offset: Int64, count: Int64) {
    _ = posix_fadvise(fd, off_t(offset), off_t(count), POSIX_FADV_WILLNEED)
  }

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
