import Foundation
import ProviderAPI
import Synchronization
import Testing
import WorkingSetIndex

@testable import ProviderCore

/// A seeded generator (SplitMix64): every random decision of a property test comes from it, and a
/// failure prints the seed that replays it (test-plan §0.2).
struct SeededGenerator: RandomNumberGenerator {
  private var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Path-keyed identifiers as SFTP's provider makes them: "p:" and the path; the root is `.root`.
enum PathKeys {
  static func identifier(_ path: ItemPath) -> ItemIdentifier {
    path == .root ? .root : ItemIdentifier("p:" + path.lossyString)
  }
}

/// Storage without a change feed whose identifiers are paths (SFTP, S3), as a tree of files in
/// memory, for the poller's tests: each listing can be made complete, cut short after some pages,
/// failed, or empty (a maintenance page); a rename gives a file a new identifier and keeps its
/// size and mtime, as a server does.
final class PathKeyedStore: Provider, FolderVersionReading, @unchecked Sendable {
  enum Listing: Sendable, Equatable {
    case complete
    /// Fails after this many pages (0: fails at once).
    case failAfter(pages: Int)
    /// A complete, empty answer.
    case empty
  }

  struct File {
    var path: ItemPath
    var content: Data
    var modified: Date
    var isFolder = false
    /// The account's favorite mark, where the storage keeps favorites (Nextcloud's `oc:favorite`).
    var favorite = false
  }

  let domain: DomainIdentifier
  let traits: ProviderTraits
  private let state = Mutex<(files: [ItemPath: File], next: [Listing], pageSize: Int)>(([:], [], 3))
  private let started = Mutex(0)
  /// Listings begun (first pages asked for).
  var listings: Int { started.withLock { $0 } }
  private let looked = Mutex(0)
  /// Items asked for by identifier (a folder's hint read before listing it, or instead).
  var lookups: Int { looked.withLock { $0 } }
  private let listedLog = Mutex<[ItemPath]>([])
  /// The folders listed (first pages asked for), in order.
  var listedFolders: [ItemPath] { listedLog.withLock { $0 } }
  private let topReads = Mutex(0)
  /// Reads of a folder's own entry for its version (``currentFolder(at:)``: the sweep's STAT).
  var folderReads: Int { topReads.withLock { $0 } }
  /// The top's modification time, which moves with any change below where versions cover
  /// descendants (the top has no entry of its own in `files`).
  private let topModified = Mutex(1_700_000_000.0)

  /// - Parameters:
  ///   - storesFavorites: The storage keeps favorites and lists them (Nextcloud).
  ///   - coversDescendants: A folder's version moves when anything below it changes, at any
  ///     depth (Nextcloud's ETags): each change moves every folder above it, the top included.
  init(domain: DomainIdentifier, storesFavorites: Bool = false, coversDescendants: Bool = false) {
    self.domain = domain
    traits = ProviderTraits(
      content: .synced, changeFeed: .none, identity: .pathKeyed, hasTrash: false, rangedReads: true,
      conditionalWrites: .unknown, contentHash: .none, storesFavorites: storesFavorites,
      folderVersionsCoverDescendants: coversDescendants)
  }

  func identifier(for path: ItemPath) -> ItemIdentifier { PathKeys.identifier(path) }
  func path(for identifier: ItemIdentifier) -> ItemPath? { path(of: identifier) }

  func currentFolder(at path: ItemPath) async throws(ProviderError) -> Item {
    topReads.withLock { $0 += 1 }
    guard path == .root else { return try await item(at: path) }
    let m = topModified.withLock { $0 }
    return Item(
      identifier: .root, parentIdentifier: .root, filename: ItemName("Host"), path: .root, contentType: .folder,
      version: try! ItemVersion(content: "top:\(m)", metadata: ""), contentModificationDate: Date(timeIntervalSince1970: m))
  }

  /// Where versions cover descendants: every folder above `path` moves (a second later).
  private func moveAncestors(of path: ItemPath, _ files: inout [ItemPath: File]) {
    guard traits.folderVersionsCoverDescendants else { return }
    let m = topModified.withLock { t in
      t += 1
      return t
    }
    var p = path.parent
    while p != .root {
      files[p]?.modified = Date(timeIntervalSince1970: m)
      p = p.parent
    }
  }

  /// Another client marks or unmarks a favorite (its version does not move: owncloud/core#16589).
  func setFavorite(_ path: String, _ on: Bool) { state.withLock { $0.files[ItemPath(path)]?.favorite = on } }

  /// How the next listings end, in order (then complete).
  func plan(_ listings: [Listing]) { state.withLock { $0.next += listings } }
  func setPageSize(_ n: Int) { state.withLock { $0.pageSize = n } }

  @discardableResult
  func put(_ path: String, _ content: String, modified: Double = 1_700_000_000, folder: Bool = false) -> Item {
    let p = ItemPath(path)
    let f = File(path: p, content: Data(content.utf8), modified: Date(timeIntervalSince1970: modified), isFolder: folder)
    state.withLock {
      $0.files[p] = f
      moveAncestors(of: p, &$0.files)
    }
    return Self.item(f)
  }

  func remove(_ path: String) {
    state.withLock { s in
      s.files = s.files.filter { !$0.key.bytes.starts(with: ItemPath(path).bytes) }
      moveAncestors(of: ItemPath(path), &s.files)
    }
  }

  /// A rename done by another client: new identifier, same bytes and mtime.
  func rename(_ from: String, to: String) {
    state.withLock { s in
      guard var f = s.files.removeValue(forKey: ItemPath(from)) else { return }
      f.path = ItemPath(to)
      s.files[f.path] = f
    }
  }

  var paths: Set<ItemPath> { state.withLock { Set($0.files.keys) } }

  static func item(_ f: File) -> Item {
    Item(
      identifier: PathKeys.identifier(f.path), parentIdentifier: PathKeys.identifier(f.path.parent),
      filename: f.path.lastComponent!, path: f.path, contentType: f.isFolder ? .folder : .plainText,
      version: try! ItemVersion(content: "\(f.content.count):\(f.modified.timeIntervalSince1970)", metadata: ""),
      documentSize: f.isFolder ? nil : Int64(f.content.count), contentModificationDate: f.modified,
      favoriteRank: f.favorite ? Item.favoriteRankUnranked : nil)
  }

  private func path(of id: ItemIdentifier) -> ItemPath? {
    id == .root ? .root : id.rawValue.hasPrefix("p:") ? ItemPath(String(id.rawValue.dropFirst(2))) : nil
  }

  func item(for identifier: ItemIdentifier, pathHint: ItemPath?) async throws(ProviderError) -> Item {
    looked.withLock { $0 += 1 }
    guard let p = path(of: identifier) else { throw ProviderError.noSuchItem(identifier.rawValue) }
    return try await item(at: p)
  }

  func item(at path: ItemPath) async throws(ProviderError) -> Item {
    if path == .root {
      return Item(identifier: .root, parentIdentifier: .root, filename: ItemName("Host"), path: .root, contentType: .folder)
    }
    guard let f = state.withLock({ $0.files[path] }) else { throw ProviderError.noSuchItem(path.displayString) }
    return Self.item(f)
  }

  /// Pages of the folder by name; the page token is the offset.
  func enumerate(
    _ request: EnumerationRequest, page: Page?, progress: @escaping @Sendable (EnumerationProgress) -> Void
  ) async throws(ProviderError) -> ItemPage {
    guard let folder = path(of: request.container) else { throw ProviderError.noSuchItem(request.container.rawValue) }
    // The token is "offset" or "offset/n" for a listing planned to fail after n pages: the plan
    // is drawn at the first page and kept by the following ones.
    if page == nil {
      started.withLock { $0 += 1 }
      listedLog.withLock { $0.append(folder) }
    }
    let parts = page.map { String(decoding: $0.data, as: UTF8.self).split(separator: "/").map(String.init) } ?? []
    let offset = parts.first.flatMap { Int($0) } ?? 0
    let (drawn, files, size) = state.withLock { s -> (Listing, [File], Int) in
      let how: Listing = page == nil && !s.next.isEmpty ? s.next.removeFirst() : .complete
      return (how, Array(s.files.values), s.pageSize)
    }
    let plan: Listing = page == nil ? drawn : parts.count > 1 ? .failAfter(pages: Int(parts[1]) ?? 0) : .complete
    let pageNumber = offset / size
    switch plan {
    case .empty: return ItemPage(items: [], nextPage: nil)
    case .failAfter(let n) where pageNumber >= n: throw ProviderError(.serverUnreachable, "connection lost")
    default: break
    }
    let children = files.filter { $0.path.parent == folder && $0.path != .root }.sorted { $0.path.bytes.lexicographicallyPrecedes($1.path.bytes) }
    let end = min(children.count, offset + size)
    let slice = offset < end ? children[offset..<end].map(Self.item) : []
    var next: Page?
    if end < children.count {
      var token = "\(end)"
      if case .failAfter(let n) = plan { token += "/\(n)" }
      next = try Page(Data(token.utf8))
    }
    return ItemPage(items: slice, nextPage: next)
  }

  func currentSyncAnchor(for container: ItemIdentifier) async throws(ProviderError) -> SyncAnchor {
    throw ProviderError(.featureUnsupported, "no change feed")
  }

  func changes(in container: ItemIdentifier, since anchor: SyncAnchor) async throws(ProviderError) -> ChangeBatch {
    throw ProviderError(.featureUnsupported, "no change feed")
  }

  func fetchContents(
    _ identifier: ItemIdentifier, version: ItemVersion?, to destination: URL,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    guard let p = path(of: identifier), let f = state.withLock({ $0.files[p] }) else {
      throw ProviderError.noSuchItem(identifier.rawValue)
    }
    do { try f.content.write(to: destination) } catch { throw ProviderError(.ioError, "cannot write") }
    return Self.item(f)
  }

  func createItem(
    _ template: ItemTemplate, fields: ItemFields, contents: URL?, options: CreateOptions,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    throw ProviderError(.featureUnsupported, "read-only double")
  }

  func modifyItem(
    _ template: ItemTemplate, baseVersion: ItemVersion, changedFields: ItemFields, contents: URL?,
    progress: @escaping @Sendable (TransferProgress) -> Void
  ) async throws(ProviderError) -> Item {
    throw ProviderError(.featureUnsupported, "read-only double")
  }

  func deleteItem(_ identifier: ItemIdentifier, baseVersion: ItemVersion?, options: DeleteOptions) async throws(ProviderError) {
    throw ProviderError(.featureUnsupported, "read-only double")
  }
}

/// Virtual time for a running poller: `sleep` returns when a test advances past its deadline
/// (or is cancelled), so a test of the schedule's cadence never sleeps for real.
final class VirtualTime: Sendable {
  private let state = Mutex<(now: Duration, sleepers: [(UUID, Duration, CheckedContinuation<Void, Never>)])>((.zero, []))

  var clock: PollClock {
    PollClock(now: { self.now }, sleep: { d in try await self.sleep(d) })
  }

  var now: Duration { state.withLock { $0.now } }

  /// The number of sleeps waiting.
  var sleeping: Int { state.withLock { $0.sleepers.count } }

  func advance(by d: Duration) {
    let due = state.withLock { s -> [CheckedContinuation<Void, Never>] in
      s.now += d
      let ready = s.sleepers.filter { $0.1 <= s.now }
      s.sleepers.removeAll { $0.1 <= s.now }
      return ready.map(\.2)
    }
    for c in due { c.resume() }
  }

  private func sleep(_ d: Duration) async throws {
    let id = UUID()
    await withTaskCancellationHandler {
      await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
        let now = state.withLock { s -> Bool in
          if d <= .zero || Task.isCancelled { return true }
          s.sleepers.append((id, s.now + d, c))
          return false
        }
        if now { c.resume() }
      }
    } onCancel: {
      let c = state.withLock { s -> CheckedContinuation<Void, Never>? in
        guard let i = s.sleepers.firstIndex(where: { $0.0 == id }) else { return nil }
        return s.sleepers.remove(at: i).2
      }
      c?.resume()
    }
    try Task.checkCancellation()
  }
}

/// Waits for a condition (polling with a generous bound), never a fixed sleep as the oracle.
/// The bound is only a bound (120 s, as the browser harness's): under the whole suite on two
/// shared cores a poller's first turn once waited more than 20 s for a thread.
func eventually(
  _ seconds: Double = 120, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () async throws -> Bool
) async rethrows {
  let deadline = ContinuousClock.now + .seconds(seconds)
  while ContinuousClock.now < deadline {
    if try await condition() { return }
    try? await Task.sleep(for: .milliseconds(5))
  }
  Issue.record("condition not met within \(seconds) s", sourceLocation: sourceLocation)
}
