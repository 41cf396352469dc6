import ProviderAPI

/// Marking many at once, reading the rest of a paged folder (`A`, `*`).
///
/// A folder of 100,000 files has only the pages around the cursor loaded: "all" means the
/// folder's rows, not the loaded ones, so the rest is read a chunk at a time (as a filter reads
/// it) and each page is marked as it comes. What an item ends up as depends only on the marks
/// before the command (`before`), so a page that comes twice is marked the same way twice.
public struct BulkMarking: Sendable, Equatable {
  public enum Mode: Sendable, Equatable { case all, invert }
  public var mode: Mode
  /// The listing it reads; another ticket (another folder, a reload) ends it.
  public var ticket: UInt64
  /// The marks when the command was given (an invert turns exactly these off).
  public var before: Set<ItemIdentifier>
  /// Pages already marked.
  public var done: Set<Int> = []
  /// The first page not asked for yet.
  public var next = 0
}

/// Select all (`A`), invert (`*`), clear (`C`) and a range (`M`). The marks are what copy,
/// paste, delete, Rename in Editor, `!` and Copy Paths act on already.
extension AppState {
  /// `A` / `*`: every row of the folder marked, or each row's mark turned over. (A filter being
  /// typed takes the keys: these come after it, on the whole folder.)
  mutating func markAll(_ mode: BulkMarking.Mode) -> [Effect] {
    guard tab == .browse else { return [] }
    var marking = BulkMarking(mode: mode, ticket: browse.ticket, before: browse.marked)
    for (page, items) in browse.list.pages {
      apply(marking, to: items)
      marking.done.insert(page)
    }
    browse.bulkMarking = marking
    return continueBulkMarking()
  }

  /// `C`: no marks.
  mutating func clearMarks() -> [Effect] {
    guard tab == .browse else { return [] }
    let had = browse.marked.count
    browse.bulkMarking = nil
    browse.marked = []
    browse.lastMarked = nil
    message = StatusMessage(had == 0 ? "Nothing was marked" : "Cleared \(AppView.grouped(had)) mark\(had == 1 ? "" : "s")")
    return []
  }

  /// `M`: every row from the last item marked to the cursor, both included.
  mutating func markRange() -> [Effect] {
    guard tab == .browse else { return [] }
    guard let anchor = browse.lastMarked, let raw = browseIndex(of: anchor),
      let from = filteredIndexes.map({ $0.firstIndex(of: raw) }) ?? raw
    else {
      let key = keyMap.keys(for: .mark).first ?? "space"
      message = StatusMessage("Mark an item first (\(key)): M then marks from it to the cursor", isError: true)
      return []
    }
    var skipped = 0
    for row in min(from, browse.cursor)...max(from, browse.cursor) {
      guard let item = visibleBrowseItem(at: row) else {
        skipped += 1
        continue
      }
      if isPendingUpload(item) { continue }
      setMark(item, on: true)
    }
    if let item = currentItem { browse.lastMarked = item.identifier }
    message = StatusMessage(
      markedMessage() + (skipped > 0 ? " (\(AppView.grouped(skipped)) rows not loaded were left out)" : ""),
      isError: skipped > 0)
    return []
  }

  /// A page arrived while `A` or `*` reads the folder: it is marked, and the next chunk asked for
  /// once the one asked for is here.
  mutating func bulkMarkingPageArrived(offset: Int) -> [Effect] {
    guard var marking = browse.bulkMarking else { return [] }
    guard marking.ticket == browse.ticket else {
      browse.bulkMarking = nil
      return []
    }
    let page = offset / browse.list.pageSize
    if let items = browse.list.pages[page] {
      apply(marking, to: items)
      marking.done.insert(page)
    }
    browse.bulkMarking = marking
    let upto = min(marking.next - 1, lastListPage ?? marking.next - 1)
    guard upto < 0 || (0...upto).allSatisfy(marking.done.contains) else { return [] }
    return continueBulkMarking()
  }

  /// The last page of the listing, when its length is known.
  var lastListPage: Int? {
    let size = browse.list.pageSize
    if let total = browse.list.total { return (total - 1) / size }
    if browse.list.complete { return (browse.list.count - 1) / size }
    return nil
  }

  /// Asks for the next pages not marked yet, or ends the marking and says how many are marked.
  mutating func continueBulkMarking() -> [Effect] {
    guard var marking = browse.bulkMarking else { return [] }
    let limitPage = (Self.filterReadLimit - 1) / browse.list.pageSize
    let last = lastListPage.map { min($0, limitPage) } ?? limitPage
    var next = marking.next
    while next <= last, marking.done.contains(next) { next += 1 }
    if next > last {
      browse.bulkMarking = nil
      let capped = (lastListPage ?? 0) > limitPage
      message = StatusMessage(
        markedMessage() + (capped ? " (in the first \(AppView.grouped(Self.filterReadLimit)) rows)" : ""))
      return []
    }
    let chunk = next...min(last, next + Self.filterChunkPages - 1)
    marking.next = chunk.upperBound + 1
    browse.bulkMarking = marking
    message = StatusMessage("Marking… \(AppView.grouped(browse.marked.count)) so far (reading the folder)")
    return [.requestPages(ticket: browse.ticket, pages: chunk)]
  }

  func markedMessage() -> String {
    let n = browse.marked.count
    return n == 0 ? "No marks" : "\(AppView.grouped(n)) marked"
  }

  private mutating func apply(_ marking: BulkMarking, to items: [Item]) {
    for item in items {
      setMark(item, on: marking.mode == .all || !marking.before.contains(item.identifier))
    }
  }

  /// Marks or unmarks one item (never a new file still on its way up: no operation takes it).
  mutating func setMark(_ item: Item, on: Bool) {
    if on {
      guard !isPendingUpload(item) else { return }
      browse.markedItems[item.identifier] = item
      browse.marked.insert(item.identifier)
    } else {
      browse.marked.remove(item.identifier)
    }
  }
}
