import Foundation
import ProviderAPI

/// One walk from the top over storage whose folder versions cover their descendants
/// (``ProviderTraits/folderVersionsCoverDescendants``: Nextcloud, ownCloud), bringing the
/// working set's folders up to date with as few listings as the versions allow. Pure: the
/// ``ListingPoller`` reads the top's hint and lists the folders this names, and tells it what
/// each listing found (the style of ``PollSchedule``; tests drive it with no I/O).
///
/// A top whose hint is the one the last completed sweep recorded means nothing changed anywhere
/// below: nothing is listed. Otherwise the top is listed, and from each listed folder the walk
/// descends only into child folders that lead to a target (a working-set folder, the top) and
/// whose hint, as the listing states it, moved since the last completed sweep. A change in
/// `/a/b/c` thus lists `/`, `/a`, `/a/b` and `/a/b/c`, and nothing beside them.
///
/// What it records for the next sweep is a folder's hint as it was when the folder was listed,
/// and only for a folder whose listing and whole walk below completed: a listing that failed
/// anywhere forgets the hints of the folders above it, so the next sweep walks that chain again
/// rather than calling it current.
public struct FolderSweep: Sendable, Equatable {
  /// The targets and every folder above them: the only folders the walk may list.
  public let needed: Set<ItemPath>
  /// Each folder's hint at the last completed sweep.
  public let previous: [ItemPath: Data]
  /// List every needed folder whatever its hint (what a hint cannot show — a favorite set
  /// elsewhere moves no ETag, owncloud/core#16589 — still arrives, within a bounded time).
  public let full: Bool
  /// The folders given to list, with their hint when they were given (nil: unknown).
  private(set) var given: [ItemPath: Data?] = [:]
  private(set) var completed: Set<ItemPath> = []
  /// Folders whose listing, or a listing below them, did not complete.
  private(set) var failed: Set<ItemPath> = []

  /// - Parameters:
  ///   - targets: The folders to bring up to date (the working set's folders; the top is
  ///     always one).
  ///   - previous: ``result()`` of the last sweep (empty at first: every chain is walked).
  ///   - full: List every needed folder whatever its hint.
  public init(targets: Set<ItemPath>, previous: [ItemPath: Data], full: Bool) {
    var needed: Set<ItemPath> = [.root]
    for target in targets where target.isAbsolute {
      var p = target
      while p != .root && needed.insert(p).inserted { p = p.parent }
    }
    self.needed = needed
    self.previous = previous
    self.full = full
  }

  /// The top's hint as read now (one request; nil when it could not be read): the folders to
  /// list first (none when nothing changed since the last completed sweep).
  public mutating func start(topHint: Data?) -> [ItemPath] {
    if !full, let topHint, previous[.root] == topHint { return [] }
    given[.root] = .some(topHint)
    return [.root]
  }

  /// A listing of `folder` ended: whether it was complete, and the hints its entries state for
  /// its child folders (by path). Returns the child folders to list next.
  public mutating func listed(_ folder: ItemPath, complete: Bool, childHints: [ItemPath: Data]) -> [ItemPath] {
    guard complete else {
      var p = folder
      while failed.insert(p).inserted && p != .root { p = p.parent }
      return []
    }
    completed.insert(folder)
    var next: [ItemPath] = []
    for child in needed where child != .root && child.parent == folder && !given.keys.contains(child) {
      // A needed folder the listing lacks is gone: the listing's changes say so.
      guard let hint = childHints[child] else { continue }
      if full || previous[child] != hint {
        given[child] = .some(hint)
        next.append(child)
      }
    }
    return next.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
  }

  /// Whether every listing the walk made completed.
  public var succeeded: Bool { failed.isEmpty }

  /// The folders listed, in no order.
  public var listedFolders: Set<ItemPath> { Set(given.keys) }

  /// The hints for the next sweep: a folder listed completely, with everything below it, keeps
  /// the hint it had when listed; one where something failed is forgotten (walked again); an
  /// unchanged one keeps its old hint. Folders no target needs any more are dropped.
  public func result() -> [ItemPath: Data] {
    var out = previous.filter { needed.contains($0.key) }
    for (folder, hint) in given {
      if failed.contains(folder) || !completed.contains(folder) {
        out[folder] = nil
      } else {
        out[folder] = hint
      }
    }
    return out
  }
}
