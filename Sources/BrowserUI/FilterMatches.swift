import ProviderAPI

/// The rows a Browse filter matches, kept between actions (yazi's cached derived values).
///
/// Drawing a frame asks for the filtered rows once per row it draws, and every page that
/// arrives while a filter reads the folder is an action: searching every loaded row each time
/// made a filter over a 20,000-entry folder take minutes (a row count and a row for each of 40
/// screen lines, over all the rows read so far, for each of 100 pages). Now each page is
/// searched once when it arrives, a longer text (`/f` → `/fo`) searches only what the shorter one
/// matched, and a frame reads the result.
///
/// Pages are compared by their arrays: an unchanged page is the same storage as the list's, so
/// the comparison costs nothing, and a page changed in place (a transfer finished) is a copy and
/// is searched again.
public struct FilterMatches: Sendable {
  struct Page: Sendable {
    var items: [Item]
    /// The names as the filter compares them (lower case), made once per page.
    var names: [String]
    /// Offsets in the page of the rows that match.
    var matches: [Int]
  }

  private(set) var needle = ""
  private var pageSize = 0
  private var uploads: [UploadRow] = []
  private var pages: [Int: Page] = [:]
  /// The matching rows' indexes: upload rows first (their own indexes), then the list's rows
  /// (after the upload rows), ascending.
  private(set) var rows: [Int] = []

  public init() {}

  /// The text as rows are compared with it.
  static func needle(_ filter: String) -> String { filter.lowercased() }

  static func matches(_ name: String, _ needle: String) -> Bool { name.contains(needle) }

  /// Whether ``rows`` are the matches of `needle` over these rows.
  func isCurrent(needle: String, uploads: [UploadRow], list: PagedList) -> Bool {
    guard needle == self.needle, list.pageSize == pageSize, pages.count == list.pages.count, uploads == self.uploads else {
      return false
    }
    for (p, items) in list.pages {
      guard let kept = pages[p], kept.items == items else { return false }
    }
    return true
  }

  /// Brings ``rows`` up to date: pages that are new or changed are searched, the others only
  /// when the text changed — and then only their previous matches when the new text contains
  /// the old one.
  mutating func update(needle: String, uploads: [UploadRow], list: PagedList) {
    guard !isCurrent(needle: needle, uploads: uploads, list: list) else { return }
    let narrowing = !self.needle.isEmpty && needle.contains(self.needle)
    let sameText = needle == self.needle
    var fresh: [Int: Page] = [:]
    for (p, items) in list.pages {
      if var kept = pages[p], kept.items == items, list.pageSize == pageSize {
        if !sameText {
          let candidates = narrowing ? kept.matches : Array(kept.names.indices)
          kept.matches = candidates.filter { Self.matches(kept.names[$0], needle) }
        }
        fresh[p] = kept
      } else {
        let names = items.map { $0.filename.displayString.lowercased() }
        fresh[p] = Page(items: items, names: names, matches: names.indices.filter { Self.matches(names[$0], needle) })
      }
    }
    self.needle = needle
    self.pageSize = list.pageSize
    self.uploads = uploads
    self.pages = fresh
    var out: [Int] = []
    for (i, row) in uploads.enumerated() where Self.matches(row.item.filename.displayString.lowercased(), needle) {
      out.append(i)
    }
    let u = uploads.count
    for p in fresh.keys.sorted() {
      let base = u + p * list.pageSize
      for i in fresh[p]!.matches { out.append(base + i) }
    }
    rows = out
  }
}
