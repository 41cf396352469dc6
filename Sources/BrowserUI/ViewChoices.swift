import ProviderAPI

/// The sort and the hidden-files choice, kept between runs in `$XDG_STATE_HOME/folio/view`.
///
/// One choice for every folder, as ranger and lf keep theirs (docs/DECISIONS.md): a person who
/// sorts by date or shows hidden files does it as a habit, not for one folder, and a per-folder
/// memory surprises more than it helps (Finder's per-folder views are its most asked-about
/// setting). The file is a few `key = value` lines a person can read; anything it does not
/// understand is ignored, so an older or newer Folio never refuses to start over it.
public struct ViewChoices: Sendable, Equatable {
  public var sort: ItemSort
  public var showHidden: Bool

  public init(sort: ItemSort = .default, showHidden: Bool = false) {
    self.sort = sort
    self.showHidden = showHidden
  }

  /// The file's text.
  public var text: String {
    """
    # Folio keeps the browser's sort and hidden-files choice here (s and . in the browser).
    sort = \(sort.key.rawValue)
    ascending = \(sort.ascending)
    folders-first = \(sort.foldersFirst)
    hidden = \(showHidden)

    """
  }

  /// The choices a file's text holds; what is missing or not understood keeps its default.
  public init(text: String) {
    self.init()
    for line in text.split(whereSeparator: \.isNewline) {
      let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
      guard parts.count == 2, !parts[0].hasPrefix("#") else { continue }
      let value = parts[1]
      switch parts[0] {
      case "sort": if let key = ItemSort.Key(rawValue: value) { sort.key = key }
      case "ascending": if let b = Bool(value) { sort.ascending = b }
      case "folders-first": if let b = Bool(value) { sort.foldersFirst = b }
      case "hidden": if let b = Bool(value) { showHidden = b }
      default: continue
      }
    }
  }
}

extension Substring {
  fileprivate var trimmingSpaces: String {
    String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
  }
}

extension AppState {
  /// The choices as they are now, for `Effect.saveViewChoices`.
  public var viewChoices: ViewChoices { ViewChoices(sort: sort, showHidden: showHidden) }

}
