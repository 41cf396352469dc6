import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// One read of a directory, sorted once, from which pages are cut.
///
/// Built for folders of a million entries: the names live in one byte buffer with an offset per
/// entry (no object per entry), the directory is read once, and sorting by name needs no stat at
/// all: only the entries of the pages asked for are stat'ed later. Sorting by date or size needs
/// every entry's metadata, which is read with `fstatat` relative to the open directory and reported
/// as progress.
final class DirectorySnapshot: @unchecked Sendable {
  /// Identity of the directory when it was read: a page token made from an older read is stale.
  struct Generation: Hashable {
    var device: UInt64
    var inode: UInt64
    var mtimeNanos: Int64
  }

  let path: ItemPath
  let generation: Generation
  let sort: ItemSort
  let includeHidden: Bool
  /// All names, back to back.
  private(set) var names: [UInt8] = []
  /// Start of each entry's name in `names`; one extra element marks the end.
  private(set) var starts: [UInt32] = [0]
  /// d_type of each entry (DT_DIR, DT_REG, …), resolved with lstat where the filesystem said DT_UNKNOWN.
  private(set) var types: [UInt8] = []
  /// Entry numbers in display order.
  private(set) var order: [UInt32] = []

  var count: Int { types.count }

  private init(path: ItemPath, generation: Generation, sort: ItemSort, includeHidden: Bool) {
    self.path = path
    self.generation = generation
    self.sort = sort
    self.includeHidden = includeHidden
  }

  static func generation(of path: ItemPath) throws(ProviderError) -> Generation {
    var st = stat()
    let rc = path.withCString { stat($0, &st) }
    if rc != 0 { throw PosixPath.error(errno, "cannot read", path) }
    guard (st.st_mode & S_IFMT) == S_IFDIR else {
      throw ProviderError(.invalidArgument, "not a folder: \(path.displayString)")
    }
    return Generation(
      device: UInt64(st.st_dev), inode: UInt64(st.st_ino),
      mtimeNanos: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
  }

  /// Reads and sorts a directory. Checks `isCancelled` between chunks.
  static func read(
    _ path: ItemPath, sort: ItemSort, includeHidden: Bool,
    progress: (EnumerationProgress) -> Void, isCancelled: () -> Bool
  ) throws(ProviderError) -> DirectorySnapshot {
    let gen = try generation(of: path)
    let snap = DirectorySnapshot(path: path, generation: gen, sort: sort, includeHidden: includeHidden)
    guard let dir = path.withCString({ opendir($0) }) else { throw PosixPath.error(errno, "cannot read", path) }
    defer { closedir(dir) }
    let dfd = dirfd(dir)
    var unknown: [UInt32] = []
    var n = 0
    snap.names.reserveCapacity(4096)
    while true {
      errno = 0
      guard let ent = readdir(dir) else {
        if errno != 0 { throw PosixPath.error(errno, "cannot read", path) }
        break
      }
      let dtype = ent.pointee.d_type
      let appended: Bool = withUnsafeBytes(of: &ent.pointee.d_name) { raw -> Bool in
        let p = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let len = strlen(raw.baseAddress!.assumingMemoryBound(to: CChar.self))
        if p[0] == 0x2E {
          if len == 1 || (len == 2 && p[1] == 0x2E) { return false }
          if !includeHidden { return false }
        }
        snap.names.append(contentsOf: UnsafeBufferPointer(start: p, count: len))
        return true
      }
      guard appended else { continue }
      snap.starts.append(UInt32(truncatingIfNeeded: snap.names.count))
      if dtype == UInt8(DT_UNKNOWN) { unknown.append(UInt32(snap.types.count)) }
      snap.types.append(dtype)
      n += 1
      if n % 65536 == 0 {
        progress(EnumerationProgress(phase: .reading, completed: n, total: nil))
        if isCancelled() { throw ProviderError.cancelledError }
      }
    }
    if snap.names.count > Int(UInt32.max) {
      throw ProviderError(.ioError, "folder too large to list: \(path.displayString)")
    }
    // Filesystems that don't fill d_type: resolve it with lstat, relative to the open directory.
    for e in unknown {
      var st = stat()
      if snap.withName(Int(e), { fstatat(dfd, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0 {
        snap.types[Int(e)] = Self.dtype(ofMode: st.st_mode)
      }
    }
    try snap.sortEntries(dirFD: dfd, progress: progress, isCancelled: isCancelled)
    return snap
  }

  static func dtype(ofMode mode: mode_t) -> UInt8 {
    switch mode & S_IFMT {
    case S_IFDIR: return UInt8(DT_DIR)
    case S_IFREG: return UInt8(DT_REG)
    case S_IFLNK: return UInt8(DT_LNK)
    case S_IFIFO: return UInt8(DT_FIFO)
    case S_IFSOCK: return UInt8(DT_SOCK)
    case S_IFCHR: return UInt8(DT_CHR)
    case S_IFBLK: return UInt8(DT_BLK)
    default: return UInt8(DT_UNKNOWN)
    }
  }

  /// The bytes of entry `e`'s name.
  func nameBytes(_ e: Int) -> [UInt8] {
    Array(names[Int(starts[e])..<Int(starts[e + 1])])
  }

  /// Calls `body` with entry `e`'s name as a NUL-terminated C string.
  func withName<R>(_ e: Int, _ body: (UnsafePointer<CChar>) -> R) -> R {
    let s = Int(starts[e])
    let len = Int(starts[e + 1]) - s
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: len + 1) { buf in
      names.withUnsafeBufferPointer { nb in
        for k in 0..<len { buf[k] = CChar(bitPattern: nb[s + k]) }
      }
      buf[len] = 0
      return body(buf.baseAddress!)
    }
  }

  func isDirectory(_ e: Int) -> Bool { types[e] == UInt8(DT_DIR) }

  // MARK: - Sorting

  private func sortEntries(
    dirFD: Int32, progress: (EnumerationProgress) -> Void, isCancelled: () -> Bool
  ) throws(ProviderError) {
    let n = count
    progress(EnumerationProgress(phase: .sorting, completed: 0, total: n))
    var order = [UInt32](unsafeUninitializedCapacity: n) { buf, c in
      for i in 0..<n { buf[i] = UInt32(i) }
      c = n
    }
    // Primary numbers by which entries are sorted before the name (0 for a name sort).
    var primary: [Int64]? = nil
    switch sort.key {
    case .name: break
    case .kind: primary = kindRanks()
    case .date, .size:
      var values = [Int64](repeating: 0, count: n)
      for e in 0..<n {
        var st = stat()
        if withName(e, { fstatat(dirFD, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0 {
          values[e] =
            sort.key == .size
            ? Int64(st.st_size)
            : Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        }
        if e % 8192 == 8191 {
          progress(EnumerationProgress(phase: .readingMetadata, completed: e + 1, total: n))
          if isCancelled() { throw ProviderError.cancelledError }
        }
      }
      progress(EnumerationProgress(phase: .readingMetadata, completed: n, total: n))
      primary = values
    }
    var keys = [UInt64](repeating: 0, count: n)
    names.withUnsafeBufferPointer { nb in
      starts.withUnsafeBufferPointer { sb in
        for e in 0..<n {
          let s = Int(sb[e])
          keys[e] = NameOrdering.prefixKey(nb.baseAddress! + s, Int(sb[e + 1]) - s)
        }
      }
    }
    let ascending = sort.ascending
    let foldersFirst = sort.foldersFirst
    names.withUnsafeBufferPointer { nb in
      starts.withUnsafeBufferPointer { sb in
        types.withUnsafeBufferPointer { tb in
          keys.withUnsafeBufferPointer { kb in
            let base = nb.baseAddress ?? NameOrdering.emptyPointer
            let dirType = UInt8(DT_DIR)
            // `less` in ascending terms; direction applies to everything but the folder grouping.
            func nameLess(_ a: Int, _ b: Int) -> Bool {
              let ka = kb[a]
              let kb2 = kb[b]
              if ka != kb2 { return ka < kb2 }
              let sa = Int(sb[a])
              let sb2 = Int(sb[b])
              return NameOrdering.compare(base + sa, Int(sb[a + 1]) - sa, base + sb2, Int(sb[b + 1]) - sb2) < 0
            }
            if let primary {
              primary.withUnsafeBufferPointer { pb in
                order.sort { x, y in
                  let a = Int(x)
                  let b = Int(y)
                  if foldersFirst {
                    let da = tb[a] == dirType
                    let db = tb[b] == dirType
                    if da != db { return da }
                  }
                  if pb[a] != pb[b] { return ascending ? pb[a] < pb[b] : pb[a] > pb[b] }
                  return ascending ? nameLess(a, b) : nameLess(b, a)
                }
              }
            } else {
              order.sort { x, y in
                let a = Int(x)
                let b = Int(y)
                if foldersFirst {
                  let da = tb[a] == dirType
                  let db = tb[b] == dirType
                  if da != db { return da }
                }
                return ascending ? nameLess(a, b) : nameLess(b, a)
              }
            }
          }
        }
      }
    }
    self.order = order
    progress(EnumerationProgress(phase: .sorting, completed: n, total: n))
  }

  /// Sort ranks for "kind": folders, then by the kind's description, as Finder sorts its Kind column.
  private func kindRanks() -> [Int64] {
    var rankOfDescription: [String: Int64] = [:]
    let descriptions = Set(ContentType.allKnownKindDescriptions + ["Folder", "Alias", "Document", "Text", "Special file"])
    for (i, d) in descriptions.sorted(by: { $0.lowercased() < $1.lowercased() }).enumerated() { rankOfDescription[d] = Int64(i) }
    var cacheByExtension: [[UInt8]: Int64] = [:]
    var ranks = [Int64](repeating: 0, count: count)
    for e in 0..<count {
      switch Int32(types[e]) {
      case Int32(DT_DIR): ranks[e] = rankOfDescription["Folder"]!
      case Int32(DT_LNK): ranks[e] = rankOfDescription["Alias"]!
      case Int32(DT_REG), Int32(DT_UNKNOWN):
        let s = Int(starts[e])
        let end = Int(starts[e + 1])
        var dot = end - 1
        while dot > s && names[dot] != 0x2E { dot -= 1 }
        let ext: [UInt8] = dot > s ? names[(dot + 1)..<end].map(NameOrdering.fold) : []
        if let r = cacheByExtension[ext] {
          ranks[e] = r
        } else {
          let t = ContentType.forExtension(String(decoding: ext, as: UTF8.self))
          let r = rankOfDescription[t.kindDescription] ?? rankOfDescription["Document"]!
          cacheByExtension[ext] = r
          ranks[e] = r
        }
      default: ranks[e] = rankOfDescription["Special file"]!
      }
    }
    return ranks
  }
}
