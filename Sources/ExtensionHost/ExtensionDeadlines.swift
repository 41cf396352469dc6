import Foundation

/// The kinds of call whose deadlines and limits differ (docs/EXTENSIONS.md §5).
public enum CallClass: String, Sendable {
  /// `describe`, `initialize`, `shutdown`.
  case setup
  /// `item`, a page, an anchor, changes, a delete, a modify without content, `about`.
  case metadata
  /// `fetchContents`: no overall limit, a stall after a time without progress.
  case download
  /// `createItem`/`modifyItem` with content.
  case upload
  case action
  case authenticate
}

/// How long the host waits, by call class. Not negotiated with the extension: the host's
/// protection against a hung one. Tests shorten them.
public struct ExtensionDeadlines: Sendable, Equatable {
  public var setup: TimeInterval = 10
  /// A metadata call's deadline, extended by each `$/progress` up to ``metadataCap``.
  public var metadata: TimeInterval = 30
  public var metadataCap: TimeInterval = 300
  /// A transfer with no progress for this long is a stall.
  public var stall: TimeInterval = 60
  public var action: TimeInterval = 300
  public var authenticate: TimeInterval = 60
  /// After `$/cancelRequest`, how long the extension has to answer before it counts as hung.
  public var cancelGrace: TimeInterval = 5

  public init() {}

  public static let standard = ExtensionDeadlines()

  /// When a call started at `start`, last heard of at `lastProgress`, is overdue.
  func deadline(for cls: CallClass, start: Date, lastProgress: Date?) -> Date {
    switch cls {
    case .setup: return start + setup
    case .metadata:
      let extended = (lastProgress ?? start) + metadata
      return min(extended, start + max(metadataCap, metadata))
    case .download, .upload: return (lastProgress ?? start) + stall
    case .action: return start + action
    case .authenticate: return start + authenticate
    }
  }
}
