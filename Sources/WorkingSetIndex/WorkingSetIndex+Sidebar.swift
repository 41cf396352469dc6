import Foundation
import GRDB
import ProviderAPI

/// What the Browse sidebar lists from the index: Favorites and Tags.
public struct SidebarContents: Sendable, Equatable {
  /// A tag in use and how many items carry it.
  public struct TagCount: Sendable, Equatable {
    public let name: String
    public let count: Int
  }

  public let favorites: [IndexedItem]
  public let tags: [TagCount]
}

extension WorkingSetIndex {
  /// Favorites and tags now, then again after every change to them written through this index
  /// (GRDB observes its own connection's commits, not another process's): the sync engine applying
  /// another client's favorite or tag, an operation in the UI. Without it the sidebar showed only
  /// what was there when it was last asked. Consecutive equal contents are not repeated.
  public func sidebarStream() -> AsyncThrowingStream<SidebarContents, any Error> {
    let observation = ValueObservation
      .tracking { db in
        SidebarContents(
          favorites: try Self.favorites(db),
          tags: try Self.allTags(db).map { SidebarContents.TagCount(name: $0.name, count: $0.count) })
      }
      .removeDuplicates()
      .values(in: writer)
    return Self.stream(observation)
  }
}
