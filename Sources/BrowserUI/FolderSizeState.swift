import ProviderAPI

/// What the walk of a folder has counted so far (`Effect.countFolder`).
public struct FolderTally: Sendable, Equatable {
  /// Files and folders below the folder (the folder itself not counted).
  public var items = 0
  /// The files' sizes added up (a provider that gives no size counts 0 for it).
  public var bytes: Int64 = 0
  /// Folders that could not be listed (no permission, gone meanwhile): counted, not entered.
  public var unreadable = 0

  public init(items: Int = 0, bytes: Int64 = 0, unreadable: Int = 0) {
    self.items = items
    self.bytes = bytes
    self.unreadable = unreadable
  }
}

/// The size of the folder shown in Info, counted on demand (`z`), in the background.
public struct FolderSizeState: Sendable, Equatable {
  public enum Phase: Sendable, Equatable { case counting, finished, stopped }
  public var folder: ItemIdentifier
  public var ticket: UInt64
  public var tally = FolderTally()
  public var phase = Phase.counting

  public init(folder: ItemIdentifier, ticket: UInt64) {
    self.folder = folder
    self.ticket = ticket
  }

  /// Info's "Size" row for a folder.
  public var text: String {
    let t = tally
    let items = "\(t.items) item\(t.items == 1 ? "" : "s")"
    let unreadable = t.unreadable == 0 ? "" : ", \(t.unreadable) unreadable folder\(t.unreadable == 1 ? "" : "s")"
    switch phase {
    case .counting: return "counting… \(items), \(SizeText.short(t.bytes)) so far\(unreadable) (Esc stops)"
    case .finished: return "\(SizeText.short(t.bytes)) (\(t.bytes) bytes) in \(items)\(unreadable)"
    case .stopped: return "stopped at \(items), \(SizeText.short(t.bytes))\(unreadable) (z counts again)"
    }
  }

  /// The row before any count.
  public static let notCounted = "—  (press z to compute)"
}

extension AppState {
  /// `z` in Info of a folder: count it (again). A count running for another folder is stopped.
  mutating func countFolderSize(_ item: Item, domain: DomainIdentifier) -> [Effect] {
    guard item.isFolder, !item.isTrashed else { return [] }
    var effects = stopFolderCount()
    let ticket = nextTicket
    nextTicket += 1
    folderSize = FolderSizeState(folder: item.identifier, ticket: ticket)
    effects.append(.countFolder(ticket: ticket, item, domain))
    return effects
  }

  /// Stops a count that is running (Esc, Info closed); what it counted stays, marked stopped.
  mutating func stopFolderCount() -> [Effect] {
    guard var f = folderSize, f.phase == .counting else { return [] }
    f.phase = .stopped
    folderSize = f
    return [.cancelFolderCount(ticket: f.ticket)]
  }

  mutating func folderCounted(ticket: UInt64, _ tally: FolderTally, finished: Bool) -> [Effect] {
    guard var f = folderSize, f.ticket == ticket, f.phase == .counting else { return [] }
    f.tally = tally
    if finished { f.phase = .finished }
    folderSize = f
    return []
  }

  /// Info's Size row of a folder: the count when it is of this folder, else how to start one.
  func folderSizeText(_ item: Item) -> String {
    guard let f = folderSize, f.folder == item.identifier else { return FolderSizeState.notCounted }
    return f.text
  }
}
