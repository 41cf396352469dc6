import ProviderAPI

/// What `y` (Copy) took: the items and the location they belong to. Only the items are kept, not
/// their bytes: Paste reads them when it runs, as Finder does, so a file edited after Copy is
/// pasted as it is then.
///
/// Or what `Y` (Copy Paths) took: text, the selection's paths one per line. One clipboard, as in
/// the Files app: copying text replaces items copied before, and the other way round.
public struct Clipboard: Sendable, Equatable {
  public var items: [Item]
  public var domain: DomainIdentifier
  /// The text copied (bytes: a path need not be UTF-8); nil when items were copied.
  public var text: [UInt8]?
  /// `x` (Cut) took the items: Paste moves them (yazi's and the Files app's cut), once.
  public var isCut = false

  public init(items: [Item], domain: DomainIdentifier, text: [UInt8]? = nil, isCut: Bool = false) {
    self.items = items
    self.domain = domain
    self.text = text
    self.isCut = isCut
  }
}

extension AppState {
  /// Copy: the selection (the marked items, else the one under the cursor) goes to Folio's
  /// clipboard. Nothing is read yet; the marks are cleared so the next Space starts afresh.
  mutating func copyToClipboard(_ items: [Item], domain: DomainIdentifier, cut: Bool = false) -> [Effect] {
    guard !items.isEmpty else { return [] }
    if tab == .browse, case .trash = browse.location {
      message = StatusMessage("Restore it first: items in Recently Deleted cannot be \(cut ? "cut" : "copied")", isError: true)
      return []
    }
    clipboard = Clipboard(items: items, domain: domain, isCut: cut)
    if tab == .browse { browse.marked = [] }
    let what = items.count == 1 ? "“\(items[0].filename.displayString)”" : "\(items.count) items"
    message = StatusMessage(cut ? "Cut \(what) — p moves \(items.count == 1 ? "it" : "them") here" : "Copied \(what) — p pastes")
    return []
  }

  /// Paste: the clipboard's items into the folder being browsed. Where they come from decides what
  /// the app does (a copy in the provider, an upload, a download); the clipboard stays, so the same
  /// items can be pasted again elsewhere.
  mutating func pasteClipboard() -> [Effect] {
    guard let clipboard, !clipboard.items.isEmpty else {
      let holdsText = clipboard?.text != nil
      message = StatusMessage(
        holdsText
          ? "The clipboard holds paths (text), not items: y copies the selection to paste it"
          : "Nothing to paste: y copies the selection first", isError: true)
      return []
    }
    guard tab == .browse else {
      message = StatusMessage("Cannot paste into Recents: open a folder first", isError: true)
      return []
    }
    guard case .folder(let folder) = browse.location else {
      message = StatusMessage("Cannot paste into Recently Deleted", isError: true)
      return []
    }
    let n = clipboard.items.count
    let what = n == 1 ? "“\(clipboard.items[0].filename.displayString)”" : "\(n) items"
    if clipboard.isCut {
      // A cut moves once: the items are no longer where the clipboard saw them afterwards.
      self.clipboard = nil
      message = StatusMessage("Moving \(what)…")
      return [.movePasted(clipboard.items, from: clipboard.domain, into: folder)]
    }
    message = StatusMessage("Pasting \(what)…")
    return [.paste(clipboard.items, from: clipboard.domain, into: folder)]
  }

  /// "Paste" in the context menu: only in a folder, and only when there is something to paste.
  var pasteMenuEntries: [MenuEntry] {
    guard tab == .browse, case .folder = browse.location, let clipboard, !clipboard.items.isEmpty else { return [] }
    return [MenuEntry(clipboard.isCut ? "Move Here (cut)" : "Paste", key: "p", .paste)]
  }
}
