import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

extension LocalProvider {
  public func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item {
    if identifier == .trash { return trashContainerItem() }
    return try await BlockingIO.run { _ throws(ProviderError) in
      let path = try self.path(of: identifier, hint: pathHint)
      if let entry = try? self.trashEntry(for: identifier) { return self.makeTrashedItem(entry) }
      let item = try self.makeItem(at: path)
      // Asked for by identifier, a folder is about to be listed (a favorite, a Recents folder):
      // kept where a huge listing flushing the table of files cannot drop it.
      if item.isFolder { self.rememberContainer(identifier, at: path) }
      return item
    }
  }

  public func item(at path: ItemPath) async throws(ProviderError) -> Item {
    guard isInsideRoot(path) else {
      throw ProviderError(.noSuchItem, "\(path.displayString) is not inside \(rootPath.displayString)")
    }
    return try await BlockingIO.run { _ throws(ProviderError) in try self.makeItem(at: path) }
  }

  public func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    if request.container == .trash { return try await enumerateTrash(request) }
    if request.container == .workingSet {
      throw ProviderError(.featureUnsupported, "the local provider's working set is kept by the index")
    }
    let pageSize = max(1, min(request.suggestedPageSize, 20_000))
    return try await BlockingIO.run { flag throws(ProviderError) in
      let folder = try self.path(of: request.container)
      self.rememberContainer(request.container, at: folder)
      let snap: DirectorySnapshot
      let snapID: UUID
      var offset = 0
      if let page {
        let token = try LocalPageToken(page)
        offset = token.offset
        if let s = self.snapshot(token.snapshot), s.generation == token.generation {
          snap = s
          snapID = token.snapshot
        } else {
          // The snapshot was dropped: rebuild it if the folder is unchanged, else start over.
          let current = try DirectorySnapshot.generation(of: folder)
          guard current == token.generation else {
            throw ProviderError(.pageExpired, "\(folder.displayString) changed while it was being listed")
          }
          snap = try DirectorySnapshot.read(
            folder, sort: request.sort, includeHidden: request.includeHidden, progress: progress,
            isCancelled: { flag.isCancelled })
          snapID = self.storeSnapshot(snap)
        }
      } else {
        snap = try DirectorySnapshot.read(
          folder, sort: request.sort, includeHidden: request.includeHidden, progress: progress,
          isCancelled: { flag.isCancelled })
        snapID = self.storeSnapshot(snap)
      }
      // A token made for an offset (a jump) may point past a folder that shrank: an empty last page.
      let start = min(offset, snap.count)
      let items = try self.items(of: snap, range: start..<min(start + pageSize, snap.count), container: request.container)
      let end = start + pageSize
      let next: Page? =
        end < snap.count ? try LocalPageToken(snapshot: snapID, generation: snap.generation, offset: end).encoded() : nil
      return ItemPage(items: items, nextPage: next, totalCount: snap.count)
    }
  }

  /// Any page of a listing, from any token of it: the token names the snapshot and the folder's
  /// generation, and the offset is just a number, so a jump to the end of a million entries needs
  /// the last page only (the snapshot sorts just the range asked for).
  public func pageToken(at offset: Int, from known: Page, in request: EnumerationRequest) -> Page? {
    guard offset >= 0, var token = try? LocalPageToken(known) else { return nil }
    token.offset = offset
    return try? token.encoded()
  }

  /// Stats the entries of one page, relative to the open directory. Entries that vanished since
  /// the directory was read are left out; an entry that is there but cannot be stat'ed (a folder
  /// with read but no search permission: `ls` lists its names, `ls -l` prints `?` for the rest)
  /// is listed by name and kind with the reason in `metadataError`, never dropped in silence.
  func items(of snap: DirectorySnapshot, range: Range<Int>, container: ItemIdentifier) throws(ProviderError) -> [Item] {
    guard !range.isEmpty else { return [] }
    let dfd = snap.path.withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    if dfd < 0 { throw PosixPath.error(errno, "cannot read", snap.path) }
    defer { close(dfd) }
    var dst = stat()
    fstat(dfd, &dst)
    let writable = Self.folderIsWritable(dst)
    var out: [Item] = []
    out.reserveCapacity(range.count)
    var unreadable: [(index: Int, name: ItemName, type: UInt8, errno: Int32)] = []
    for (name, type) in snap.entries(in: range) {
      var st = stat()
      guard name.withCString({ fstatat(dfd, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0 else {
        let e = errno
        if e != ENOENT { unreadable.append((out.count, name, type, e)) }
        continue
      }
      out.append(makeItem(st: st, name: name, path: snap.path.appending(name), parent: container, parentWritable: writable))
    }
    guard !unreadable.isEmpty else { return out }
    // Their identifiers: the folder's device and readdir's inode number (what stat would say).
    let inodes = Self.inodes(of: Set(unreadable.map(\.name.bytes)), in: snap.path)
    for entry in unreadable.reversed() {
      let path = snap.path.appending(entry.name)
      let id = Self.identifier(device: UInt64(dst.st_dev), inode: inodes[entry.name.bytes] ?? 0)
      remember(id, at: path)
      out.insert(
        Item(
          identifier: id, parentIdentifier: container, filename: entry.name, path: path,
          contentType: Self.contentType(ofDirectoryEntry: entry.type, name: entry.name), capabilities: [],
          metadataError: Self.detailsError(entry.errno, path)),
        at: entry.index)
    }
    return out
  }

  /// Why an entry the folder lists cannot be stat'ed. EACCES here can only be the folder's: a
  /// stat needs search (x) permission on the folder, none on the entry.
  static func detailsError(_ code: Int32, _ path: ItemPath) -> ProviderError {
    let error = PosixPath.error(code, "cannot read the details of", path)
    guard code == EACCES else { return error }
    return ProviderError(
      error.code, error.message + " (its folder can be read but not searched: it lacks x permission)", underlying: code)
  }

  /// The kind readdir's `d_type` tells, for an entry that cannot be stat'ed.
  static func contentType(ofDirectoryEntry type: UInt8, name: ItemName) -> ContentType {
    switch Int32(type) {
    case Int32(DT_DIR): return .folder
    case Int32(DT_LNK): return .symlink
    case Int32(DT_REG), Int32(DT_UNKNOWN): return ContentType.forExtension(name.pathExtension)
    default: return .special
    }
  }

  /// The inode numbers readdir gives for `names` in `folder` (a second read of it, made only when
  /// entries could not be stat'ed).
  static func inodes(of names: Set<[UInt8]>, in folder: ItemPath) -> [[UInt8]: UInt64] {
    // By path: a lookup of "." inside the folder would need the search permission it lacks.
    guard let dir = folder.withCString({ opendir($0) }) else { return [:] }
    defer { closedir(dir) }
    var found: [[UInt8]: UInt64] = [:]
    while found.count < names.count, let ent = readdir(dir) {
      let name = withUnsafeBytes(of: &ent.pointee.d_name) { raw in
        Array(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: strlen(raw.baseAddress!.assumingMemoryBound(to: CChar.self))))
      }
      if names.contains(name) { found[name] = UInt64(ent.pointee.d_ino) }
    }
    return found
  }

  public func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor {
    if container == .trash || container == .workingSet { return try SyncAnchor(Data("static".utf8)) }
    return try await BlockingIO.run { _ throws(ProviderError) in
      let g = try DirectorySnapshot.generation(of: try self.path(of: container))
      return try SyncAnchor(Data("\(g.device):\(g.inode):\(g.mtimeNanos)".utf8))
    }
  }

  /// A folder on a local disk has no change history: an unchanged folder has no changes, and a
  /// changed one answers `syncAnchorExpired` so the reader re-enumerates it.
  public func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch {
    let current = try await currentSyncAnchor(for: container)
    guard current == anchor else {
      throw ProviderError(.syncAnchorExpired, "the folder changed; it must be listed again")
    }
    return ChangeBatch(updatedItems: [], deletedIdentifiers: [], anchor: current, moreComing: false)
  }

  /// Signals from inotify. The watch is added on the watcher's own thread — adding it walks every
  /// child dentry in the kernel, ~68 ms at a million entries — so a reader can ask for it after
  /// the first page without waiting. A change between the read of the folder's newest snapshot
  /// and the watch taking effect shows in the folder's mtime, and is signalled at once.
  public func changeSignals(for container: ItemIdentifier) -> AsyncStream<Void> {
    guard let path = try? self.path(of: container) else { return AsyncStream { $0.finish() } }
    // What the watch must cover from: the listing being shown, else now.
    let takenAt: Int64
    let baseline: DirectorySnapshot.Generation?
    if let snap = newestSnapshot(of: path) {
      (baseline, takenAt) = (snap.generation, snap.generationTakenAt)
    } else {
      takenAt = DirectorySnapshot.realtimeNanos()
      baseline = try? DirectorySnapshot.generation(of: path)
    }
    return InotifyWatcher.signals(
      for: path,
      changedSinceWatchStarted: {
        guard let baseline else { return true }
        return DirectorySnapshot.mayHaveChanged(path, since: baseline, takenAt: takenAt)
      },
      onChange: { [weak self] in self?.invalidateSnapshots(of: path) })
  }
}
