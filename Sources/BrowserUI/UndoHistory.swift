import ProviderAPI

/// One change that Undo (`u`) can take back, as the action left the item.
///
/// A step names the item where the action put it and where it was before: undoing checks that
/// the item is still there, unchanged, and that its old place is free, then puts it back. The
/// inverse step (the item where undo put it, and where it was) is what Redo runs, so undo and
/// redo are one operation run in two directions (`BrowserApp+Undo.swift`).
public enum UndoStep: Sendable, Equatable {
  /// Renamed or moved within its location: `item` is it now; it was at `from`.
  case moved(Item, from: ItemPath)
  /// Put in Recently Deleted: `item` is it there; it was at `from` (undo restores it).
  case trashed(Item, from: ItemPath)
  /// Taken back out of Recently Deleted by an undo: `item` is it now (redo deletes it again).
  case restored(Item)

  /// The item as the action left it.
  public var item: Item {
    switch self {
    case .moved(let i, _), .trashed(let i, _), .restored(let i): return i
    }
  }
}

/// A user action that can be undone as one step: a rename, a move (Move To…, a cut and paste),
/// a deletion, a Rename in Editor batch.
public struct UndoRecord: Sendable, Equatable {
  public var domain: DomainIdentifier
  /// What it was, for the status line: "the rename of “a.txt”", "the move of 3 items".
  public var title: String
  public var steps: [UndoStep]

  public init(domain: DomainIdentifier, title: String, steps: [UndoStep]) {
    self.domain = domain
    self.title = title
    self.steps = steps
  }

  /// "“a.txt”" or "3 items", for titles.
  public static func what(_ items: [Item]) -> String {
    items.count == 1 ? "“\(items[0].filename.displayString)”" : "\(items.count) items"
  }
}

/// The session's undo and redo lists, as the Files app keeps them: bounded, newest last; a new
/// action clears what could be redone.
public struct UndoHistory: Sendable, Equatable {
  /// How many actions are kept: older ones fall off the front.
  public static let limit = 50
  public var done: [UndoRecord] = []
  public var undone: [UndoRecord] = []
  /// An undo or redo is running: another waits for it (each checks the world the last one left).
  public var isRunning = false

  public init() {}

  /// A new action: it can be undone; what was undone before can no longer be redone.
  public mutating func record(_ r: UndoRecord) {
    done.append(r)
    if done.count > Self.limit { done.removeFirst(done.count - Self.limit) }
    undone = []
  }
}
