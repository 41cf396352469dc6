import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// The local filesystem as a provider.
///
/// - Identifiers are `device:inode` (hex), stable across renames and moves on one filesystem and
///   across a trip through the freedesktop Trash (a rename keeps the inode). The domain's root
///   folder is `.root`.
/// - Names and paths are bytes end to end; nothing is decoded to `String` on the way to a syscall.
/// - Huge folders: see ``DirectorySnapshot``. Only the entries of the pages asked for are stat'ed.
/// - Tags live in the `user.xdg.tags` xattr; favorites and last-used dates have no place on a
///   Linux filesystem, so the core keeps them in the index.
/// - Every blocking call runs on ``BlockingIO``'s queue, never on the cooperative pool.
public final class LocalProvider: Provider, @unchecked Sendable {
  public let domain: DomainIdentifier
  /// The folder this domain shows as its root ("/" for This Computer).
  public let rootPath: ItemPath
  /// The root's name in the UI (File Provider: the root's filename must not be empty).
  public let displayName: String
  let trash: FreedesktopTrash
  let tagStore: XattrTags

  private let lock = NSLock()
  /// Recently read directories, most recent last.
  private var snapshots: [(id: UUID, snapshot: DirectorySnapshot)] = []
  /// Where identifiers were last seen. Bounded; `item(for:pathHint:)` can find items again.
  private var knownPaths: [ItemIdentifier: ItemPath] = [:]
  /// Folders that were enumerated, kept apart so that a huge listing flushing `knownPaths`
  /// never loses the folder being listed.
  private var containerPaths: [ItemIdentifier: ItemPath] = [:]

  static let maxSnapshots = 4
  static let maxSnapshotEntries = 2_500_000
  static let maxKnownPaths = 32_768

  public init(
    domain: DomainIdentifier = .local, root: ItemPath = .root, displayName: String = "This Computer",
    trash: FreedesktopTrash = .current, tags: XattrTags = XattrTags()
  ) {
    self.domain = domain
    self.rootPath = root
    self.displayName = displayName
    self.trash = trash
    self.tagStore = tags
  }

  // MARK: - Identifier bookkeeping

  func remember(_ id: ItemIdentifier, at path: ItemPath) {
    lock.withLock {
      if knownPaths.count >= Self.maxKnownPaths { knownPaths.removeAll(keepingCapacity: true) }
      knownPaths[id] = path
    }
  }

  func rememberContainer(_ id: ItemIdentifier, at path: ItemPath) {
    lock.withLock {
      if containerPaths.count >= 1024 { containerPaths.removeAll(keepingCapacity: true) }
      containerPaths[id] = path
    }
  }

  func forget(_ id: ItemIdentifier) {
    lock.withLock {
      knownPaths.removeValue(forKey: id)
      containerPaths.removeValue(forKey: id)
    }
  }

  func knownPath(of id: ItemIdentifier) -> ItemPath? { lock.withLock { knownPaths[id] ?? containerPaths[id] } }

  func storeSnapshot(_ s: DirectorySnapshot) -> UUID {
    let id = UUID()
    lock.withLock {
      snapshots.append((id, s))
      var total = snapshots.reduce(0) { $0 + $1.snapshot.count }
      while snapshots.count > Self.maxSnapshots || (snapshots.count > 1 && total > Self.maxSnapshotEntries) {
        total -= snapshots.removeFirst().snapshot.count
      }
    }
    return id
  }

  func snapshot(_ id: UUID) -> DirectorySnapshot? {
    lock.withLock { snapshots.first(where: { $0.id == id })?.snapshot }
  }

  /// The newest snapshot of a folder: what a listing being shown was read from.
  func newestSnapshot(of path: ItemPath) -> DirectorySnapshot? {
    lock.withLock { snapshots.last(where: { $0.snapshot.path == path })?.snapshot }
  }

  /// Drops snapshots of a folder that changed, so the next first page reads it again.
  func invalidateSnapshots(of path: ItemPath) {
    lock.withLock { snapshots.removeAll { $0.snapshot.path == path } }
  }

  static func identifier(device: UInt64, inode: UInt64) -> ItemIdentifier {
    ItemIdentifier(String(device, radix: 16) + ":" + String(inode, radix: 16))
  }

  static func deviceAndInode(of id: ItemIdentifier) -> (UInt64, UInt64)? {
    let parts = id.rawValue.split(separator: ":")
    guard parts.count == 2, let d = UInt64(parts[0], radix: 16), let i = UInt64(parts[1], radix: 16) else { return nil }
    return (d, i)
  }

  /// True when `path` is the root or inside it.
  func isInsideRoot(_ path: ItemPath) -> Bool {
    if rootPath == .root { return path.isAbsolute }
    let r = rootPath.bytes
    let p = path.bytes
    return p == r || (p.count > r.count && p.starts(with: r) && p[r.count] == 0x2F)
  }

  /// Resolves an identifier to a path: the table, then the hint (verified by inode), then the
  /// hint's folder scanned for the inode (a rename in place outside Folio).
  func path(of id: ItemIdentifier, hint: ItemPath? = nil) throws(ProviderError) -> ItemPath {
    if id == .root { return rootPath }
    guard let (dev, ino) = Self.deviceAndInode(of: id) else { throw ProviderError.noSuchItem(id.rawValue) }
    func matches(_ p: ItemPath) -> Bool {
      var st = stat()
      return p.withCString { lstat($0, &st) } == 0 && UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }
    let candidates = [knownPath(of: id), hint].compactMap { $0 }
    for p in candidates where matches(p) { return p }
    // A folder without search permission on the way: the item may well be there.
    for p in candidates {
      var st = stat()
      if p.withCString({ lstat($0, &st) }) != 0 && errno == EACCES {
        throw ProviderError(
          .noPermission, "cannot reach \(p.displayString): a folder on its way lacks search (x) permission")
      }
    }
    for p in candidates {
      if let found = Self.findInode(ino, device: dev, in: p.parent) {
        remember(id, at: found)
        return found
      }
    }
    // Moved to a nearby folder (~/Documents/a.txt to ~/Docs/): the hint's grandparent's tree,
    // bounded, on the same filesystem.
    if let hint, let found = Self.findInodeNearby(ino, device: dev, around: hint) {
      remember(id, at: found)
      return found
    }
    throw ProviderError(.noSuchItem, "no such item: \(hint?.displayString ?? id.rawValue) (it was moved or deleted)")
  }

  /// At most this many directory entries are read looking for a moved item.
  static let nearbySearchBudget = 20_000

  /// Breadth first from the hint's grandparent (its siblings' folders first), three levels deep,
  /// skipping hidden folders, links and other filesystems, until the budget of entries is spent.
  static func findInodeNearby(_ ino: UInt64, device: UInt64, around hint: ItemPath) -> ItemPath? {
    let start = hint.parent.parent
    guard start != hint.parent else { return nil }
    var queue: [(ItemPath, Int)] = [(start, 0)]
    var budget = nearbySearchBudget
    var head = 0
    while head < queue.count, budget > 0 {
      let (folder, depth) = queue[head]
      head += 1
      guard let dir = folder.withCString({ opendir($0) }) else { continue }
      defer { closedir(dir) }
      while budget > 0, let ent = readdir(dir) {
        budget -= 1
        let name = withUnsafeBytes(of: &ent.pointee.d_name) { raw in
          Array(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: strlen(raw.baseAddress!.assumingMemoryBound(to: CChar.self))))
        }
        if name == [0x2E] || name == [0x2E, 0x2E] { continue }
        let path = folder.appending(ItemName(bytes: name))
        if UInt64(ent.pointee.d_ino) == ino {
          var st = stat()
          if path.withCString({ lstat($0, &st) }) == 0 && UInt64(st.st_dev) == device && UInt64(st.st_ino) == ino { return path }
        }
        guard ent.pointee.d_type == UInt8(DT_DIR), depth < 3, name.first != 0x2E, path != hint.parent else { continue }
        var st = stat()
        if path.withCString({ lstat($0, &st) }) == 0 && UInt64(st.st_dev) == device { queue.append((path, depth + 1)) }
      }
    }
    return nil
  }

  private static func findInode(_ ino: UInt64, device: UInt64, in folder: ItemPath) -> ItemPath? {
    guard let dir = folder.withCString({ opendir($0) }) else { return nil }
    defer { closedir(dir) }
    while let ent = readdir(dir) {
      guard UInt64(ent.pointee.d_ino) == ino else { continue }
      let name = withUnsafeBytes(of: &ent.pointee.d_name) { raw in
        Array(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: strlen(raw.baseAddress!.assumingMemoryBound(to: CChar.self))))
      }
      let p = folder.appending(ItemName(bytes: name))
      var st = stat()
      if p.withCString({ lstat($0, &st) }) == 0 && UInt64(st.st_dev) == device { return p }
    }
    return nil
  }
}
