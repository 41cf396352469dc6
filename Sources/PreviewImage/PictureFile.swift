import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// A bounded read of a whole local file, for decoding.
///
/// Opened non-blocking and without becoming a controlling terminal, then checked with fstat: a
/// FIFO or a device is never read (a FIFO would block, `/dev/zero` never ends). Read with `read`,
/// never mmap: a file truncated while mapped turns into SIGBUS (preview-pane.md §8).
enum PictureFile {
  static func read(_ path: ItemPath, limit: Int) throws(PictureError) -> [UInt8] {
    let fd = path.withCString { open($0, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
    guard fd >= 0 else { throw failure("cannot open", path, errno) }
    defer { close(fd) }
    var st = stat()
    guard fstat(fd, &st) == 0 else { throw failure("cannot stat", path, errno) }
    guard st.st_mode & S_IFMT == S_IFREG else {
      throw PictureError(.notARegularFile, "\(path.displayString) is not a regular file")
    }
    guard Int(st.st_size) <= limit else {
      throw PictureError(.fileTooLarge, "\(path.displayString) is over the \(limit >> 20) MiB read limit")
    }
    // The size may change while reading: read at most limit + 1 bytes, and refuse if we got more.
    var bytes = [UInt8](repeating: 0, count: min(limit + 1, Int(st.st_size) + 1))
    var count = 0
    while count < bytes.count {
      let n = bytes.withUnsafeMutableBytes { buffer in
        Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw failure("cannot read", path, errno)
      }
      if n == 0 { break }
      count += n
      if count == bytes.count, count <= limit {
        bytes += [UInt8](repeating: 0, count: min(limit + 1, bytes.count * 2) - bytes.count)
      }
    }
    guard count <= limit else {
      throw PictureError(.fileTooLarge, "\(path.displayString) is over the \(limit >> 20) MiB read limit")
    }
    bytes.removeSubrange(count...)
    return bytes
  }

  static func failure(_ what: String, _ path: ItemPath, _ code: Int32) -> PictureError {
    PictureError(.unreadable, "\(what) \(path.displayString): \(String(cString: strerror(code)))", underlying: code)
  }
}
