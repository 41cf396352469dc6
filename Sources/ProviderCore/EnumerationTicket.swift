import ProviderAPI

/// Names one enumeration. A newer ticket in the same slot makes older ones stale: their late pages
/// are dropped, never merged into what the reader shows.
public struct EnumerationTicket: Hashable, Sendable, Comparable, CustomStringConvertible {
  public let rawValue: UInt64
  public init(rawValue: UInt64) { self.rawValue = rawValue }
  public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
  public var description: String { "#\(rawValue)" }
}

/// What an enumeration reports to its reader, on one stream.
public enum EnumerationEvent: Sendable {
  /// Work before the first page (reading a huge folder, reading metadata to sort by date).
  case progress(EnumerationTicket, EnumerationProgress)
  /// Items `offset ..< offset + items.count` in the enumeration's order.
  case page(EnumerationTicket, offset: Int, items: [Item], totalCount: Int?, isComplete: Bool)
  /// The enumeration started over (the provider said pageExpired); drop what was shown.
  case restarted(EnumerationTicket)
  /// The container changed (inotify, push): the reader should enumerate it again.
  case containerChanged(EnumerationTicket)
  /// The provider said what the container was when its first page was read
  /// (`ItemPage.container`), and how many entries the listing holds: the browser hands both to
  /// the change poller, so that a poll finding the folder as listed reloads nothing.
  case containerRead(EnumerationTicket, Item, totalCount: Int?)
  case failed(EnumerationTicket, ProviderError)

  public var ticket: EnumerationTicket {
    switch self {
    case .progress(let t, _), .page(let t, _, _, _, _), .restarted(let t), .containerChanged(let t), .failed(let t, _),
      .containerRead(let t, _, _):
      return t
    }
  }
}
