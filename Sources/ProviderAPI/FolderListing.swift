import Foundation

/// What a listing snapshot needs of an entry to sort it in Folio's orders.
public protocol FolderListingEntry: Sendable {
  /// The name's bytes (no "/").
  var name: [UInt8] { get }
  var isFolder: Bool { get }
  /// A file's size (a folder's is taken as 0).
  var size: Int64 { get }
  var lastModified: Date? { get }
}

/// One complete, sorted listing of a folder of a path-keyed store: what a page token points into.
///
/// Object stores and WebDAV servers list in their own order (byte order, or none); Folio's sorts
/// (name as people read it, date, size, kind, folders first) need every entry of the folder, so a
/// folder is read whole once and paged from here (``FolderListingCache``, ``FolderListingToken``).
/// Shared by the S3 and WebDAV providers, which both read folders that way.
public struct FolderListing<Entry: FolderListingEntry>: Sendable {
  public let id: UUID
  public let folder: ItemPath
  public let sort: ItemSort
  public let includeHidden: Bool
  public let entries: [Entry]
  public let readAt: ContinuousClock.Instant

  /// `entries` sorted by `sort`.
  public init(folder: ItemPath, sort: ItemSort, includeHidden: Bool, unsorted entries: [Entry]) {
    id = UUID()
    self.folder = folder
    self.sort = sort
    self.includeHidden = includeHidden
    self.entries = Self.sorted(entries, by: sort)
    readAt = .now
  }

  /// Folio's order: folders first when asked, then the key, then the name as people read it.
  ///
  /// The keys are read out of the entries once, into arrays of their own, and indices are sorted:
  /// a comparator that took two generic entries copied both (their names and versions retained
  /// and released) at every one of the n·log n comparisons — 17% of a 20k-entry listing's CPU
  /// (docs/BENCHMARKS.md, "WebDAV locations").
  public static func sorted(_ entries: [Entry], by sort: ItemSort) -> [Entry] {
    let names = entries.map(\.name)
    let folders = entries.map(\.isFolder)
    let sizes: [Int64] = sort.key == .size ? entries.map { $0.isFolder ? 0 : $0.size } : []
    let dates: [Date] = sort.key == .date ? entries.map { $0.lastModified ?? .distantPast } : []
    let kinds: [String] =
      sort.key == .kind
      ? entries.map {
        $0.isFolder ? "folder" : ContentType.forExtension(ItemName(bytes: $0.name).pathExtension).kindDescription.lowercased()
      } : []
    var order = Array(entries.indices)
    order.sort { x, y in
      if sort.foldersFirst, folders[x] != folders[y] { return folders[x] }
      let byName = NameOrdering.compare(names[x], names[y])
      switch sort.key {
      case .name:
        return sort.ascending ? byName < 0 : byName > 0
      case .date:
        if dates[x] != dates[y] { return sort.ascending ? dates[x] < dates[y] : dates[x] > dates[y] }
      case .size:
        if sizes[x] != sizes[y] { return sort.ascending ? sizes[x] < sizes[y] : sizes[x] > sizes[y] }
      case .kind:
        if kinds[x] != kinds[y] { return sort.ascending ? kinds[x] < kinds[y] : kinds[x] > kinds[y] }
      }
      return byName < 0
    }
    return order.map { entries[$0] }
  }
}

/// A page token into a ``FolderListing``: the snapshot, a hash of its folder's path and the
/// offset (33 bytes). Positions need no I/O, so any offset can be named.
public struct FolderListingToken: Equatable, Sendable {
  public var snapshot: UUID
  public var folderHash: UInt64
  public var offset: Int

  public init(snapshot: UUID, folder: ItemPath, offset: Int) {
    self.snapshot = snapshot
    folderHash = Self.hash(folder)
    self.offset = offset
  }

  public init(_ page: Page) throws(ProviderError) {
    let d = [UInt8](page.data)
    guard d.count == 33, d[0] == 1 else { throw ProviderError(.pageExpired, "a page token of another kind") }
    let u = Array(d[1..<17])
    snapshot = UUID(uuid: (u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]))
    func le(_ start: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(d[start + $1]) << (8 * UInt64($1)) } }
    folderHash = le(17)
    offset = Int(clamping: le(25))
  }

  public func encoded() throws(ProviderError) -> Page {
    var d: [UInt8] = [1]
    withUnsafeBytes(of: snapshot.uuid) { d += $0 }
    for value in [folderHash, UInt64(offset)] { d += (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }
    return try Page(Data(d))
  }

  /// Whether the token was made for `folder` (a token is refused for another folder).
  public func belongs(to folder: ItemPath) -> Bool { folderHash == Self.hash(folder) }

  /// FNV-1a of the folder's path.
  static func hash(_ path: ItemPath) -> UInt64 {
    path.bytes.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
  }
}
