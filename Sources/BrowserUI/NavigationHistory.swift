import ProviderAPI

/// The folders shown, as a web browser keeps its pages: going to a folder by any means (Enter,
/// Backspace, the sidebar, Go to, a favorite) pushes the one left, with the item the cursor was
/// on; `H` goes back and `L` forward, across locations, and the cursor comes back to its item.
///
/// Kept apart from `BrowseState.back` (what Backspace returns to from Recently Deleted), which is
/// a different question: where "up" goes, not where the person has been.
public struct NavigationHistory: Sendable, Equatable {
  /// A folder (or Recently Deleted) and the item the cursor was on there.
  public struct Entry: Sendable, Equatable {
    public var location: BrowseLocation
    public var item: ItemIdentifier?
    public init(location: BrowseLocation, item: ItemIdentifier?) {
      self.location = location
      self.item = item
    }
  }

  public private(set) var back: [Entry] = []
  public private(set) var forward: [Entry] = []
  /// Entries kept behind: enough for a day's wandering, bounded so a long session stays small.
  public static let limit = 200

  public init() {}

  /// Leaving `current` for another folder: it is pushed, and what was ahead is dropped (a browser
  /// forgets its forward pages when a link is followed).
  public mutating func visit(leaving current: Entry) {
    back.append(current)
    if back.count > Self.limit { back.removeFirst(back.count - Self.limit) }
    forward = []
  }

  /// The entry behind, `current` kept ahead of it; nil at the start.
  public mutating func goBack(from current: Entry) -> Entry? {
    guard let e = back.popLast() else { return nil }
    forward.append(current)
    return e
  }

  /// The entry ahead, `current` kept behind it; nil at the end.
  public mutating func goForward(from current: Entry) -> Entry? {
    guard let e = forward.popLast() else { return nil }
    back.append(current)
    return e
  }
}

extension AppState {
  /// Goes back (`H`) or forward (`L`) in the history of folders shown, the cursor on the item it
  /// was on there.
  mutating func goInHistory(forward: Bool) -> [Effect] {
    let here = NavigationHistory.Entry(location: browse.location, item: visibleBrowseItem(at: browse.cursor)?.identifier)
    guard let entry = forward ? history.goForward(from: here) : history.goBack(from: here) else {
      message = StatusMessage(forward ? "Nothing ahead in the history" : "Nothing behind in the history")
      return []
    }
    tab = .browse
    sidebar.focused = false
    return go(to: entry.location, select: entry.item, pushBack: false, record: false)
  }
}
