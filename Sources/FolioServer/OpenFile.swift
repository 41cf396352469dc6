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

  /// Reads a range into the page cache and returns once it is there, copying nothing. A `sendfile`
  /// of it then finds the pages in memory instead of reading the disk on the event loop.
  /// A range already cached (the common case: a file just uploaded or served) is only looked at;
  /// otherwise it is mapped with `MAP_POPULATE`, which waits for the disk, and unmapped. Populating
  /// a cached range still maps every page: ~125 ms of CPU per GiB here, against ~25 ms for the
  /// look (`mincore`), which is why the look comes first. Where mapping fails, readahead is only
  /// asked for.
  func makeResident(from offset: Int64, count: Int64) {
    guard count > 0, !isCached(from: offset, count: count) else { return }
    let (start, length) = Self.pageAligned(offset, count)
    guard let map = mmap(nil, length, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, off_t(start)), map != MAP_FAILED else {
      _ = posix_fadvise(fd, off_t(offset), off_t(count), POSIX_FADV_WILLNEED)
      return
    }
    munmap(map, length)
  }

  /// Whether every page of a range is in the page cache. Mapping without populating touches no
  /// page, and `mincore` reads the cache's state. False when either call fails.
  func isCached(from offset: Int64, count: Int64) -> Bool {
    let (start, length) = Self.pageAligned(offset, count)
    guard length > 0, let map = mmap(nil, length, PROT_READ, MAP_SHARED, fd, off_t(start)), map != MAP_FAILED else {
      return false
    }
    defer { munmap(map, length) }
    var pages = [UInt8](repeating: 0, count: (length + Self.page - 1) / Self.page)
    guard mincore(map, length, &pages) == 0 else { return false }
    return pages.allSatisfy { $0 & 1 == 1 }
  }

  private static let page = Int(sysconf(Int32(_SC_PAGESIZE)))

  /// The page-aligned start and the length that covers `offset ..< offset + count`, as mmap wants.
  private static func pageAligned(_ offset: Int64, _ count: Int64) -> (start: Int64, length: Int) {
    let start = offset - offset % Int64(page)
    return (start, Int(offset + count - start))
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
