import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// A folder of `total` numbered rows served in pages, as the app's enumeration would.
struct PagedFolder {
  var total: Int
  /// When false the provider does not say how many rows there are until the last page.
  var announcesTotal = true

  func page(_ p: Int, pageSize: Int) -> [Item] {
    let lo = p * pageSize
    guard lo < total else { return [] }
    return Fixture.numbered(lo..<min(total, lo + pageSize))
  }

  func isLast(_ p: Int, pageSize: Int) -> Bool { (p + 1) * pageSize >= total }

  /// A started state at 80x`height` in this folder, with its first `firstPages` pages.
  func state(pageSize: Int = 200, height: Int = 24, firstPages: Int = 1) -> AppState {
    var s = AppState(width: 80, height: height, start: Fixture.start, locations: Fixture.locations)
    s.timeZone = Fixture.utc
    s.browse.list = PagedList(pageSize: pageSize)
    _ = s.start()
    for p in 0..<firstPages { deliver(p, to: &s) }
    return s
  }

  func deliver(_ p: Int, to s: inout AppState, ticket: UInt64? = nil) {
    let size = s.browse.list.pageSize
    let last = isLast(p, pageSize: size)
    _ = s.reduce(
      .pageLoaded(
        ticket: ticket ?? s.browse.ticket, offset: p * size, items: page(p, pageSize: size),
        total: announcesTotal || last ? total : nil, isComplete: last))
  }

  /// Answers the page requests among `effects` (and those the answers lead to); returns how many
  /// pages were served.
  @discardableResult
  func serve(_ effects: [Effect], to s: inout AppState) -> Int {
    var pending = effects
    var served = 0
    let lastPage = max(0, (total - 1) / s.browse.list.pageSize)
    while let e = pending.first {
      pending.removeFirst()
      guard case .requestPages(let t, let pages) = e, t == s.browse.ticket else { continue }
      for p in pages.lowerBound...min(pages.upperBound, lastPage) {
        deliver(p, to: &s)
        served += 1
      }
      pending += s.reduce(.resized(width: s.width, height: s.height))
    }
    return served
  }
}

extension [Effect] {
  var pageRequests: [ClosedRange<Int>] {
    compactMap { if case .requestPages(_, let p) = $0 { return p } else { return nil } }
  }

  /// The tickets of the enumerations these effects start.
  var enumerations: [(ticket: UInt64, location: BrowseLocation, sort: ItemSort, hidden: Bool)] {
    compactMap {
      if case .enumerate(let t, let l, let s, let h, _) = $0 { return (t, l, s, h) } else { return nil }
    }
  }
}

/// The reducer: keys, pages and engine answers in, state and effects out. No I/O.
@Suite struct AppStateReduceTests {
  // MARK: Navigation

  @Test func jkAndArrowsMoveAndStopAtTheEnds() {
    var s = Fixture.state()
    s.press(.character("k"))
    #expect(s.browse.cursor == 0)
    s.press(.character("j"), .down, .down)
    #expect(s.browse.cursor == 3)
    s.press(.up, .character("k"))
    #expect(s.browse.cursor == 1)
    for _ in 0..<40 { s.press(.character("j")) }
    #expect(s.browse.cursor == Fixture.corpus.count - 1)
    #expect(s.currentItem?.identifier == Fixture.corpus.last?.identifier)
  }

  @Test func ggGoesToTheTopAndAnotherKeyCancelsTheFirstG() {
    var s = Fixture.state()
    s.press(.character("G"))
    #expect(s.browse.cursor == 19)
    s.press(.character("g"))
    #expect(s.browse.cursor == 19, "one g waits for the second")
    #expect(s.pendingKey == "g")
    s.press(.character("k"))
    #expect(s.browse.cursor == 18)
    #expect(s.pendingKey == nil)
    s.press(.character("g"), .character("g"))
    #expect(s.browse.cursor == 0)
    #expect(s.browse.top == 0)
  }

  @Test func pageKeysHomeAndEndJump() {
    let folder = PagedFolder(total: 100)
    var s = folder.state()
    #expect(s.listHeight == 20)
    s.press(.pageDown)
    #expect(s.browse.cursor == 20)
    s.press(.control("f"))
    #expect(s.browse.cursor == 40)
    s.press(.pageUp)
    #expect(s.browse.cursor == 20)
    s.press(.control("b"), .control("b"))
    #expect(s.browse.cursor == 0)
    s.press(.end)
    #expect(s.browse.cursor == 99)
    #expect(s.browse.top == 80, "the last row is at the bottom of the viewport")
    s.press(.home)
    #expect(s.browse.cursor == 0)
    #expect(s.browse.top == 0)
  }

  @Test func theCursorStaysInsideTheViewport() {
    var s = PagedFolder(total: 100).state()
    for _ in 0..<50 {
      s.press(.down)
      #expect(s.browse.top <= s.browse.cursor && s.browse.cursor < s.browse.top + s.listHeight)
    }
    #expect(s.browse.top == 50 - s.listHeight + 1)
  }

  @Test func bottomOfAListOfUnknownLengthAsksForTheRestAndLandsOnTheLastRow() {
    let folder = PagedFolder(total: 1_000, announcesTotal: false)
    var s = folder.state(pageSize: 100)
    #expect(s.browse.list.total == nil)
    let effects = s.press(.character("G"))
    #expect(effects.pageRequests.count == 1)
    #expect(effects.pageRequests.first.map { $0.lowerBound <= 1 && $0.upperBound >= 9 } == true)
    folder.serve(effects, to: &s)
    #expect(s.browse.list.complete)
    #expect(s.browse.cursor == 999, "G follows the end once it is known")
    #expect(s.currentItem?.identifier == ItemIdentifier("n999"))
  }

  // MARK: Paging

  @Test func pagesAreRequestedAsTheViewportNearsThem() {
    var s = PagedFolder(total: 1_000).state(pageSize: 50)
    // The viewport plus one screen (40 rows) stays inside page 0 until the top passes row 10.
    for _ in 0..<29 { #expect(s.press(.down).pageRequests.isEmpty) }
    #expect(s.press(.down).pageRequests == [1...1])
    #expect(s.browse.top == 11)
  }

  @Test func theNextPageOfAListOfUnknownLengthIsRequestedNearItsEnd() {
    let folder = PagedFolder(total: 1_000, announcesTotal: false)
    var s = folder.state(pageSize: 50)
    #expect(s.browse.list.count == 50)
    var requests: [ClosedRange<Int>] = []
    for _ in 0..<40 { requests += s.press(.down).pageRequests }
    #expect(requests.first == 1...1)
    #expect(s.browse.cursor == 40)
  }

  @Test func aJumpAsksForThePagesAtTheDestination() {
    var s = PagedFolder(total: 1_000_000).state()
    let effects = s.press(.end)
    #expect(s.browse.cursor == 999_999)
    #expect(effects.pageRequests == [4_999...4_999])
    // Until it arrives the rows are there but empty: drawn as placeholders, never a crash.
    #expect(s.currentItem == nil)
    _ = Snapshots.setUp
    #expect(screenProblems(AppView.render(s)).isEmpty)
  }

  @Test func aMillionRowsNeverHoldMoreThanTheKeptPages() {
    let folder = PagedFolder(total: 1_000_000)
    var s = folder.state()
    let size = s.browse.list.pageSize
    let bound = (2 * PagedList.keptPages + 1) * size
    var keys: [KeyEvent] = [.end, .home]
    keys += Array(repeating: .pageDown, count: 150)
    keys += [.end] + Array(repeating: .pageUp, count: 150) + [.character("g"), .character("g")]
    keys += Array(repeating: .pageDown, count: 30)
    var served = 0
    for key in keys {
      served += folder.serve(s.press(key), to: &s)
      #expect(s.browse.list.loadedItems.count <= bound)
      // Every row of the viewport is there once the answers came.
      for row in s.browse.top..<min(s.browse.top + s.listHeight, folder.total) {
        #expect(s.visibleBrowseItem(at: row) != nil, "row \(row) not loaded")
      }
    }
    #expect(served > 20)
    #expect(s.browse.cursor == 30 * s.listHeight)
  }

  @Test func pagesThatArriveFarFromTheCursorAreNotKept() {
    let folder = PagedFolder(total: 1_000_000)
    var s = folder.state()
    for p in 1..<100 { folder.deliver(p, to: &s) }
    #expect(s.browse.list.pages.count <= 2 * PagedList.keptPages + 1)
    #expect(s.browse.list.hasRow(0), "the page under the cursor stays")
  }

  @Test func staleTicketsAreDropped() {
    var s = Fixture.state()
    let old = s.browse.ticket
    s.press(.enter)  // into Documents
    #expect(s.browse.ticket != old)
    #expect(s.browse.list.isEmpty)
    _ = s.reduce(.pageLoaded(ticket: old, offset: 0, items: Fixture.corpus, total: 20, isComplete: true))
    #expect(s.browse.list.isEmpty, "a page of the folder we left must not show up here")
    _ = s.reduce(.loadProgress(ticket: old, EnumerationProgress(phase: .sorting, completed: 1, total: 2)))
    #expect(s.browse.loading == nil)
    _ = s.reduce(.loadFailed(ticket: old, Fixture.unreachable))
    #expect(s.browse.error == nil)
    #expect(s.message == nil)
    #expect(s.reduce(.folderChanged(ticket: old)).isEmpty)
    #expect(s.reduce(.loadRestarted(ticket: old)).isEmpty)
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: Array(Fixture.corpus.prefix(2)), total: 2, isComplete: true))
    #expect(s.browse.list.count == 2)
  }

  @Test func aChangedFolderReloadsKeepingTheCursorItem() {
    var s = Fixture.state()
    s.press(.down, .down, .down)
    let id = s.currentItem?.identifier
    let old = s.browse.ticket
    let effects = s.reduce(.folderChanged(ticket: old))
    #expect(effects.first == .closeEnumeration(ticket: old))
    let new = effects.enumerations.first?.ticket
    #expect(new != nil && new != old)
    // The reloaded folder has one more item before it: the cursor follows the item.
    let items = [Fixture.item("Aardvark", id: "new", folder: true)] + Fixture.corpus
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: items, total: items.count, isComplete: true))
    #expect(s.currentItem?.identifier == id)
    #expect(s.browse.cursor == 4)
  }

  // MARK: Folders

  @Test func enteringAFolderClosesTheOldEnumerationAndStartsANewOne() throws {
    var s = Fixture.state()
    s.press(.down, .down)  // Projects
    let old = s.browse.ticket
    let effects = s.press(.enter)
    #expect(effects.count == 2)
    #expect(effects.first == .closeEnumeration(ticket: old))
    let e = try #require(effects.enumerations.first)
    #expect(e.ticket > old)
    #expect(e.ticket == s.browse.ticket)
    #expect(e.location == .folder(FolderLocation(domain: .local, identifier: ItemIdentifier("f-proj"), path: ItemPath("/home/ana/Projects"), name: "Projects")))
    #expect(e.sort == ItemSort())
    #expect(!e.hidden)
    #expect(s.browse.cursor == 0)
    #expect(s.browse.isLoading)
    // l and → enter too; a file opens instead.
    var t = Fixture.state()
    t.press(.down, .down, .character("l"))
    #expect(t.browse.location == s.browse.location)
    var u = Fixture.state()
    u.press(.end, .up, .up)
    #expect(u.press(.right) == [.open(Fixture.corpus[17], .local)])
  }

  @Test func backspaceReturnsToTheParentWithTheCursorOnTheFolderWeLeft() throws {
    var s = Fixture.state()
    s.press(.down, .down, .enter)  // into Projects
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: Fixture.numbered(0..<5), total: 5, isComplete: true))
    let old = s.browse.ticket
    let effects = s.press(.backspace)
    #expect(effects.first == .closeEnumeration(ticket: old))
    let e = try #require(effects.enumerations.first)
    guard case .folder(let parent) = e.location else {
      Issue.record("not a folder: \(e.location)")
      return
    }
    #expect(parent.path == Fixture.home)
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: Fixture.corpus, total: 20, isComplete: true))
    #expect(s.currentItem?.identifier == ItemIdentifier("f-proj"))
    #expect(s.browse.cursor == 2)
  }

  @Test func backspaceFromAFolderReachedByBackspaceStillFindsTheFolderWeLeft() {
    // Started in /home/ana (its identifier known), Backspace twice: /home, then /.
    var s = Fixture.state()
    s.press(.backspace)
    let home = [Fixture.item("ana", id: "home", folder: true, in: ItemPath("/home")), Fixture.item("bob", id: "bob", folder: true, in: ItemPath("/home"))]
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: home.reversed(), total: 2, isComplete: true))
    #expect(s.currentItem?.identifier == ItemIdentifier("home"))
    s.press(.backspace)
    let root = ["bin", "etc", "home", "usr"].map { Fixture.item($0, id: "root-\($0)", folder: true, in: .root) }
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: root, total: 4, isComplete: true))
    #expect(s.currentItem?.filename == ItemName("home"), "the cursor goes back to /home, known only by its path")
    // At the root of the location Backspace does nothing.
    #expect(s.press(.backspace).isEmpty)
  }

  @Test func returningToAFolderRestoresItsCursor() {
    var s = Fixture.state()
    s.press(.enter)  // Documents
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: Fixture.numbered(0..<30), total: 30, isComplete: true))
    s.press(.pageDown, .down)
    #expect(s.currentItem?.identifier == ItemIdentifier("n21"))
    s.press(.backspace)
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: Fixture.corpus, total: 20, isComplete: true))
    #expect(s.browse.cursor == 0)
    s.press(.enter)
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: Fixture.numbered(0..<30), total: 30, isComplete: true))
    #expect(s.currentItem?.identifier == ItemIdentifier("n21"))
    #expect(s.browse.top <= 21 && 21 < s.browse.top + s.listHeight)
  }

  @Test func aRememberedItemThatArrivesAfterTheUserMovedDoesNotYankTheCursor() {
    var s = Fixture.state()
    s.press(.enter)
    s.browse.pendingSelection = ItemIdentifier("n450")  // far down, on page 2
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: Fixture.numbered(0..<200), total: 1_000, isComplete: false))
    s.press(.down, .down)
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 400, items: Fixture.numbered(400..<600), total: 1_000, isComplete: false))
    #expect(s.browse.cursor == 2, "the user moved: a late page must not move the cursor")
  }

  // MARK: Tabs

  @Test func tabShiftTabAndTheNumberKeysSwitchTabs() {
    var s = Fixture.state()
    #expect(s.press(.tab) == [.loadRecents(tag: nil)])
    #expect(s.tab == .recents)
    s.press(.backTab)
    #expect(s.tab == .browse)
    s.press(.backTab)
    #expect(s.tab == .recents)
    s.press(.character("1"))
    #expect(s.tab == .browse)
    #expect(s.press(.character("2")) == [.loadRecents(tag: nil)])
    #expect(s.tab == .recents)
    s.recents.tagFilter = "Red"
    #expect(s.press(.character("1"), .character("2")) == [.loadRecents(tag: "Red")])
  }

  @Test func recentsHasItsOwnCursorAndOpensWhatItShows() {
    var s = Fixture.state()
    s.press(.down, .character("2"))
    _ = s.reduce(.recentsChanged(Fixture.recents))
    s.press(.down, .down)
    #expect(s.recents.cursor == 2)
    #expect(s.browse.cursor == 1)
    // The app finds the entry's item first (WorkingSetEntriesReduceTests), then opens it.
    #expect(s.press(.enter) == [.openEntry(Fixture.recents[2])])
    #expect(s.reduce(.entryFound(Fixture.recents[2], Fixture.recents[2].item)) == [.open(Fixture.recents[2].item, Fixture.work)])
    // A folder from Recents opens in Browse.
    s.press(.character("G"), .up)
    let row = s.recentsRows[s.recents.cursor]
    #expect(s.press(.enter) == [.openEntry(row)])
    let effects = s.reduce(.entryFound(row, row.item))
    #expect(s.tab == .browse)
    #expect(effects.enumerations.first?.location == .folder(FolderLocation(domain: .local, identifier: ItemIdentifier("f-docs"), path: ItemPath("/home/ana/Documents"), name: "Documents")))
    // Fewer rows than the cursor: it is clamped.
    s.press(.character("2"))
    _ = s.reduce(.recentsChanged(Array(Fixture.recents.prefix(2))))
    #expect(s.recents.cursor == 1)
  }

  @Test func escapeClearsTheRecentsTagFilterAndSearch() {
    var s = Fixture.state()
    s.press(.character("2"))
    s.recents.tagFilter = "Red"
    #expect(s.press(.escape) == [.loadRecents(tag: nil)])
    #expect(s.recents.tagFilter == nil)
  }

  // MARK: Filter

  @Test func slashFiltersAsYouTypeAndEscapeBringsEverythingBack() {
    var s = Fixture.state()
    s.press(.character("/"))
    #expect(s.browse.filter == "")
    #expect(s.browseCount == 20)
    s.type("PLAIN")
    #expect(s.browse.filter == "PLAIN")
    #expect(s.browseCount == 1, "case-insensitive, over the displayed names")
    #expect(s.currentItem?.identifier == ItemIdentifier("plain"))
    s.press(.backspace, .backspace, .backspace, .backspace)
    #expect(s.browse.filter == "P")
    let withP = Fixture.corpus.filter { $0.filename.displayString.lowercased().contains("p") }
    #expect(withP.count > 2)
    #expect(s.browseCount == withP.count)
    #expect(s.visibleBrowseItem(at: 1)?.identifier == withP[1].identifier)
    s.press(.escape)
    #expect(s.browse.filter == nil)
    #expect(s.browseCount == 20)
    // q, j and k are text while filtering.
    s.press(.character("/"), .character("q"), .character("j"))
    #expect(s.browse.filter == "qj")
    #expect(!s.isQuitting)
  }

  @Test func enterKeepsTheFilteredItemSelected() {
    var s = Fixture.state()
    s.press(.character("/"))
    s.type("txt")
    s.press(.down, .down)
    let id = s.currentItem?.identifier
    s.press(.enter)
    #expect(s.browse.filter == nil)
    #expect(s.currentItem?.identifier == id)
    #expect(s.browse.top <= s.browse.cursor && s.browse.cursor < s.browse.top + s.listHeight)
  }

  @Test func escapeAfterScrollingAFilteredListShowsTheCursor() {
    var s = PagedFolder(total: 100).state()
    s.press(.character("/"))
    s.type("file")
    s.press(.pageDown, .pageDown, .down)
    #expect(s.browse.top > 0)
    s.press(.escape)
    #expect(s.browse.top <= s.browse.cursor && s.browse.cursor < s.browse.top + s.listHeight)
  }

  /// The first character asks for the rest of the folder, 8 pages after the loaded one; each
  /// chunk that arrives asks for the next; scrolling the filtered rows asks for nothing.
  @Test func aFilterReadsTheFolderByChunksAndScrollingAsksForNothing() {
    let folder = PagedFolder(total: 10_000)
    var s = folder.state()
    s.press(.character("/"))
    #expect(s.press(.character("f")).pageRequests == [1...8])
    s.type("ile")
    for _ in 0..<10 { #expect(s.press(.pageDown).pageRequests.isEmpty) }
    #expect(s.browse.cursor == 199, "the rows read so far")
    var next: [ClosedRange<Int>] = []
    for p in 1...8 {
      next = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: p * 200, items: folder.page(p, pageSize: 200), total: 10_000, isComplete: false))
        .pageRequests
    }
    #expect(next == [9...16], "the next chunk once this one is here")
    #expect(s.browseCount == 1_800)
    // Ctrl-U clears the text and keeps the filter open.
    s.press(.control("u"))
    #expect(s.browse.filter == "")
  }

  // MARK: Sort and hidden files

  @Test func theSortPickerReloadsWithTheNewSort() throws {
    var s = Fixture.state()
    s.press(.down)
    #expect(s.press(.character("s")).isEmpty)
    #expect(s.overlay == .sortPicker(cursor: 0))
    let old = s.browse.ticket
    let effects = s.press(.down, .down, .enter)  // Size
    #expect(s.overlay == nil)
    #expect(effects.first == .closeEnumeration(ticket: old))
    let e = try #require(effects.enumerations.first)
    #expect(e.sort == ItemSort(key: .size, ascending: false, foldersFirst: true), "sizes start with the largest")
    #expect(s.sort == e.sort)
    #expect(s.browse.pendingSelection == ItemIdentifier("f-photos"), "the cursor item is kept")
    // The same key again flips the direction; Reverse and Folders first toggle.
    s.press(.character("s"), .down, .down, .enter)
    #expect(s.sort == ItemSort(key: .size, ascending: true, foldersFirst: true))
    s.press(.character("s"), .down, .down, .down, .down, .enter)
    #expect(s.sort == ItemSort(key: .size, ascending: false, foldersFirst: true))
    let last = s.press(.character("s"), .end, .character("j"), .character("j"), .character("j"), .character("j"), .character("j"), .character(" "))
    #expect(s.sort == ItemSort(key: .size, ascending: false, foldersFirst: false))
    #expect(last.enumerations.first?.sort == s.sort)
    // Esc leaves the sort alone.
    #expect(s.press(.character("s"), .down, .escape).isEmpty)
    #expect(s.overlay == nil)
  }

  @Test func dotTogglesHiddenFilesAndReloads() {
    var s = Fixture.state()
    let on = s.press(.character("."))
    #expect(s.showHidden)
    #expect(on.enumerations.first?.hidden == true)
    #expect(s.message?.text == "Showing hidden files")
    let off = s.press(.character("."))
    #expect(!s.showHidden)
    #expect(off.enumerations.first?.hidden == false)
  }

  // MARK: Marks

  @Test func spaceMarksAndMoves() {
    var s = Fixture.state()
    s.press(.character(" "))
    #expect(s.browse.marked == [ItemIdentifier("f-docs")])
    #expect(s.browse.cursor == 1)
    s.press(.character(" "), .up, .character(" "))
    #expect(s.browse.marked == [ItemIdentifier("f-docs")], "space again unmarks")
    #expect(s.browse.cursor == 2)
    s.press(.escape)
    #expect(s.browse.marked.isEmpty)
  }

  @Test func marksSurviveTheirPageBeingEvicted() {
    let folder = PagedFolder(total: 100_000)
    var s = folder.state()
    s.press(.character(" "), .character(" "))
    for _ in 0..<200 { folder.serve(s.press(.pageDown), to: &s) }
    #expect(!s.browse.list.hasRow(0), "page 0 is long gone")
    let third = s.currentItem?.identifier.rawValue
    s.press(.character(" "))
    let effects = s.press(.character("d"))
    guard case .trash(let items, let d)? = effects.first else {
      Issue.record("no trash effect: \(effects)")
      return
    }
    #expect(d == .local)
    #expect(Set(items.map(\.identifier.rawValue)) == Set(["n0", "n1", third].compactMap { $0 }))
    #expect(items.count == 3)
    #expect(s.browse.marked.isEmpty)
  }

  // MARK: Resize

  @Test func resizeKeepsTheCursorVisible() {
    var s = PagedFolder(total: 100).state()
    s.press(.pageDown, .pageDown, .down)
    #expect(s.browse.cursor == 41)
    _ = s.reduce(.resized(width: 40, height: 8))
    #expect(s.width == 40 && s.listHeight == 4)
    #expect(s.browse.top <= 41 && 41 < s.browse.top + 4)
    _ = s.reduce(.key(.resize(width: 120, height: 60)))
    #expect(s.browse.top <= 41 && 41 < s.browse.top + s.listHeight)
    #expect(s.browse.top + s.listHeight <= 100 || s.browse.top == 0, "no empty space below the last row when it fits")
    // The cursor stays within the rows after a resize inside a menu too.
    s.press(.character("m"))
    _ = s.reduce(.resized(width: 20, height: 5))
    #expect(s.browse.top <= s.browse.cursor && s.browse.cursor < s.browse.top + s.listHeight)
    #expect(s.overlay != nil)
  }

  @Test func resizeAsksForPagesTheBiggerViewportNeeds() {
    var s = PagedFolder(total: 1_000).state(pageSize: 50)
    #expect(s.reduce(.resized(width: 80, height: 60)).pageRequests == [1...2])
  }
}
