import Foundation
import ProviderAPI
import SFTPClient

/// One complete, sorted listing of a folder: what a page token points into.
struct ListingSnapshot: Sendable {
  struct Entry: Sendable {
    var name: [UInt8]
    var attributes: SFTPAttributes
  }

  let id: UUID
  let folder: ItemPath
  /// The folder's mtime when the listing began: a token outliving its snapshot is honoured only
  /// while the folder still has it (whole seconds, all SFTP v3 states).
  let folderTime: UInt32
  /// The folder's attributes when the listing began (what `folderTime` comes from): the folder
  /// as an `Item` for `ItemPage.container`.
  let folderAttributes: SFTPAttributes
  let sort: ItemSort
  let includeHidden: Bool
  let entries: [Entry]

  /// Sorts READDIR's entries (server order) the way the local provider does: folders first when
  /// asked, each group by the key, ties by name, name descending reversing the names.
  static func sorted(_ entries: [Entry], by sort: ItemSort) -> [Entry] {
    func isFolder(_ e: Entry) -> Bool { e.attributes.fileType == .directory }
    func kind(_ e: Entry) -> String {
      switch e.attributes.fileType {
      case .directory: return "folder"
      case .symbolicLink: return "alias"
      case .other: return "special file"
      case .regular, nil: return ContentType.forExtension(ItemName(bytes: e.name).pathExtension).kindDescription.lowercased()
      }
    }
    let kinds: [String] = sort.key == .kind ? entries.map(kind) : []
    var order = Array(entries.indices)
    order.sort { x, y in
      let a = entries[x]
      let b = entries[y]
      if sort.foldersFirst, isFolder(a) != isFolder(b) { return isFolder(a) }
      let byName = NameOrdering.compare(a.name, b.name)
      switch sort.key {
      case .name:
        return sort.ascending ? byName < 0 : byName > 0
      case .date:
        let (ta, tb) = (a.attributes.modificationTime ?? 0, b.attributes.modificationTime ?? 0)
        if ta != tb { return sort.ascending ? ta < tb : ta > tb }
      case .size:
        // A folder has no size to sort by: folders tie and keep name order among themselves.
        let sa = isFolder(a) ? 0 : a.attributes.size ?? 0
        let sb = isFolder(b) ? 0 : b.attributes.size ?? 0
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

/// The page token: which snapshot, the folder's mtime and path hash when it was read, and the
/// offset. 37 bytes; the path is hashed (FNV-1a), not carried, so a deep path fits too.
package struct ListingToken: Equatable {
  var snapshot: UUID
  var folderTime: UInt32
  var folderHash: UInt64
  var offset: Int

  private static let version: UInt8 = 1

  package func encoded() throws(ProviderError) -> Page {
    var d = Data([Self.version])
    withUnsafeBytes(of: snapshot.uuid) { d.append(contentsOf: $0) }
    withUnsafeBytes(of: folderTime.littleEndian) { d.append(contentsOf: $0) }
    withUnsafeBytes(of: folderHash.littleEndian) { d.append(contentsOf: $0) }
    withUnsafeBytes(of: UInt64(offset).littleEndian) { d.append(contentsOf: $0) }
    return try Page(d)
  }

  init(snapshot: UUID, folderTime: UInt32, folderHash: UInt64, offset: Int) {
    self.snapshot = snapshot
    self.folderTime = folderTime
    self.folderHash = folderHash
    self.offset = offset
  }

  package init(_ page: Page) throws(ProviderError) {
    let d = [UInt8](page.data)
    guard d.count == 1 + 16 + 4 + 8 + 8, d[0] == Self.version else {
      throw ProviderError(.pageExpired, "the page token is not one of this SFTP location's")
    }
    var u = UUID().uuid
    withUnsafeMutableBytes(of: &u) { $0.copyBytes(from: d[1..<17]) }
    func le(_ start: Int, _ count: Int) -> UInt64 {
      var v: UInt64 = 0
      for k in 0..<count { v |= UInt64(d[start + k]) << UInt64(k * 8) }
      return v
    }
    snapshot = UUID(uuid: u)
    folderTime = UInt32(le(17, 4))
    folderHash = le(21, 8)
    let raw = le(29, 8)
    guard raw <= UInt64(Int.max) else { throw ProviderError(.pageExpired, "the page token is damaged") }
    offset = Int(raw)
  }

  static func hash(_ path: ItemPath) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in path.bytes {
      h ^= UInt64(b)
      h = h &* 0x100_0000_01b3
    }
    return h
  }
}

/// The last few snapshots, so that paging a folder reads it once. Bounded: a token for a snapshot
/// that was dropped re-reads the folder (and expires if the folder changed).
final class ListingCache: @unchecked Sendable {
  private let lock = NSLock()
  private var snapshots: [UUID: ListingSnapshot] = [:]
  private var order: [UUID] = []
  /// When each snapshot was read; and, per folder, the last time it was read at all (a newer
  /// reading with other options makes older snapshots of the folder unfit for a second visit).
  private var readAt: [UUID: ContinuousClock.Instant] = [:]
  private var lastRead: [ItemPath: ContinuousClock.Instant] = [:]
  let capacity: Int

  init(capacity: Int) { self.capacity = capacity }

  func store(_ snapshot: ListingSnapshot, at now: ContinuousClock.Instant = .now) {
    lock.withLock {
      snapshots[snapshot.id] = snapshot
      readAt[snapshot.id] = now
      lastRead[snapshot.folder] = now
      order.removeAll { $0 == snapshot.id }
      order.append(snapshot.id)
      while order.count > capacity {
        let gone = order.removeFirst()
        if let s = snapshots.removeValue(forKey: gone), !snapshots.values.contains(where: { $0.folder == s.folder }) {
          lastRead[s.folder] = nil
        }
        readAt[gone] = nil
      }
    }
  }

  func snapshot(_ id: UUID) -> ListingSnapshot? {
    lock.withLock { snapshots[id] }
  }

  /// The newest snapshot of `folder` with these options read while its mtime was `folderTime`:
  /// what a page token whose own snapshot was dropped reads its page from. The folder was read
  /// again for an earlier page of the same listing (the token after it names the new snapshot,
  /// but a reader jumping to a page makes its token from an older one): without this, a filter
  /// reading a big folder page after page read the whole folder from the server for each chunk.
  func matching(_ folder: ItemPath, sort: ItemSort, includeHidden: Bool, folderTime: UInt32) -> ListingSnapshot? {
    lock.withLock {
      for id in order.reversed() {
        guard let s = snapshots[id], s.folder == folder, s.sort == sort, s.includeHidden == includeHidden else { continue }
        if s.folderTime == folderTime { return s }
      }
      return nil
    }
  }

  /// The newest snapshot of `folder` with these options, if it is the folder's newest reading of
  /// all and at most `maxAge` old: what a second visit may show at once.
  func recent(
    _ folder: ItemPath, sort: ItemSort, includeHidden: Bool, maxAge: Duration, now: ContinuousClock.Instant = .now
  ) -> (snapshot: ListingSnapshot, readAt: ContinuousClock.Instant)? {
    lock.withLock {
      for id in order.reversed() {
        guard let s = snapshots[id], s.folder == folder, let at = readAt[id] else { continue }
        guard s.sort == sort, s.includeHidden == includeHidden, at == lastRead[folder], now - at <= maxAge else {
          return nil
        }
        return (s, at)
      }
      return nil
    }
  }
}
