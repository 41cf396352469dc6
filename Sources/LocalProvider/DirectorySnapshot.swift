import Foundation
import ProviderAPI

#if canImport(Glibc)
  import Glibc
#endif

/// One read of a directory, from which sorted pages are cut.
///
/// Built for folders of a million entries, within a small memory budget:
/// - the directory is read once; each entry is stored as `[d_type][length][name bytes]` in one
///   buffer, plus one `UInt32` offset — no object, no String, no stat per entry;
/// - sorting by name needs no stat at all, and is *incremental*: a quicksort that only partitions
///   the chunks overlapping the pages asked for (Paredes & Navarro's incremental quicksort,
///   generalised from a sorted prefix to any range), so the first page — or the last one, for a
///   jump to the end — costs O(n) comparisons, not O(n log n), and later pages finish the work;
/// - sorting by date or size reads every entry's metadata with `fstatat` relative to the open
///   directory, reporting progress; sorting by kind ranks extensions.
/// Only the entries of a page are stat'ed, when the page is cut.
final class DirectorySnapshot: @unchecked Sendable {
  /// Identity of the directory when it was read: a page token made from an older read is stale.
  struct Generation: Hashable {
    var device: UInt64
    var inode: UInt64
    var mtimeNanos: Int64
  }

  let path: ItemPath
  let generation: Generation
  /// When `generation` was taken (CLOCK_REALTIME, ns): see `mayHaveChanged(_:since:takenAt:)`.
  let generationTakenAt: Int64
  let sort: ItemSort
  let includeHidden: Bool

  /// Entries back to back: `[d_type][length][name]`.
  private var names: [UInt8] = []
  /// Each entry's offset in `names`; permuted in place into display order as sorting proceeds.
  private var order: [UInt32] = []
  /// Per-entry sort values for date, size and kind sorts, permuted together with `order`.
  private var primary: [Int64] = []
  /// The chunks of `order` not sorted yet, disjoint and ascending (incremental quicksort). Every
  /// entry outside them is in its final place; every entry inside one belongs somewhere in it.
  private var unsorted: [Range<Int>] = []
  private let lock = NSLock()

  var count: Int { order.count }

  private init(path: ItemPath, generation: Generation, takenAt: Int64, sort: ItemSort, includeHidden: Bool) {
    self.path = path
    self.generation = generation
    self.generationTakenAt = takenAt
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

  /// Whether the folder may have changed since its generation was taken at `takenAt`: its mtime
  /// moved, or the mtime it had then was so recent that a change in the same clock tick would have
  /// left it as it was (filesystems stamp times from the coarse clock: git's "racy" entries).
  static func mayHaveChanged(_ path: ItemPath, since generation: Generation, takenAt: Int64) -> Bool {
    guard let now = try? Self.generation(of: path), now == generation else { return true }
    var res = timespec()
    let tick = clock_getres(CLOCK_REALTIME_COARSE, &res) == 0 ? Int64(res.tv_sec) * 1_000_000_000 + Int64(res.tv_nsec) : 10_000_000
    return generation.mtimeNanos > takenAt - 2 * max(tick, 1_000_000)
  }

  static func realtimeNanos() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_REALTIME, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
  }

  /// Reads a directory and prepares its sort. Checks `isCancelled` between chunks.
  static func read(
    _ path: ItemPath, sort: ItemSort, includeHidden: Bool,
    progress: (EnumerationProgress) -> Void, isCancelled: () -> Bool
  ) throws(ProviderError) -> DirectorySnapshot {
    let takenAt = realtimeNanos()
    let gen = try generation(of: path)
    let snap = DirectorySnapshot(path: path, generation: gen, takenAt: takenAt, sort: sort, includeHidden: includeHidden)
    guard let dir = path.withCString({ opendir($0) }) else { throw PosixPath.error(errno, "cannot read", path) }
    defer { closedir(dir) }
    let dfd = dirfd(dir)
    // Reserving by the directory's size costs no memory until touched (large allocations are
    // mmap'ed lazily) and avoids copying the buffer as it grows.
    var dst = stat()
    if fstat(dfd, &dst) == 0 && dst.st_size > 0 {
      snap.names.reserveCapacity(Int(min(dst.st_size, 1 << 31)))
      snap.order.reserveCapacity(Int(min(dst.st_size / 24, 1 << 26)))
    }
    var unknown: [UInt32] = []
    var n = 0
    while true {
      errno = 0
      guard let ent = readdir(dir) else {
        if errno != 0 { throw PosixPath.error(errno, "cannot read", path) }
        break
      }
      let dtype = ent.pointee.d_type
      let offset = snap.names.count
      let appended: Bool = withUnsafeBytes(of: &ent.pointee.d_name) { raw -> Bool in
        let p = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let len = strlen(raw.baseAddress!.assumingMemoryBound(to: CChar.self))
        if p[0] == 0x2E {
          if len == 1 || (len == 2 && p[1] == 0x2E) { return false }
          if !includeHidden { return false }
        }
        snap.names.append(dtype)
        snap.names.append(UInt8(truncatingIfNeeded: min(len, 255)))
        snap.names.append(contentsOf: UnsafeBufferPointer(start: p, count: min(len, 255)))
        return true
      }
      guard appended else { continue }
      if offset > Int(UInt32.max) { throw ProviderError(.ioError, "folder too large to list: \(path.displayString)") }
      if dtype == UInt8(DT_UNKNOWN) { unknown.append(UInt32(offset)) }
      snap.order.append(UInt32(offset))
      n += 1
      if n % 65536 == 0 {
        progress(EnumerationProgress(phase: .reading, completed: n, total: nil))
        if isCancelled() { throw ProviderError.cancelledError }
      }
    }
    // Filesystems that don't fill d_type: resolve it with lstat, relative to the open directory.
    for off in unknown {
      var st = stat()
      if snap.withName(at: Int(off), { fstatat(dfd, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0 {
        snap.names[Int(off)] = Self.dtype(ofMode: st.st_mode)
      }
    }
    try snap.prepareSort(dirFD: dfd, progress: progress, isCancelled: isCancelled)
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

  // MARK: - Entries

  private func nameBytes(at off: Int) -> [UInt8] {
    let len = Int(names[off + 1])
    return Array(names[(off + 2)..<(off + 2 + len)])
  }

  private func withName<R>(at off: Int, _ body: (UnsafePointer<CChar>) -> R) -> R {
    let len = Int(names[off + 1])
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: len + 1) { buf in
      names.withUnsafeBufferPointer { nb in
        for k in 0..<len { buf[k] = CChar(bitPattern: nb[off + 2 + k]) }
      }
      buf[len] = 0
      return body(buf.baseAddress!)
    }
  }

  /// The names of the entries in `range` of the display order, sorting what is needed first.
  func names(in range: Range<Int>) -> [ItemName] {
    entries(in: range).map(\.name)
  }

  /// The names and `d_type`s (`DT_DIR`, `DT_REG`, … as readdir gave them) of the entries in
  /// `range` of the display order: the kind of an entry that cannot be stat'ed.
  func entries(in range: Range<Int>) -> [(name: ItemName, type: UInt8)] {
    lock.withLock {
      ensureSorted(range)
      return range.map { (ItemName(bytes: nameBytes(at: Int(order[$0]))), names[Int(order[$0])]) }
    }
  }

  // MARK: - Sorting

  private func prepareSort(dirFD: Int32, progress: (EnumerationProgress) -> Void, isCancelled: () -> Bool) throws(ProviderError) {
    let n = count
    switch sort.key {
    case .name: break
    case .kind: primary = kindRanks()
    case .date, .size:
      primary = [Int64](repeating: 0, count: n)
      for i in 0..<n {
        var st = stat()
        if withName(at: Int(order[i]), { fstatat(dirFD, $0, &st, AT_SYMLINK_NOFOLLOW) }) == 0 {
          // A folder has no size to sort by (its st_size is the directory file's, 4096 or so, and
          // is shown as "—"): all folders tie, and so sort by name among themselves.
          primary[i] =
            sort.key == .size
            ? ((st.st_mode & S_IFMT) == S_IFDIR ? 0 : Int64(st.st_size))
            : Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
        }
        if i % 8192 == 8191 {
          progress(EnumerationProgress(phase: .readingMetadata, completed: i + 1, total: n))
          if isCancelled() { throw ProviderError.cancelledError }
        }
      }
      progress(EnumerationProgress(phase: .readingMetadata, completed: n, total: n))
    }
    var groups = [0..<n]
    if sort.foldersFirst {
      // Folders to the front (O(n)); each group is then sorted on its own.
      var lo = 0
      let dir = UInt8(DT_DIR)
      for i in 0..<n where names[Int(order[i])] == dir {
        swapAt(lo, i)
        lo += 1
      }
      groups = [0..<lo, lo..<n]
    }
    unsorted = groups.filter { $0.count > 1 }
  }

  private func swapAt(_ i: Int, _ j: Int) {
    guard i != j else { return }
    order.swapAt(i, j)
    if !primary.isEmpty { primary.swapAt(i, j) }
  }

  /// Sorts until the entries of `range` are in their final place: only the unsorted chunks that
  /// overlap it are partitioned, so a range at the end costs O(n) like one at the start.
  private func ensureSorted(_ range: Range<Int>) {
    guard !range.isEmpty, !unsorted.isEmpty else { return }
    let ascending = sort.ascending
    let hasPrimary = !primary.isEmpty
    names.withUnsafeBufferPointer { nb in
      let base = nb.baseAddress ?? NameOrdering.emptyPointer
      /// Ascending "a before b" for the entries at positions i and j.
      func before(_ i: Int, _ j: Int) -> Bool {
        let oa = Int(order[i])
        let ob = Int(order[j])
        if hasPrimary {
          let pi = primary[i]
          let pj = primary[j]
          if pi != pj { return ascending ? pi < pj : pi > pj }
          // Equal keys (folders by size, one kind, the same mtime) in name order whichever way
          // the key runs: largest first must not put the folders in reverse name order.
          return NameOrdering.compare(base + oa + 2, Int(base[oa + 1]), base + ob + 2, Int(base[ob + 1])) < 0
        }
        let c = NameOrdering.compare(base + oa + 2, Int(base[oa + 1]), base + ob + 2, Int(base[ob + 1]))
        return ascending ? c < 0 : c > 0
      }
      // The first chunk that ends after the range starts (chunks are ascending and disjoint).
      var lo = 0
      var hi = unsorted.count
      while lo < hi {
        let mid = (lo + hi) / 2
        if unsorted[mid].upperBound <= range.lowerBound { lo = mid + 1 } else { hi = mid }
      }
      var k = lo
      while k < unsorted.count, unsorted[k].lowerBound < range.upperBound {
        let chunk = unsorted[k]
        if chunk.upperBound <= range.lowerBound {
          k += 1
          continue
        }
        if chunk.count <= 24 {
          // Insertion sort for small chunks.
          for i in (chunk.lowerBound + 1)..<chunk.upperBound {
            var j = i
            while j > chunk.lowerBound && before(j, j - 1) {
              swapAt(j, j - 1)
              j -= 1
            }
          }
          unsorted.remove(at: k)
          continue
        }
        // Median of three as the pivot, moved to the end of the chunk.
        let first = chunk.lowerBound
        let mid = first + chunk.count / 2
        let last = chunk.upperBound - 1
        if before(mid, first) { swapAt(mid, first) }
        if before(last, first) { swapAt(last, first) }
        if before(mid, last) { swapAt(mid, last) }
        var store = first
        for i in first..<last where before(i, last) {
          swapAt(i, store)
          store += 1
        }
        swapAt(store, last)
        // [first, store) < pivot at `store` < [store + 1, end): the pivot is in its final place.
        let parts = [first..<store, (store + 1)..<chunk.upperBound].filter { $0.count > 1 }
        unsorted.replaceSubrange(k...k, with: parts)
      }
    }
  }

  /// Sort ranks for "kind": folders, then by the kind's description, as Finder sorts its Kind column.
  private func kindRanks() -> [Int64] {
    var rankOfDescription: [String: Int64] = [:]
    let descriptions = Set(ContentType.allKnownKindDescriptions + ["Folder", "Alias", "Document", "Text", "Special file"])
    for (i, d) in descriptions.sorted(by: { $0.lowercased() < $1.lowercased() }).enumerated() {
      rankOfDescription[d] = Int64(i)
    }
    var cacheByExtension: [[UInt8]: Int64] = [:]
    var ranks = [Int64](repeating: 0, count: count)
    for i in 0..<count {
      let off = Int(order[i])
      switch Int32(names[off]) {
      case Int32(DT_DIR): ranks[i] = rankOfDescription["Folder"]!
      case Int32(DT_LNK): ranks[i] = rankOfDescription["Alias"]!
      case Int32(DT_REG), Int32(DT_UNKNOWN):
        let s = off + 2
        let end = s + Int(names[off + 1])
        var dot = end - 1
        while dot > s && names[dot] != 0x2E { dot -= 1 }
        let ext: [UInt8] = dot > s ? names[(dot + 1)..<end].map(NameOrdering.fold) : []
        if let r = cacheByExtension[ext] {
          ranks[i] = r
        } else {
          let t = ContentType.forExtension(String(decoding: ext, as: UTF8.self))
          let r = rankOfDescription[t.kindDescription] ?? rankOfDescription["Document"]!
          cacheByExtension[ext] = r
          ranks[i] = r
        }
      default: ranks[i] = rankOfDescription["Special file"]!
      }
    }
    return ranks
  }
}
