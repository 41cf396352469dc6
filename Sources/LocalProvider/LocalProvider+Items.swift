import CFolioSystem
import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// Who the process is, for computing capabilities from mode bits without an access() per item.
struct ProcessCredentials: Sendable {
  let uid: uid_t
  let groups: Set<gid_t>

  static let current: ProcessCredentials = {
    var gs = Set<gid_t>([getegid()])
    let n = getgroups(0, nil)
    if n > 0 {
      var buf = [gid_t](repeating: 0, count: Int(n))
      let m = getgroups(n, &buf)
      if m > 0 { gs.formUnion(buf[0..<Int(m)]) }
    }
    return ProcessCredentials(uid: geteuid(), groups: gs)
  }()

  /// Whether the permission bit (4 read, 2 write, 1 execute) is granted by `st`'s mode.
  func allows(_ st: stat, _ bit: mode_t) -> Bool {
    if uid == 0 { return bit != 1 || (st.st_mode & 0o111) != 0 || (st.st_mode & S_IFMT) == S_IFDIR }
    if st.st_uid == uid { return (st.st_mode >> 6) & bit != 0 }
    if groups.contains(st.st_gid) { return (st.st_mode >> 3) & bit != 0 }
    return st.st_mode & bit != 0
  }
}

extension LocalProvider {
  /// lstat of a path, as a ProviderError on failure.
  static func lstatItem(_ path: ItemPath) throws(ProviderError) -> stat {
    var st = stat()
    if path.withCString({ lstat($0, &st) }) != 0 { throw PosixPath.error(errno, "cannot read", path) }
    return st
  }

  /// Whether items may be added to or removed from the folder at `path`.
  static func folderIsWritable(_ st: stat) -> Bool {
    ProcessCredentials.current.allows(st, 2) && ProcessCredentials.current.allows(st, 1)
  }

  /// The item at a path; its parent's identifier is looked up unless given.
  func makeItem(at path: ItemPath, parent: ItemIdentifier? = nil) throws(ProviderError) -> Item {
    let st = try Self.lstatItem(path)
    let isRoot = path == rootPath
    var parentID = parent ?? .root
    var parentWritable = false
    if !isRoot {
      let pp = path.parent
      if let pst = try? Self.lstatItem(pp) {
        parentWritable = Self.folderIsWritable(pst)
        if parent == nil {
          parentID = pp == rootPath ? .root : Self.identifier(device: UInt64(pst.st_dev), inode: UInt64(pst.st_ino))
        }
      }
    }
    let name: ItemName =
      isRoot ? ItemName(rootPath.lastComponent.map { $0.displayString } ?? displayName) : path.lastComponent ?? ItemName(displayName)
    var birth: Date? = nil
    var sec: Int64 = 0
    var nsec: Int64 = 0
    if path.withCString({ folio_birthtime(AT_FDCWD, $0, &sec, &nsec) }) == 0 {
      birth = Date(timeIntervalSince1970: Double(sec) + Double(nsec) / 1e9)
    }
    return makeItem(
      st: st, name: name, path: path, parent: parentID, parentWritable: parentWritable, isRoot: isRoot,
      creationDate: birth)
  }

  /// Builds an item from stat data. Reads the symlink target and the tags xattr.
  func makeItem(
    st: stat, name: ItemName, path: ItemPath, parent: ItemIdentifier, parentWritable: Bool, isRoot: Bool = false,
    creationDate: Date? = nil
  ) -> Item {
    let id = isRoot ? ItemIdentifier.root : Self.identifier(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    let fmt = st.st_mode & S_IFMT
    let type: ContentType
    var target: ItemPath? = nil
    switch fmt {
    case S_IFDIR: type = .folder
    case S_IFLNK:
      type = .symlink
      var buf = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
      let n = path.withCString { p in buf.withUnsafeMutableBufferPointer { readlink(p, UnsafeMutableRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), $0.count - 1) } }
      if n >= 0 { target = ItemPath(bytes: Array(buf[0..<n])) }
    case S_IFREG:
      let ext = name.pathExtension
      let t = ContentType.forExtension(ext)
      type = (t == .data && ext.isEmpty && st.st_mode & 0o111 != 0) ? .executable : t
    default: type = .special
    }
    let creds = ProcessCredentials.current
    var caps: ItemCapabilities = []
    if creds.allows(st, 4) && (fmt != S_IFDIR || creds.allows(st, 1)) { caps.insert(.reading) }
    if creds.allows(st, 2) && (fmt != S_IFDIR || creds.allows(st, 1)) { caps.insert(.writing) }
    if parentWritable && !isRoot { caps.formUnion([.renaming, .reparenting, .trashing, .deleting]) }
    let mtime = Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
    let mns = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
    let cns = Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec)
    let version = (try? ItemVersion(content: "\(mns):\(st.st_size)", metadata: "\(cns)")) ?? .empty
    let tags = (try? tagStore.read(at: path)) ?? []
    if !isRoot { remember(id, at: path) }
    return Item(
      identifier: id, parentIdentifier: parent, filename: name, path: path, contentType: type, capabilities: caps,
      version: version, documentSize: fmt == S_IFDIR ? nil : Int64(st.st_size), creationDate: creationDate,
      contentModificationDate: mtime, tags: tags, symlinkTargetPath: target,
      posixPermissions: UInt32(st.st_mode & 0o7777))
  }
}
