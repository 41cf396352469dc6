import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

extension LocalProvider {
  public func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    let name = try ItemName.validated(template.filename.bytes)
    return try await BlockingIO.run { _ throws(ProviderError) in
      let parent = try self.path(of: template.parentIdentifier)
      let target = parent.appending(name)
      if template.contentType == .folder {
        if target.withCString({ mkdir($0, 0o777) }) != 0 {
          let e = errno
          if e == EEXIST, options.contains(.mayAlreadyExist), let existing = try? self.makeItem(at: target), existing.isFolder {
            return existing
          }
          throw self.collisionAware(e, "cannot create the folder", target)
        }
      } else {
        let fd = target.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666) }
        if fd < 0 { throw self.collisionAware(errno, "cannot create", target) }
        defer { close(fd) }
        if let contents {
          let source = ItemPath(contents.path)
          do throws(ProviderError) {
            try Self.copyData(from: source, toFD: fd, target: target, progress: progress, cancelled: nil)
          } catch {
            _ = target.withCString { unlink($0) }
            throw error
          }
        }
      }
      if fields.contains(.tagData), !template.tags.isEmpty { try? self.tagStore.write(template.tags, at: target) }
      self.invalidateSnapshots(of: parent)
      return try self.makeItem(at: target, parent: template.parentIdentifier)
    }
  }

  public func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    guard let id = template.identifier else { throw ProviderError(.invalidArgument, "modify needs an item identifier") }
    if changedFields.contains(.parentItemIdentifier) && template.parentIdentifier == .trash {
      return try await trashItem(id)
    }
    return try await BlockingIO.run { _ throws(ProviderError) in
      var path = try self.path(of: id)
      guard path != self.rootPath else { throw ProviderError(.noPermission, "the root of a location cannot be changed") }
      if changedFields.contains(.filename) || changedFields.contains(.parentItemIdentifier) {
        let name = try ItemName.validated(template.filename.bytes)
        let parent =
          changedFields.contains(.parentItemIdentifier) ? try self.path(of: template.parentIdentifier) : path.parent
        let target = parent.appending(name)
        if target != path {
          try self.move(from: path, to: target)
          self.invalidateSnapshots(of: path.parent)
          self.invalidateSnapshots(of: parent)
          path = target
        }
      }
      if changedFields.contains(.contents), let contents {
        let current = try self.makeItem(at: path)
        if current.version.content != baseVersion.content {
          // Someone changed the file since the caller's base: keep both, never overwrite silently.
          let copy = try self.conflictCopyPath(for: path)
          try self.writeReplacing(copy, from: ItemPath(contents.path))
          throw ProviderError(
            .cannotSynchronize,
            "\(path.displayString) changed since it was read; your version was saved as \(copy.lastComponent?.displayString ?? "a copy")")
        }
        try self.writeReplacing(path, from: ItemPath(contents.path), progress: progress)
      }
      if changedFields.contains(.contentModificationDate), let d = template.contentModificationDate {
        var times = [Glibc.timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), Self.makeTimespec(d)]  // UTIME_OMIT
        if path.withCString({ utimensat(AT_FDCWD, $0, &times, AT_SYMLINK_NOFOLLOW) }) != 0 {
          throw PosixPath.error(errno, "cannot set the date of", path)
        }
      }
      if changedFields.contains(.tagData) { try self.tagStore.write(template.tags, at: path) }
      // Favorite rank and last-used date have no place on a Linux filesystem: the core keeps them.
      return try self.makeItem(at: path)
    }
  }

  public func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    try await BlockingIO.run { _ throws(ProviderError) in
      if let entry = try? self.trashEntry(for: identifier) {
        try self.trash.deletePermanently(entry)
        self.forget(identifier)
        return
      }
      let path: ItemPath
      do throws(ProviderError) { path = try self.path(of: identifier) } catch {
        if error.code == .noSuchItem { return }
        throw error
      }
      guard path != self.rootPath else { throw ProviderError(.noPermission, "the root of a location cannot be deleted") }
      let st = try Self.lstatItem(path)
      if (st.st_mode & S_IFMT) == S_IFDIR && !options.contains(.recursive) {
        if path.withCString({ rmdir($0) }) != 0 { throw PosixPath.error(errno, "cannot delete", path) }
      } else {
        try PosixPath.removeTree(path)
      }
      self.forget(identifier)
      self.invalidateSnapshots(of: path.parent)
    }
  }

  public func copyItem(_ identifier: ItemIdentifier, to parent: ItemIdentifier, name: ItemName?) async throws(ProviderError) -> Item {
    try await BlockingIO.run { flag throws(ProviderError) in
      let source = try self.path(of: identifier)
      let folder = try self.path(of: parent)
      let target: ItemPath
      if let name {
        target = folder.appending(try ItemName.validated(name.bytes))
      } else {
        target = self.freeCopyName(for: source, in: folder)
      }
      if PosixPath.isSameOrDescendant(folder, of: source) {
        throw ProviderError(.invalidArgument, "cannot copy \(source.displayString) into itself")
      }
      do throws(ProviderError) {
        try Self.copyTree(from: source, to: target, cancelled: flag)
      } catch {
        if error.code != .filenameCollision { try? PosixPath.removeTree(target) }
        throw error
      }
      self.invalidateSnapshots(of: folder)
      return try self.makeItem(at: target, parent: parent)
    }
  }

  public func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    try await BlockingIO.run { flag throws(ProviderError) in
      let path = try self.path(of: identifier)
      let item = try self.makeItem(at: path)
      if let version, version.content != item.version.content {
        throw ProviderError(.versionNoLongerAvailable, "\(path.displayString) changed since that version")
      }
      let target = ItemPath(destination.path)
      let fd = target.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600) }
      if fd < 0 { throw PosixPath.error(errno, "cannot create", target) }
      defer { close(fd) }
      try Self.copyData(from: path, toFD: fd, target: target, progress: progress, cancelled: flag)
      return item
    }
  }

  // MARK: - Helpers

  func collisionAware(_ code: Int32, _ operation: String, _ target: ItemPath) -> ProviderError {
    guard code == EEXIST else { return PosixPath.error(code, operation, target) }
    let existing = try? makeItem(at: target)
    return ProviderError(
      .filenameCollision,
      "an item named '\(target.lastComponent?.displayString ?? "")' already exists in \(target.parent.displayString)",
      existingItem: existing?.identifier, underlying: code)
  }

  /// Renames without ever replacing; across filesystems, copies then removes the source.
  func move(from source: ItemPath, to target: ItemPath) throws(ProviderError) {
    if PosixPath.isSameOrDescendant(target, of: source) {
      throw ProviderError(.invalidArgument, "cannot move \(source.displayString) into itself")
    }
    let e = PosixPath.renameNoReplace(source, target)
    if e == 0 { return }
    if e != EXDEV { throw collisionAware(e, "cannot move \(source.displayString) to", target) }
    do throws(ProviderError) {
      try Self.copyTree(from: source, to: target, cancelled: nil)
    } catch {
      if error.code != .filenameCollision { try? PosixPath.removeTree(target) }
      throw error
    }
    try PosixPath.removeTree(source)
  }

  /// "name copy.ext", "name copy 2.ext", … as Finder names duplicates.
  func freeCopyName(for source: ItemPath, in folder: ItemPath) -> ItemPath {
    let name = source.lastComponent?.bytes ?? []
    var stem = name
    var ext: [UInt8] = []
    if let dot = name.lastIndex(of: 0x2E), dot > 0 {
      stem = Array(name[..<dot])
      ext = Array(name[dot...])
    }
    var candidate = folder.appending(ItemName(bytes: name))
    var n = 1
    while PosixPath.statOrNil(candidate) != nil || (try? PosixPath.lstatIfExists(candidate)) != nil {
      let suffix = Array((n == 1 ? " copy" : " copy \(n)").utf8)
      candidate = folder.appending(ItemName(bytes: stem + suffix + ext))
      n += 1
    }
    return candidate
  }

  func conflictCopyPath(for path: ItemPath) throws(ProviderError) -> ItemPath {
    let f = DateFormatter()
    f.dateFormat = "yyyy-MM-dd HHmmss"
    let name = path.lastComponent?.bytes ?? []
    var stem = name
    var ext: [UInt8] = []
    if let dot = name.lastIndex(of: 0x2E), dot > 0 {
      stem = Array(name[..<dot])
      ext = Array(name[dot...])
    }
    return path.parent.appending(ItemName(bytes: stem + Array(" (conflict \(f.string(from: Date())))".utf8) + ext))
  }

  /// Replaces a file's content atomically: a temporary file beside it, fsync, rename over it.
  func writeReplacing(
    _ path: ItemPath, from source: ItemPath, progress: (@Sendable (TransferProgress) -> Void)? = nil
  ) throws(ProviderError) {
    let tmp = path.parent.appending(ItemName(".folio-tmp-\(UUID().uuidString)"))
    let fd = tmp.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666) }
    if fd < 0 { throw PosixPath.error(errno, "cannot write", tmp) }
    do throws(ProviderError) {
      try Self.copyData(from: source, toFD: fd, target: tmp, progress: progress, cancelled: nil)
      if fsync(fd) != 0 { throw PosixPath.error(errno, "cannot write", tmp) }
      close(fd)
    } catch {
      close(fd)
      _ = tmp.withCString { unlink($0) }
      throw error
    }
    if let st = PosixPath.statOrNil(path) { _ = tmp.withCString { chmod($0, mode_t(st.permissions)) } }
    let rc = tmp.withCString { t in path.withCString { p in rename(t, p) } }
    if rc != 0 {
      let e = errno
      _ = tmp.withCString { unlink($0) }
      throw PosixPath.error(e, "cannot replace", path)
    }
    PosixPath.syncDirectory(path.parent)
  }

  static func makeTimespec(_ d: Date) -> Glibc.timespec {
    let t = d.timeIntervalSince1970
    let s = t.rounded(.down)
    return Glibc.timespec(tv_sec: Int(s), tv_nsec: Int((t - s) * 1e9))
  }

  /// Copies a file's bytes into an open descriptor, reporting progress and honouring cancellation.
  static func copyData(
    from source: ItemPath, toFD out: Int32, target: ItemPath, progress: (@Sendable (TransferProgress) -> Void)?,
    cancelled: CancellationFlag?
  ) throws(ProviderError) {
    let fd = source.withCString { open($0, O_RDONLY | O_CLOEXEC) }
    if fd < 0 { throw PosixPath.error(errno, "cannot read", source) }
    defer { close(fd) }
    var st = stat()
    fstat(fd, &st)
    if (st.st_mode & S_IFMT) == S_IFDIR { throw ProviderError(.invalidArgument, "\(source.displayString) is a folder") }
    let total = Int64(st.st_size)
    var done: Int64 = 0
    var buf = [UInt8](repeating: 0, count: 1 << 20)
    while true {
      if cancelled?.isCancelled == true { throw ProviderError.cancelledError }
      let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        throw PosixPath.error(errno, "cannot read", source)
      }
      if n == 0 { break }
      let w = buf.withUnsafeBytes { PosixPath.writeAll(out, Array($0[0..<n])) }
      if w != 0 { throw PosixPath.error(w, "cannot write", target) }
      done += Int64(n)
      progress?(TransferProgress(completedBytes: done, totalBytes: total))
    }
    progress?(TransferProgress(completedBytes: done, totalBytes: total))
  }

  /// A copy keeps its original's tags (`user.xdg.tags`), as Finder's and `cp -a` do; it lost them.
  /// Best effort: a target filesystem without user attributes gets the bytes without the tags.
  static func copyTags(from source: ItemPath, to target: ItemPath) {
    let xattrs = XattrTags()
    guard let tags = try? xattrs.read(at: source), !tags.isEmpty else { return }
    try? xattrs.write(tags, at: target)
  }

  /// Copies a file, symlink or folder tree (with the tags). Never follows symlinks; never replaces.
  static func copyTree(from source: ItemPath, to target: ItemPath, cancelled: CancellationFlag?) throws(ProviderError) {
    if cancelled?.isCancelled == true { throw ProviderError.cancelledError }
    let st = try lstatItem(source)
    switch st.st_mode & S_IFMT {
    case S_IFDIR:
      if target.withCString({ mkdir($0, mode_t(st.st_mode & 0o7777) | 0o700) }) != 0 {
        let e = errno
        if e == EEXIST {
          throw ProviderError(
            .filenameCollision, "an item named '\(target.lastComponent?.displayString ?? "")' already exists in \(target.parent.displayString)")
        }
        throw PosixPath.error(e, "cannot create the folder", target)
      }
      for name in try PosixPath.contentsOfDirectory(source) {
        try copyTree(from: source.appending(name), to: target.appending(name), cancelled: cancelled)
      }
      copyTags(from: source, to: target)
      _ = target.withCString { chmod($0, mode_t(st.st_mode & 0o7777)) }
    case S_IFLNK:
      var buf = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
      let n = source.withCString { p in buf.withUnsafeMutableBufferPointer { readlink(p, UnsafeMutableRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), $0.count - 1) } }
      if n < 0 { throw PosixPath.error(errno, "cannot read the link", source) }
      let dest = ItemPath(bytes: Array(buf[0..<n]))
      if dest.withCString({ d in target.withCString { symlink(d, $0) } }) != 0 {
        throw PosixPath.error(errno, "cannot create the link", target)
      }
    case S_IFREG:
      let fd = target.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(st.st_mode & 0o7777)) }
      if fd < 0 {
        let e = errno
        if e == EEXIST {
          throw ProviderError(
            .filenameCollision, "an item named '\(target.lastComponent?.displayString ?? "")' already exists in \(target.parent.displayString)")
        }
        throw PosixPath.error(e, "cannot create", target)
      }
      defer { close(fd) }
      try copyData(from: source, toFD: fd, target: target, progress: nil, cancelled: cancelled)
      copyTags(from: source, to: target)
      var times = [st.st_atim, st.st_mtim]
      futimens(fd, &times)
    default:
      throw ProviderError(.featureUnsupported, "cannot copy the special file \(source.displayString)")
    }
  }
}
