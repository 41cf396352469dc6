import CFolioSystem
import Crypto
import Foundation
import ProviderAPI
import WorkingSetIndex

#if canImport(Glibc)
  import Glibc
#endif

/// The file operations the content store is built from, each crash-safe on its own: a new file is
/// created with O_EXCL|O_NOFOLLOW (a planted symlink or a leftover is never written through),
/// bytes are fsynced before the rename that makes them visible, and the folder is fsynced after it.
/// A crash therefore leaves either the old state or the new one, plus at worst a temporary file
/// that the next start removes (test plan §0 rule 9, §4.4 L01/L05).
enum DurableFile {
  static let chunk = 1 << 20

  /// Creates `folder` and its parents, owner-only (0700), as the cache of a multi-user machine
  /// must be (test plan S1).
  static func makeFolder(_ folder: URL) throws(ProviderError) {
    try willWrite(folder)
    var path = ""
    for part in folder.path.split(separator: "/") {
      path += "/" + part
      if mkdir(path, 0o700) != 0 && errno != EEXIST {
        throw error(errno, "cannot create the folder", path)
      }
    }
  }

  /// A new, empty file `.tmp-PID-RANDOM` in `folder`, opened for writing, mode 0600.
  static func createTemporary(in folder: URL) throws(ProviderError) -> (url: URL, fd: Int32) {
    try willWrite(folder)
    for _ in 0..<8 {
      let name = ".tmp-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
      let url = folder.appendingPathComponent(name, isDirectory: false)
      let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
      if fd >= 0 { return (url, fd) }
      if errno != EEXIST { throw error(errno, "cannot create a temporary file in", folder.path) }
    }
    throw ProviderError(.ioError, "cannot create a temporary file in \(TerminalText.escape(folder.path))")
  }

  /// True for names this module gives temporary files, and the pid that made it.
  static func temporaryOwner(_ name: String) -> Int32? {
    guard name.hasPrefix(".tmp-") else { return nil }
    return Int32(name.dropFirst(5).prefix { $0 != "-" })
  }

  /// Copies `source` (a regular file; symlinks to one are followed: the person named it) into the
  /// open `fd`, hashing as it goes, then fsyncs `fd`.
  ///
  /// - Returns: The number of bytes and their lowercase hex SHA-256.
  static func copy(
    from source: URL, to fd: Int32, cancel: BlockingWork.Cancellation? = nil,
    progress: (Int64) -> Void = { _ in }
  ) throws(ProviderError) -> (size: Int64, sha256: String) {
    try copy(from: ItemPath(source.path), to: fd, cancel: cancel, progress: progress)
  }

  /// The same from a path given as bytes (a file name that is not UTF-8 is read as it is).
  static func copy(
    from source: ItemPath, to fd: Int32, cancel: BlockingWork.Cancellation? = nil,
    progress: (Int64) -> Void = { _ in }
  ) throws(ProviderError) -> (size: Int64, sha256: String) {
    let src = source.withCString { open($0, O_RDONLY | O_CLOEXEC) }
    let shown = source.displayString
    guard src >= 0 else { throw error(errno, "cannot read", shown, escaped: true) }
    defer { close(src) }
    var info = stat()
    guard fstat(src, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      throw ProviderError(.invalidArgument, "\(shown) is not a regular file")
    }
    var hasher = SHA256()
    var total: Int64 = 0
    var buffer = [UInt8](repeating: 0, count: chunk)
    while true {
      if cancel?.isCancelled == true { throw .cancelledError }
      let n = buffer.withUnsafeMutableBytes { read(src, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw error(errno, "cannot read", shown, escaped: true)
      }
      if n == 0 { break }
      try writeAll(fd, buffer, count: n)
      buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
      total += Int64(n)
      progress(total)
    }
    guard fsync(fd) == 0 else { throw error(errno, "cannot flush a copy of", shown, escaped: true) }
    return (total, hex(hasher.finalize()))
  }

  /// Reads a file through, returning its size and SHA-256, and fsyncs it when asked (a file
  /// another writer — a provider's download — produced).
  static func digest(
    of url: URL, sync: Bool = false, cancel: BlockingWork.Cancellation? = nil
  ) throws(ProviderError) -> (size: Int64, sha256: String) {
    let fd = open(url.path, (sync ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { throw error(errno, "cannot read", url.path) }
    defer { close(fd) }
    var hasher = SHA256()
    var total: Int64 = 0
    var buffer = [UInt8](repeating: 0, count: chunk)
    while true {
      if cancel?.isCancelled == true { throw .cancelledError }
      let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw error(errno, "cannot read", url.path)
      }
      if n == 0 { break }
      buffer.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
      total += Int64(n)
    }
    if sync && fsync(fd) != 0 { throw error(errno, "cannot flush", url.path) }
    return (total, hex(hasher.finalize()))
  }

  /// Copies a whole file into `fd` and fsyncs it, without hashing: with `copy_file_range`, so the
  /// bytes never pass through this process (and a filesystem that can share extents, btrfs or
  /// XFS, shares them); by reading and writing where the kernel cannot (another filesystem type,
  /// an old kernel). For copies whose hash nobody needs (`folio get ITEM DEST`).
  static func copyContents(
    from source: URL, to fd: Int32, cancel: BlockingWork.Cancellation? = nil, step: Int = 64 << 20
  ) throws(ProviderError) {
    let src = open(source.path, O_RDONLY | O_CLOEXEC)
    guard src >= 0 else { throw error(errno, "cannot read", source.path) }
    defer { close(src) }
    var info = stat()
    guard fstat(src, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      throw ProviderError(.invalidArgument, "\(TerminalText.escape(source.path)) is not a regular file")
    }
    let size = Int64(info.st_size)
    var (inOffset, outOffset): (Int64, Int64) = (0, 0)
    var kernelCopies = true
    while outOffset < size {
      if cancel?.isCancelled == true { throw .cancelledError }
      let n = folio_copy_file_range(src, &inOffset, fd, &outOffset, step)
      if n > 0 { continue }
      if n < 0 && errno == EINTR { continue }
      if n < 0 && ![EXDEV, ENOSYS, EINVAL, EOPNOTSUPP, EBADF].contains(errno) {
        throw error(errno, "cannot copy", source.path)
      }
      // The kernel cannot copy between these two (or says 0 before the end, as some filesystems
      // do): the ordinary way, from the start.
      kernelCopies = false
      break
    }
    if !kernelCopies {
      guard ftruncate(fd, 0) == 0 else { throw error(errno, "cannot write a copy of", source.path) }
      let (copied, _) = try copy(from: source, to: fd, cancel: cancel)
      guard copied == size else {
        throw ProviderError(.ioError, "\(TerminalText.escape(source.path)) changed while it was copied")
      }
      return  // `copy` fsyncs
    }
    guard fsync(fd) == 0 else { throw error(errno, "cannot flush a copy of", source.path) }
  }

  /// The size of a regular file, after an fsync with `sync` (a failed one throws: a write-back
  /// error is reported once, and a second descriptor's fsync would not see it).
  static func size(of url: URL, sync: Bool) throws(ProviderError) -> Int64 {
    let fd = open(url.path, (sync ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else { throw error(errno, "cannot read", url.path) }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
      throw ProviderError(.ioError, "\(TerminalText.escape(url.path)) is not a regular file")
    }
    if sync && fsync(fd) != 0 { throw error(errno, "cannot flush", url.path) }
    return Int64(info.st_size)
  }

  /// Renames `from` onto `to` (replacing it), then fsyncs the folder so the rename itself is
  /// durable.
  static func publish(_ from: URL, as to: URL) throws(ProviderError) {
    try willWrite(to)
    guard rename(from.path, to.path) == 0 else { throw error(errno, "cannot move into place", to.path) }
    syncFolder(of: to)
  }

  /// Gives `existing` a second name `to` through a temporary hard link renamed into place (so a
  /// file already at `to` is replaced atomically), then fsyncs the folder.
  static func link(_ existing: URL, as to: URL) throws(ProviderError) {
    try willWrite(to)
    let folder = to.deletingLastPathComponent()
    for _ in 0..<8 {
      let temp = folder.appendingPathComponent(".tmp-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))")
      if Glibc.link(existing.path, temp.path) == 0 { return try publish(temp, as: to) }
      if errno != EEXIST { throw error(errno, "cannot link into place", to.path) }
    }
    throw ProviderError(.ioError, "cannot link into place \(TerminalText.escape(to.path))")
  }

  static func syncFolder(of url: URL) {
    let fd = open(url.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { return }
    _ = fsync(fd)
    close(fd)
  }

  /// Removes a file; a missing one is fine. (Nothing is removed by a process `folio-sim` has
  /// just crashed.)
  static func remove(_ url: URL) {
    guard (try? willWrite(url)) != nil else { return }
    _ = unlink(url.path)
  }

  /// `size:mtime-ns:inode` of a regular file (not following a symlink), or nil when there is no
  /// regular file there. Any write, or an editor's save-and-rename, changes it.
  static func stamp(of url: URL) -> String? {
    var info = stat()
    guard lstat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    let ns = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
    return "\(info.st_size):\(ns):\(info.st_ino)"
  }

  static func exists(_ url: URL) -> Bool { stamp(of: url) != nil }

  /// The device and inode of a file: two names of one file have the same.
  struct FileID: Equatable {
    var device: UInt64
    var inode: UInt64
  }

  /// The ``FileID`` of the regular file at `url` (not following a symlink), or nil.
  static func fileID(of url: URL) -> FileID? {
    var info = stat()
    guard lstat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
    return FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
  }

  /// How many names the regular file at `url` has (0 when there is none).
  static func linkCount(of url: URL) -> Int {
    var info = stat()
    guard lstat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return 0 }
    return Int(info.st_nlink)
  }

  /// `folio-sim`'s crash point before a durable file step (``DurableSteps``).
  static func willWrite(_ url: URL) throws(ProviderError) {
    if let step = DurableSteps.willWrite { try step(url.path, nil) }
  }

  /// The lowercase hex of a digest.
  static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
    // By hand: `String(format:)` per byte goes through Foundation's formatter, a visible share of
    // every staged edit and download (folio-sim's profile).
    var out: [UInt8] = []
    out.reserveCapacity(64)
    for byte in digest {
      out.append(hexDigits[Int(byte >> 4)])
      out.append(hexDigits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static let hexDigits = Array("0123456789abcdef".utf8)

  private static func writeAll(_ fd: Int32, _ buffer: [UInt8], count: Int) throws(ProviderError) {
    var offset = 0
    while offset < count {
      let n = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + offset, count - offset) }
      if n < 0 {
        if errno == EINTR { continue }
        throw error(errno, "cannot write", "a file in the content store")
      }
      offset += n
    }
  }

  static func error(_ code: Int32, _ what: String, _ path: String, escaped: Bool = false) -> ProviderError {
    let reason = String(cString: strerror(code))
    let kind: ProviderError.Code = code == ENOENT ? .noSuchItem : (code == EACCES || code == EPERM) ? .noPermission : .ioError
    return ProviderError(kind, "\(what) \(escaped ? path : TerminalText.escape(path)): \(reason)", underlying: code)
  }
}
