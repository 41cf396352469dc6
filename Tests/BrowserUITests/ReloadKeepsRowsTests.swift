import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// A reload of the folder on screen (a change signal, a finished upload, Ctrl-R) keeps the rows
/// shown until the new listing's first page comes: a remote folder reloads often, and blanking it
/// for a round trip each time made it flicker.
@Suite struct ReloadKeepsRowsTests {
  typealias F = RemoteFixture

  func names(_ s: AppState) -> [String] {
    (0..<s.browseCount).compactMap { s.visibleBrowseItem(at: $0)?.filename.displayString }
  }

  @Test func theRowsStayUntilTheNewFirstPageReplacesThem() {
    var s = F.state()
    let before = names(s)
    let old = s.browse.ticket
    let effects = s.reduce(.folderChanged(ticket: old))
    #expect(effects.contains(.closeEnumeration(ticket: old)))
    #expect(s.browse.ticket != old)
    #expect(names(s) == before, "the rows are still there while the folder is read again")
    let status = AppView.render(s).textLines().last ?? ""
    #expect(status.contains("\(F.items.count) items") && !status.contains("loading"))
    // The new listing: one item fewer. It replaces the old rows at once, not merged with them.
    let fewer = Array(F.items.dropLast())
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: fewer, total: fewer.count, isComplete: true))
    #expect(names(s) == fewer.map(\.filename.displayString))
    #expect(!s.browse.replaceOnFirstPage && !s.browse.isLoading)
    // A page of the old listing that comes late changes nothing.
    _ = s.reduce(.pageLoaded(ticket: old, offset: 0, items: F.items, total: F.items.count, isComplete: true))
    #expect(names(s) == fewer.map(\.filename.displayString))
  }

  @Test func aFailedReloadShowsItsErrorNotTheOldRows() {
    var s = F.state()
    _ = s.reduce(.folderChanged(ticket: s.browse.ticket))
    _ = s.reduce(.loadFailed(ticket: s.browse.ticket, ProviderError(.serverUnreachable, "cannot reach demo: connection refused")))
    #expect(s.browseCount == 0)
    #expect(AppView.render(s).textLines().joined(separator: "\n").contains("cannot reach demo: connection refused"))
  }

  @Test func anotherFolderStartsEmpty() {
    var s = F.state()
    #expect(s.currentItem?.isFolder == true)
    let before = s.browse.location
    _ = s.reduce(.key(.enter))
    #expect(s.browse.location != before)
    #expect(s.browse.list.isEmpty, "another folder's rows are its own, once they come")
    #expect(!s.browse.replaceOnFirstPage)
  }
}

extension ReloadKeepsRowsTests {
  /// Another order, or hidden files shown: the listing itself changes, so it starts empty (and
  /// the status line can show the metadata progress of a big folder's sort by date).
  @Test func anotherSortOrHiddenFilesStartEmpty() {
    var s = F.state()
    s.press(.character("."))
    #expect(s.browse.list.isEmpty && !s.browse.replaceOnFirstPage)
    var t = F.state()
    t.press(.character("s"))
    t.press(.down, .enter)
    #expect(t.browse.list.isEmpty && !t.browse.replaceOnFirstPage, "\(t.message?.text ?? "")")
  }
}
