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
    for p in candidates {
      if let found = Self.findInode(ino, device: dev, in: p.parent) {
        remember(id, at: found)
        return found
      }
    }
    throw ProviderError(.noSuchItem, "no such item: \(hint?.displayString ?? id.rawValue) (it was moved or deleted)")
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
