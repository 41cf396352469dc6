import Foundation
import ProviderAPI

/// Every status message of the session, with when it was said: the status line holds one message
/// for one key press and cuts a long one; `W` (ranger's log key) lists them all, whole.
///
/// Kept in the state (bounded to ``limit`` entries, the oldest dropped first) so the log overlay
/// is a view like any other. The reducer records a message whenever the status line's message
/// changes; the time comes from ``now``, which the app sets before each action (the reducer reads
/// no clock: tests set it).
public struct MessageLog: Sendable, Equatable {
  /// One message as it was shown, already sanitised for the terminal.
  public struct Entry: Sendable, Equatable {
    public var date: Date
    public var text: String
    public var isError: Bool
  }

  /// How many messages are kept: a session that says something on every key keeps its last
  /// screens' worth and a bounded amount of memory.
  public static let limit = 500

  /// Oldest first (the overlay shows them newest first).
  public private(set) var entries: [Entry] = []
  /// The time of the action being reduced (set by the app; left out of `==`, it is an input).
  public var now = Date(timeIntervalSince1970: 0)

  public init() {}

  /// Keeps `message`, stamped with ``now``. Its text is escaped again as a message is (a
  /// backslash stays one): what reaches the log can never reach the terminal raw.
  public mutating func record(_ message: StatusMessage) {
    entries.append(Entry(date: now, text: TerminalText.escapeMessage(message.text), isError: message.isError))
    if entries.count > Self.limit { entries.removeFirst(entries.count - Self.limit) }
  }

  public static func == (a: MessageLog, b: MessageLog) -> Bool { a.entries == b.entries }
}
