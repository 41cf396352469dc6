import CFolioSystem
import Glibc
import ProviderAPI

/// Small byte-path wrappers around the POSIX calls the trash and tags code needs.
///
/// Everything takes an ``ItemPath`` and hands its bytes to the kernel through `withCString`, so a
/// name that is not valid UTF-8 never goes through `String`, `URL` or `FileManager` (which would
/// replace the invalid bytes). Errors come back as ``ProviderError`` with a one-line message that
/// names the path through `displayString` (escaped), never raw bytes.
///
/// Nothing here follows a final symlink unless its name says so (`stat` vs `lstat`).
enum PosixPath {
  /// The fields of `struct stat` the callers use, so they don't depend on Glibc's layout.
  struct Status: Sendable, Equatable {
    var device: UInt64
    var inode: UInt64
    var mode: UInt32
    var size: Int64
    var owner: UInt32
    var modified: Int
    /// The modification time in nanoseconds since 1970.
    var modifiedNanos: Int64

    static let typeMask: UInt32 = 0o170000
    var isDirectory: Bool { mode & Self.typeMask == 0o040000 }
    var isSymbolicLink: Bool { mode & Self.typeMask == 0o120000 }
    var isRegularFile: Bool { mode & Self.typeMask == 0o100000 }
    var isSticky: Bool { mode & 0o1000 != 0 }
    var permissions: UInt32 { mode & 0o7777 }

    init(_ s: stat) {
      device = UInt64(s.st_dev)
      inode = UInt64(s.st_ino)
      mode = UInt32(s.st_mode)
      size = Int64(s.st_size)
      owner = UInt32(s.st_uid)
      modified = Int(s.st_mtim.tv_sec)
      modifiedNanos = Int64(s.st_mtim.tv_sec) * 1_000_000_000 + Int64(s.st_mtim.tv_nsec)
    }
  }

  // MARK: - Errors

  /// The ProviderError for an errno, as `"<operation> '<path>': <strerror>"`.
  ///
  /// The mapping follows the File Provider codes the rest of Folio understands: a missing item is
  /// `noSuchItem`, a permission problem `noPermission`, an existing name `filenameCollision`, and
  /// everything the user cannot fix by changing the request is an `ioError`.
  static func error(_ code: Int32, _ operation: String, _ path: ItemPath) -> ProviderError {
    ProviderError(
      errorCode(for: code), "\(operation) '\(path.displayString)': \(describe(code))", underlying: code)
  }

  static func errorCode(for code: Int32) -> ProviderError.Code {
    switch code {
    case ENOENT, ENOTDIR: return .noSuchItem
    case EACCES, EPERM: return .noPermission
    case EEXIST: return .filenameCollision
    case ENOTEMPTY: return .directoryNotEmpty
    case EROFS: return .readOnly
    case ENOSPC, EDQUOT: return .insufficientQuota
    case ENAMETOOLONG, ELOOP, EINVAL: return .invalidArgument
    case ENOTSUP: return .featureUnsupported  // == EOPNOTSUPP on Linux
    default: return .ioError  // EXDEV, EIO, EBUSY, …
    }
  }

  /// `strerror` text, e.g. "No such file or directory".
  static func describe(_ code: Int32) -> String {
    guard let s = strerror(code) else { return "errno \(code)" }
    return String(cString: s)
  }

  // MARK: - Status

  /// `lstat`: the status of the entry itself (a symlink is not followed). Throws when missing.
  static func lstat(_ path: ItemPath) throws(ProviderError) -> Status {
    var st = stat()
    let rc = path.withCString { fstatat(AT_FDCWD, $0, &st, AT_SYMLINK_NOFOLLOW) }
    if rc != 0 { throw error(errno, "cannot read the attributes of", path) }
    return Status(st)
  }

  /// `lstat`, or nil when nothing exists at the path (ENOENT); other failures throw.
  static func lstatIfExists(_ path: ItemPath) throws(ProviderError) -> Status? {
    var st = stat()
    let rc = path.withCString { fstatat(AT_FDCWD, $0, &st, AT_SYMLINK_NOFOLLOW) }
    if rc == 0 { return Status(st) }
    let e = errno
    if e == ENOENT { return nil }
    throw error(e, "cannot read the attributes of", path)
  }

  /// `stat` (follows symlinks), or nil on any failure. Used only to compare devices.
  static func statOrNil(_ path: ItemPath) -> Status? {
    var st = stat()
    let rc = path.withCString { fstatat(AT_FDCWD, $0, &st, 0) }
    return rc == 0 ? Status(st) : nil
  }

  /// `realpath`: the canonical absolute path with symlinks, `.` and `..` resolved.
  static func realpath(_ path: ItemPath) throws(ProviderError) -> ItemPath {
    let resolved: [UInt8]? = path.withCString { p in
      guard let r = Glibc.realpath(p, nil) else { return nil }
      defer { free(r) }
      return bytes(ofCString: r)
    }
    guard let resolved else { throw error(errno, "cannot resolve", path) }
    return ItemPath(bytes: resolved)
  }

  // MARK: - Paths

  /// `path/component` for a component given as ASCII text ("files", ".Trash-1000").
  static func child(_ path: ItemPath, _ component: String) -> ItemPath {
    path.appending(ItemName(bytes: Array(component.utf8)))
  }

  /// True when `path` is `ancestor` or lies below it (byte prefix on a component boundary).
  static func isSameOrDescendant(_ path: ItemPath, of ancestor: ItemPath) -> Bool {
    let a = stripTrailingSlashes(ancestor.bytes)
    let p = stripTrailingSlashes(path.bytes)
    if a == [0x2F] { return p.first == 0x2F }
    guard p.count >= a.count, p.starts(with: a) else { return false }
    return p.count == a.count || p[a.count] == 0x2F
  }

  static func stripTrailingSlashes(_ b: [UInt8]) -> [UInt8] {
    var end = b.count
    while end > 1 && b[end - 1] == 0x2F { end -= 1 }
    return Array(b[..<end])
  }

  static func bytes(ofCString p: UnsafePointer<CChar>) -> [UInt8] {
    let n = strlen(p)
    return p.withMemoryRebound(to: UInt8.self, capacity: n) { Array(UnsafeBufferPointer(start: $0, count: n)) }
  }

  // MARK: - Directories

  /// `mkdir`, returning 0 or the errno (EEXIST included, for callers that treat it as success).
  static func makeDirectory(_ path: ItemPath, mode: mode_t) -> Int32 {
    let rc = path.withCString { mkdir($0, mode) }
    return rc == 0 ? 0 : errno
  }

  /// `mkdir -p`: creates the missing folders of an absolute path, each with `mode` (minus umask).
  ///
  /// An existing component must be a folder (or a symlink to one, as `mkdir -p` accepts).
  static func makeDirectories(_ path: ItemPath, mode: mode_t = 0o777) throws(ProviderError) {
    if let st = statOrNil(path) {
      if st.isDirectory { return }
      throw error(ENOTDIR, "cannot create the folder", path)
    }
    let parent = path.parent
    if parent != path && parent.bytes != [0x2E] { try makeDirectories(parent, mode: mode) }
    let e = makeDirectory(path, mode: mode)
    if e != 0 && !(e == EEXIST && statOrNil(path)?.isDirectory == true) {
      throw error(e, "cannot create the folder", path)
    }
  }

  /// The names in a folder, without `.` and `..`, in no particular order.
  static func contentsOfDirectory(_ path: ItemPath) throws(ProviderError) -> [ItemName] {
    let fd = path.withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    if fd < 0 { throw error(errno, "cannot read the folder", path) }
    return try contentsOfDirectory(fd: fd, path: path)
  }

  /// Reads the names of an open folder and closes `fd` (which `fdopendir` takes over).
  static func contentsOfDirectory(fd: Int32, path: ItemPath) throws(ProviderError) -> [ItemName] {
    guard let dir = fdopendir(fd) else {
      let e = errno
      close(fd)
      throw error(e, "cannot read the folder", path)
    }
    defer { closedir(dir) }
    var names: [ItemName] = []
    while true {
      errno = 0
      guard let entry = readdir(dir) else {
        if errno != 0 { throw error(errno, "cannot read the folder", path) }
        return names
      }
      let name: [UInt8] = withUnsafePointer(to: &entry.pointee.d_name) { tuple in
        tuple.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: tuple.pointee)) {
          bytes(ofCString: $0)
        }
      }
      if name == [0x2E] || name == [0x2E, 0x2E] || name.isEmpty { continue }
      names.append(ItemName(bytes: name))
    }
  }

  /// Makes a folder's entries durable (after a rename or create in it). Best effort: some
  /// filesystems refuse fsync on a folder, and the operation already succeeded.
  static func syncDirectory(_ path: ItemPath) {
    let fd = path.withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    if fd >= 0 {
      _ = fsync(fd)
      close(fd)
    }
  }

  // MARK: - Files

  /// Reads a whole small file without following a final symlink. Fails with EFBIG past `limit`.
  static func readSmallFile(_ path: ItemPath, limit: Int) throws(ProviderError) -> [UInt8] {
    let fd = path.withCString { open($0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
    if fd < 0 { throw error(errno, "cannot read", path) }
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16384)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw error(errno, "cannot read", path)
      }
      if n == 0 { return out }
      out.append(contentsOf: chunk[..<n])
      if out.count > limit { throw error(EFBIG, "cannot read", path) }
    }
  }

  /// Writes all of `data` to `fd`, retrying short writes and EINTR. Returns 0 or the errno.
  static func writeAll(_ fd: Int32, _ data: [UInt8]) -> Int32 {
    var offset = 0
    while offset < data.count {
      let n = data.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
      if n < 0 {
        if errno == EINTR { continue }
        return errno
      }
      offset += n
    }
    return 0
  }

  /// `unlink`, returning 0 or the errno.
  static func unlinkFile(_ path: ItemPath) -> Int32 {
    let rc = path.withCString { unlink($0) }
    return rc == 0 ? 0 : errno
  }

  // MARK: - Rename

  /// Renames without replacing an existing target: 0, or the errno (EEXIST when the name is taken).
  ///
  /// Uses renameat2(RENAME_NOREPLACE), which is atomic. A few filesystems (older NFS, some FUSE)
  /// answer EINVAL/ENOSYS; then we check with lstat and rename, which leaves a small race window but
  /// is what trash-cli and `mv -n` do everywhere.
  static func renameNoReplace(_ from: ItemPath, _ to: ItemPath) -> Int32 {
    let rc = from.withCString { f in to.withCString { t in folio_rename_noreplace(f, t) } }
    if rc == 0 { return 0 }
    let e = errno
    guard e == EINVAL || e == ENOSYS else { return e }
    var st = stat()
    if to.withCString({ fstatat(AT_FDCWD, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0 { return EEXIST }
    let rc2 = from.withCString { f in to.withCString { t in rename(f, t) } }
    return rc2 == 0 ? 0 : errno
  }

  // MARK: - Removing trees

  /// Removes a file, a symlink or a whole folder tree, never following symlinks.
  ///
  /// Folders are opened with O_NOFOLLOW and walked with `*at` calls relative to their descriptor,
  /// so a symlink inside the tree (even one swapped in while we walk) is unlinked, not entered.
  /// A folder without write or search permission for its owner (a read-only tree) is made
  /// accessible first, as `rm -rf` users expect for their own files.
  static func removeTree(_ path: ItemPath) throws(ProviderError) {
    let st = try lstat(path)
    if !st.isDirectory {
      let e = unlinkFile(path)
      if e != 0 { throw error(e, "cannot delete", path) }
      return
    }
    var fd = path.withCString { open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
    if fd < 0 && errno == EACCES {
      _ = path.withCString { chmod($0, mode_t(st.permissions | 0o700)) }
      fd = path.withCString { open($0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
    }
    if fd < 0 { throw error(errno, "cannot delete", path) }
    do throws(ProviderError) {
      try removeContents(fd: fd, path: path)
    } catch {
      close(fd)
      throw error
    }
    close(fd)
    let rc = path.withCString { rmdir($0) }
    if rc != 0 { throw error(errno, "cannot delete", path) }
  }

  /// Empties the folder open as `fd` (which stays open; the caller closes it).
  private static func removeContents(fd: Int32, path: ItemPath) throws(ProviderError) {
    let listing = dup(fd)
    if listing < 0 { throw error(errno, "cannot read the folder", path) }
    // Read the names first: removing entries while readdir walks the same stream is allowed by
    // POSIX but may skip names.
    let names = try contentsOfDirectory(fd: listing, path: path)
    var madeWritable = false
    for name in names {
      let childPath = path.appending(name)
      var st = stat()
      let rc = name.withCString { fstatat(fd, $0, &st, AT_SYMLINK_NOFOLLOW) }
      if rc != 0 {
        if errno == ENOENT { continue }  // removed by someone else meanwhile
        throw error(errno, "cannot delete", childPath)
      }
      let isDirectory = Status(st).isDirectory
      if isDirectory {
        var child = name.withCString { openat(fd, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        if child < 0 && errno == EACCES {
          _ = name.withCString { fchmodat(fd, $0, mode_t(Status(st).permissions | 0o700), 0) }
          child = name.withCString { openat(fd, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        }
        if child < 0 { throw error(errno, "cannot delete", childPath) }
        do throws(ProviderError) {
          try removeContents(fd: child, path: childPath)
        } catch {
          close(child)
          throw error
        }
        close(child)
      }
      let flags: Int32 = isDirectory ? AT_REMOVEDIR : 0
      var rm = name.withCString { unlinkat(fd, $0, flags) }
      if rm != 0 && errno == EACCES && !madeWritable {
        // The containing folder is read-only: make it writable for its owner and retry once.
        madeWritable = true
        var dirStat = stat()
        if fstat(fd, &dirStat) == 0 { _ = fchmod(fd, mode_t(Status(dirStat).permissions | 0o700)) }
        rm = name.withCString { unlinkat(fd, $0, flags) }
      }
      if rm != 0 && errno != ENOENT { throw error(errno, "cannot delete", childPath) }
    }
  }
}
