import ProviderAPI

/// The rows of a folder as pages: only the pages near the viewport are kept, so a folder of a
/// million entries never costs a million items in the UI. Evicted pages are asked for again.
public struct PagedList: Sendable, Equatable {
  public let pageSize: Int
  /// The number of rows, when the provider said (or once the last page came).
  public private(set) var total: Int?
  public private(set) var pages: [Int: [Item]] = [:]
  public private(set) var complete = false
  /// Pages kept on each side of the viewport.
  public static let keptPages = 6
  /// Pages up to this one are never evicted: a filter read them (``keepPages(through:)``).
  public private(set) var keptThrough: Int?

  public init(pageSize: Int) { self.pageSize = max(1, pageSize) }

  /// Rows known to exist: the total, or what arrived so far.
  public var count: Int {
    if let total { return total }
    let maxPage = pages.keys.max() ?? -1
    return maxPage < 0 ? 0 : maxPage * pageSize + (pages[maxPage]?.count ?? 0)
  }

  public var isEmpty: Bool { count == 0 }

  public func item(at index: Int) -> Item? {
    guard index >= 0 else { return nil }
    let p = index / pageSize
    guard let page = pages[p] else { return nil }
    let i = index - p * pageSize
    return i < page.count ? page[i] : nil
  }

  /// Whether the page holding row `index` is loaded.
  public func hasRow(_ index: Int) -> Bool { pages[index / pageSize] != nil }

  public mutating func store(offset: Int, items: [Item], total: Int?, isComplete: Bool) {
    let p = offset / pageSize
    pages[p] = items
    if let total { self.total = total }
    if isComplete {
      complete = true
      self.total = p * pageSize + items.count
    }
  }

  /// Drops pages more than `radius` pages from the one holding row `index`, so at most
  /// 2 × radius + 1 pages are ever held.
  public mutating func evict(around index: Int, radius: Int = keptPages) {
    let center = index / pageSize
    for p in pages.keys where abs(p - center) > radius && p > (keptThrough ?? -1) { pages[p] = nil }
  }

  /// Keeps pages `0...last` however far the viewport goes: a filter read them, and the next
  /// filter searches them here rather than reading the folder again. As bounded as the filter
  /// (`AppState.filterReadLimit` rows); a new listing starts a new list.
  public mutating func keepPages(through last: Int) { keptThrough = max(keptThrough ?? -1, last) }

  /// The pages missing for rows `range`.
  public func missingPages(for range: Range<Int>) -> ClosedRange<Int>? {
    guard !range.isEmpty else { return nil }
    let first = range.lowerBound / pageSize
    let last = (range.upperBound - 1) / pageSize
    let missing = (first...last).filter { pages[$0] == nil }
    guard let lo = missing.first, let hi = missing.last else { return nil }
    return lo...hi
  }

  /// The first loaded row whose item is at this path.
  public func index(ofPath path: ItemPath) -> Int? {
    for (p, items) in pages {
      if let i = items.firstIndex(where: { $0.path == path }) { return p * pageSize + i }
    }
    return nil
  }

  /// The first loaded row whose item has this identifier.
  public func index(of id: ItemIdentifier) -> Int? {
    for (p, items) in pages {
      if let i = items.firstIndex(where: { $0.identifier == id }) { return p * pageSize + i }
    }
    return nil
  }

  public var loadedItems: [Item] { pages.keys.sorted().flatMap { pages[$0]! } }

  /// Changes the loaded row holding `id` in place (a transfer finished: it is downloaded now),
  /// when its page is here; an evicted page comes back from the provider with the news.
  public mutating func update(_ id: ItemIdentifier, _ change: (inout Item) -> Void) {
    for (p, items) in pages {
      guard let i = items.firstIndex(where: { $0.identifier == id }) else { continue }
      change(&pages[p]![i])
      return
    }
  }
}
