import PreviewKit
import ProviderAPI

/// What the preview pane is asked to show: the item under the cursor, where it is, and the size
/// of the pane (a picture is rendered for it).
public struct PreviewSubject: Sendable, Equatable {
  public var item: Item
  public var domain: DomainIdentifier
  public var columns: Int
  public var rows: Int

  public init(item: Item, domain: DomainIdentifier, columns: Int, rows: Int) {
    self.item = item
    self.domain = domain
    self.columns = columns
    self.rows = rows
  }
}

/// The preview pane: whether it is shown, what it is asked for, what it shows.
///
/// Latest wins (yazi's design): every new subject takes a new ticket, the app cancels the job of
/// the one before, and an answer with an older ticket is dropped. The preview shown stays until
/// the new one arrives, or until "loading…" is due (100 ms, lf's delay), so moving through a folder
/// does not flash.
public struct PreviewPaneState: Sendable, Equatable {
  public enum Visibility: String, Sendable, Equatable {
    /// Shown from ``Layout/paneAutomaticWidth`` columns.
    case automatic
    case shown
    case hidden
  }

  public var visibility: Visibility = .automatic
  /// The preview has the whole screen, for reading (its own keys scroll it).
  public var full = false
  /// What the pane is asked to show (nil: nothing, or the pane is not shown).
  public internal(set) var subject: PreviewSubject?
  public internal(set) var ticket: UInt64 = 0
  /// The preview drawn, and the ticket it answered.
  public internal(set) var shown: Preview?
  public internal(set) var shownTicket: UInt64 = 0
  /// The item `shown` is of (the header line describes it, even while the next one loads).
  public internal(set) var shownSubject: PreviewSubject?
  /// The answer for `ticket` is late: "loading…" replaces the previous preview.
  public internal(set) var loadingVisible = false
  /// The first line of the body on screen.
  public internal(set) var scroll = 0

  public init() {}

  /// The current answer is on screen.
  public var isCurrent: Bool { subject != nil && shownTicket == ticket }

  public static func == (a: PreviewPaneState, b: PreviewPaneState) -> Bool {
    a.visibility == b.visibility && a.full == b.full && a.subject == b.subject && a.ticket == b.ticket
      && a.shownTicket == b.shownTicket && a.loadingVisible == b.loadingVisible && a.scroll == b.scroll
      && a.shownSubject == b.shownSubject
  }
}
