import Foundation
import ProviderAPI
import Synchronization

/// One complete, sorted listing of a folder of a bucket: what a page token points into. S3 lists
/// keys in byte order only; Folio's sorts (name as people read it, date, size, kind, folders
/// first) need every key of the folder, so a folder is read whole once and paged from here.
struct S3ListingSnapshot: Sendable {
  struct Entry: Sendable, Equatable {
    var name: [UInt8]
    var isFolder: Bool
    var size: Int64
    var lastModified: Date?
    var etag: String
  }

  let id: UUID
  let folder: ItemPath
  let sort: ItemSort
  let includeHidden: Bool
  let entries: [Entry]
  let readAt: ContinuousClock.Instant

  static func sorted(_ entries: [Entry], by sort: ItemSort) -> [Entry] {
    func kind(_ e: Entry) -> String {
      e.isFolder ? "folder" : ContentType.forExtension(ItemName(bytes: e.name).pathExtension).kindDescription.lowercased()
    }
    let kinds: [String] = sort.key == .kind ? entries.map(kind) : []
    var order = Array(entries.indices)
    order.sort { x, y in
      let (a, b) = (entries[x], entries[y])
      if sort.foldersFirst, a.isFolder != b.isFolder { return a.isFolder }
      let byName = NameOrdering.compare(a.name, b.name)
      switch sort.key {
      case .name:
        return sort.ascending ? byName < 0 : byName > 0
      case .date:
        let (ta, tb) = (a.lastModified ?? .distantPast, b.lastModified ?? .distantPast)
        if ta != tb { return sort.ascending ? ta < tb : ta > tb }
      case .size:
        let (sa, sb) = (a.isFolder ? 0 : a.size, b.isFolder ? 0 : b.size)
        if sa != sb { return sort.ascending ? sa < sb : sa > sb }
      case .kind:
        let (ka, kb) = (kinds[x], kinds[y])
        if ka != kb { return sort.ascending ? ka < kb : ka > kb }
      }
      return byName < 0
    }
    return order.map { entries[$0] }
  }
}

/// A page token: the snapshot, a hash of its folder's path and the offset (32 bytes).
struct S3ListingToken: Equatable {
  var snapshot: UUID
  var folderHash: UInt64
  var offset: Int

  init(snapshot: UUID, folderHash: UInt64, offset: Int) {
    self.snapshot = snapshot
    self.folderHash = folderHash
    self.offset = offset
  }

  init(_ page: Page) throws(ProviderError) {
    let d = [UInt8](page.data)
    guard d.count == 33, d[0] == 1 else { throw ProviderError(.pageExpired, "a page token of another kind") }
    let u = Array(d[1..<17])
    snapshot = UUID(uuid: (u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]))
    func le(_ start: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(d[start + $1]) << (8 * UInt64($1)) } }
    folderHash = le(17)
    offset = Int(clamping: le(25))
  }

  func encoded() throws(ProviderError) -> Page {
    var d: [UInt8] = [1]
    withUnsafeBytes(of: snapshot.uuid) { d += $0 }
    for value in [folderHash, UInt64(offset)] { d += (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
    return try Page(Data(d))
  }

  /// FNV-1a of the folder's path: a token is refused for another folder.
  static func hash(_ path: ItemPath) -> UInt64 {
    path.bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
  }
}

/// The last few snapshots, for page tokens and for a second visit painted at once.
final class S3ListingCache: Sendable {
  private let capacity: Int
  private let snapshots = Mutex<[S3ListingSnapshot]>([])

  init(capacity: Int) { self.capacity = capacity }

  func store(_ snapshot: S3ListingSnapshot) {
    snapshots.withLock { list in
      list.removeAll { $0.id == snapshot.id }
      list.append(snapshot)
      if list.count > capacity { list.removeFirst(list.count - capacity) }
    }
  }

  func snapshot(_ id: UUID) -> S3ListingSnapshot? { snapshots.withLock { $0.first { $0.id == id } } }

  /// The newest reading of `folder` with these options, if younger than `maxAge`.
  func recent(_ folder: ItemPath, sort: ItemSort, includeHidden: Bool, maxAge: Duration) -> S3ListingSnapshot? {
    let now = ContinuousClock.now
    return snapshots.withLock { list in
      list.last { $0.folder == folder && $0.sort == sort && $0.includeHidden == includeHidden && now - $0.readAt < maxAge }
    }
  }

  /// Forgets what was read of `folder` (after a change Folio made there).
  func forget(_ folder: ItemPath) { snapshots.withLock { $0.removeAll { $0.folder == folder } } }
}
