import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// A terminal size, named as snapshots are ("80x24").
struct Size: Sendable, CustomStringConvertible {
  var width: Int
  var height: Int
  var description: String { "\(width)x\(height)" }

  static let standard = [Size(width: 80, height: 24), Size(width: 200, height: 50)]
  static let tiny = [Size(width: 40, height: 10), Size(width: 20, height: 5), Size(width: 10, height: 4), Size(width: 5, height: 2)]
}

/// A state worth drawing, built at a given size (the cursor scrolls with the size).
struct Scenario: Sendable, CustomStringConvertible {
  var name: String
  var make: @Sendable (Size) -> AppState
  var description: String { name }

  init(_ name: String, _ make: @escaping @Sendable (Size) -> AppState) {
    self.name = name
    self.make = make
  }

  static func at(_ size: Size, items: [Item] = Fixture.corpus) -> AppState {
    Fixture.state(width: size.width, height: size.height, items: items)
  }

  static let browse = Scenario("browse") { size in
    var s = at(size)
    s.press(.down, .down, .down)
    return s
  }

  static let browseLoadingProgress = Scenario("browse-loading-progress") { size in
    var s = Fixture.emptyState(width: size.width, height: size.height)
    _ = s.reduce(.loadProgress(ticket: s.browse.ticket, EnumerationProgress(phase: .readingMetadata, completed: 42_000, total: 120_000)))
    s.spinnerPhase = 3
    return s
  }

  /// The first page came, the total is not known yet: "loading 12…".
  static let browseLoadingPages = Scenario("browse-loading-pages") { size in
    var s = Fixture.emptyState(width: size.width, height: size.height)
    s.browse.list = PagedList(pageSize: 12)
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: Fixture.numbered(0..<12), total: nil, isComplete: false))
    return s
  }

  /// 120,000 rows known, only the first page here: the rows after it are placeholders.
  static let browseUnloadedRows = Scenario("browse-unloaded-rows") { size in
    var s = Fixture.emptyState(width: size.width, height: size.height)
    s.browse.list = PagedList(pageSize: 10)
    _ = s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: Fixture.numbered(0..<10), total: 120_000, isComplete: false))
    s.press(.down, .down)
    return s
  }

  static let browseError = Scenario("browse-error") { size in
    var s = Fixture.emptyState(width: size.width, height: size.height)
    _ = s.reduce(.loadFailed(ticket: s.browse.ticket, Fixture.unreachable))
    return s
  }

  static let browseEmpty = Scenario("browse-empty") { size in at(size, items: []) }

  static let browseFilter = Scenario("browse-filter") { size in
    var s = at(size)
    s.press(.character("/"))
    s.type("txt")
    s.press(.down)
    return s
  }

  static let browseFilterNothing = Scenario("browse-filter-nothing") { size in
    var s = at(size)
    s.press(.character("/"))
    s.type("zzz")
    return s
  }

  static let browseMarked = Scenario("browse-marked") { size in
    var s = at(size)
    s.press(.down, .down, .down, .character(" "), .character(" "), .down, .character(" "), .up, .up)
    return s
  }

  static let browseSidebarFocused = Scenario("browse-sidebar-focused") { size in
    var s = at(size)
    s.press(.character("b"), .down, .down, .down)
    return s
  }

  /// Scrolled to the end: the last row is drawn with the cursor on it.
  static let browseScrolled = Scenario("browse-scrolled") { size in
    var s = at(size, items: Fixture.corpus + Fixture.numbered(0..<40))
    s.press(.character("G"), .up)
    return s
  }

  static let trash = Scenario("trash") { size in
    var s = Fixture.trashState(width: size.width, height: size.height)
    s.press(.down)
    return s
  }

  static let statusError = Scenario("status-error") { size in
    var s = at(size)
    _ = s.reduce(.operationFailed(ProviderError(.noPermission, "cannot write \u{1B}]52;c;cHduZWQ=\u{07} here")))
    return s
  }

  static let ascii = Scenario("ascii-browse") { size in
    var s = at(size)
    s.ascii = true
    s.press(.down, .character(" "), .down)
    return s
  }

  static let asciiMenu = Scenario("ascii-menu") { size in
    var s = at(size)
    s.ascii = true
    s.press(.end, .up, .up, .character("m"))
    return s
  }

  static let recents = Scenario("recents") { size in
    var s = at(size)
    s.press(.character("2"))
    _ = s.reduce(.recentsChanged(Fixture.recents))
    s.press(.down)
    return s
  }

  static let recentsTag = Scenario("recents-tag") { size in
    var s = at(size)
    // Choosing the tag Red in the sidebar.
    s.press(.character("b"))
    s.sidebar.cursor = s.sidebar.entries.firstIndex { if case .tag("Red", _) = $0 { return true } else { return false } }!
    s.press(.enter)
    _ = s.reduce(.recentsChanged(Fixture.recents.filter { $0.item.tags.contains("Red") }))
    return s
  }

  static let recentsSearch = Scenario("recents-search") { size in
    var s = at(size)
    s.press(.character("2"))
    _ = s.reduce(.recentsChanged(Fixture.recents))
    s.press(.character("/"))
    s.type("re")
    s.press(.enter)
    _ = s.reduce(.searchResults(query: "re", Array(Fixture.recents.prefix(3))))
    return s
  }

  static let recentsSearchTyping = Scenario("recents-search-prompt") { size in
    var s = at(size)
    s.press(.character("2"))
    _ = s.reduce(.recentsChanged(Fixture.recents))
    s.press(.character("/"))
    s.type("漢字 report")
    s.press(.left, .left)
    return s
  }

  static let recentsEmpty = Scenario("recents-empty") { size in
    var s = at(size)
    s.press(.character("2"))
    return s
  }

  static let menuFile = Scenario("menu-file") { size in
    var s = at(size)
    s.press(.end, .up, .up, .character("m"), .down)  // plain.txt: the custom action's rule matches
    return s
  }

  static let menuFolder = Scenario("menu-folder") { size in
    var s = at(size)
    s.press(.character("m"))
    return s
  }

  static let menuHostile = Scenario("menu-hostile") { size in
    var s = at(size)
    for _ in 0..<8 { s.press(.down) }
    s.press(.character("m"))
    return s
  }

  static let menuMultiple = Scenario("menu-multiple") { size in
    var s = at(size)
    s.press(.down, .down, .down, .character(" "), .character(" "), .character("m"))
    return s
  }

  static let menuTrash = Scenario("menu-trash") { size in
    var s = Fixture.trashState(width: size.width, height: size.height)
    s.press(.down, .character("m"))
    return s
  }

  /// A menu longer than the screen: scrolled to the middle, with ↑ and ↓ on its border.
  static let menuLong = Scenario("menu-long") { size in
    var s = at(size)
    s.customActions += (1...40).map {
      CustomActionEntry(
        identifier: ActionIdentifier("extra-\($0)"), name: "Extra action \($0)",
        rule: try! ActivationRule(parsing: "TRUEPREDICATE"), domain: nil)
    }
    s.press(.end, .character("m"))
    for _ in 0..<25 { s.press(.down) }
    return s
  }

  static let renameCollision = Scenario("rename-collision") { size in
    var s = at(size)
    s.press(.down, .down, .down, .character("r"), .control("w"))
    s.type("plain.txt")
    let rename = s.press(.enter)
    _ = s.reduce(.operationFailed(ProviderError(.filenameCollision, "“plain.txt” already exists in this folder"), from: rename.first))
    return s
  }

  static let renameHostile = Scenario("rename-hostile") { size in
    var s = at(size)
    s.press(.end, .character("r"), .left, .left, .left)
    return s
  }

  static let confirm = Scenario("confirm") { size in
    var s = Fixture.trashState(width: size.width, height: size.height)
    s.press(.down, .character("d"))
    return s
  }

  static let info = Scenario("info") { size in
    var s = at(size)
    s.press(.character("G"))
    for _ in 0..<9 { s.press(.up) }  // the name with invalid bytes and an upload error
    s.press(.character("i"))
    return s
  }

  static let infoTrashed = Scenario("info-trashed") { size in
    var s = Fixture.trashState(width: size.width, height: size.height)
    s.press(.down, .character("i"))
    return s
  }

  static let help = Scenario("help") { size in
    var s = at(size)
    s.press(.character("?"))
    return s
  }

  static let tagPicker = Scenario("tag-picker") { size in
    var s = at(size)
    // Two marked items: Red and Green on one of them ([-]), Blue on the other ([-]).
    s.press(.character(" "), .down, .down, .character(" "), .character("t"), .down)
    return s
  }

  static let sortPicker = Scenario("sort-picker") { size in
    var s = at(size)
    s.sort = ItemSort(key: .date, ascending: false, foldersFirst: true)
    s.press(.character("s"), .down, .down)
    return s
  }

  static let folderPicker = Scenario("move-to") { size in
    var s = at(size)
    s.press(.end, .up, .up, .character("m"), .character("M"))
    guard case .folderPicker(let p) = s.overlay else { return s }
    _ = s.reduce(.foldersLoaded(ticket: p.ticket, folders: Array(Fixture.corpus.prefix(3)), isComplete: true))
    s.press(.down, .down)
    return s
  }

  static let auth = Scenario("auth") { size in
    var s = at(size)
    _ = s.reduce(.authenticationRequired(Fixture.work, retry: [.refreshSidebar], reason: "sign in to \u{1B}[31mwork\u{1B}[0m to continue"))
    s.type("ana")
    s.press(.enter)
    s.type("s3cret")
    return s
  }

  static let all: [Scenario] = [
    browse, browseLoadingProgress, browseLoadingPages, browseUnloadedRows, browseError, browseEmpty, browseFilter,
    browseFilterNothing, browseMarked, browseSidebarFocused, browseScrolled, trash, statusError, ascii, asciiMenu,
    recents, recentsTag, recentsSearch, recentsSearchTyping, recentsEmpty, menuFile, menuFolder, menuHostile,
    menuMultiple, menuTrash, menuLong, renameCollision, renameHostile, confirm, info, infoTrashed, help, tagPicker,
    sortPicker, folderPicker, auth,
  ]

  /// The views snapshotted on tiny terminals too.
  static let tiny: [Scenario] = [browse, recents, menuFile, renameCollision, info, help, tagPicker, sortPicker, folderPicker]
}

/// Every view at 80x24 and 200x50 with the hostile names, and the main ones on tiny terminals.
/// Snapshots live in Snapshots/; every screen is also checked for raw controls and split characters.
@Suite struct ViewSnapshotTests {
  @Test(arguments: Scenario.all, Size.standard)
  func snapshot(_ scenario: Scenario, _ size: Size) {
    assertSnapshot(of: scenario.make(size), named: "\(scenario.name)-\(size)")
  }

  @Test(arguments: Scenario.tiny, Size.tiny)
  func tinyTerminal(_ scenario: Scenario, _ size: Size) {
    assertSnapshot(of: scenario.make(size), named: "tiny-\(scenario.name)-\(size)")
  }

  /// No size garbles a view: every scenario built at (and resized to) sizes from 1x1 to 240x60.
  @Test(arguments: Scenario.all)
  func everySizeIsWellFormed(_ scenario: Scenario) {
    _ = Snapshots.setUp
    let widths = [1, 2, 3, 4, 5, 9, 10, 11, 12, 15, 19, 20, 21, 25, 30, 33, 40, 41, 50, 60, 79, 80, 81, 100, 120, 199, 240]
    let heights = [1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 24, 60]
    var problems: [String] = []
    for w in widths {
      for h in heights {
        let built = scenario.make(Size(width: w, height: h))
        problems += screenProblems(AppView.render(built)).map { "built at \(w)x\(h): \($0)" }
        var resized = scenario.make(Size(width: 80, height: 24))
        _ = resized.reduce(.resized(width: w, height: h))
        problems += screenProblems(AppView.render(resized)).map { "resized to \(w)x\(h): \($0)" }
      }
    }
    #expect(problems.isEmpty, "\(problems.count) problems, first: \(problems.prefix(5).joined(separator: "; "))")
  }

  /// The style layer is there: the cursor row is drawn selected, badges in their roles.
  @Test func theCursorRowAndBadgesHaveTheirRoles() {
    _ = Snapshots.setUp
    let s = Scenario.browse.make(Size(width: 80, height: 24))
    let screen = AppView.render(s)
    // The cursor is on the fourth row (y = 6), right of the sidebar: every cell on its background,
    // and its tag dots (Red, Green) still in their colors.
    #expect((21..<80).allSatisfy { screen[$0, 6].role == .listSelected || screen[$0, 6].background == .listSelected })
    let dots = (21..<80).map { screen[$0, 6] }.filter { $0.background == .listSelected }.map(\.role)
    #expect(dots == [.tagRed, .tagGreen])
    // The sidebar's favorite star and tag dots sit on the sidebar's background.
    let sidebarMarks = (0..<screen.height).flatMap { y in (0..<20).map { screen[$0, y] } }.filter { $0.background == .sidebar }
    #expect(Set(sidebarMarks.map(\.role)).isSuperset(of: [.badgeFavorite, .tagRed]))
    let roles = Set((0..<screen.height).flatMap { y in (0..<screen.width).map { screen[$0, y].role } })
    for role: StyleRole in [
      .badgeCloud, .badgeDownloading, .badgeUploading, .badgeQueued, .badgeError, .badgeConflict, .badgePinned,
      .badgeExcluded, .badgeFavorite, .badgeShared, .tagRed, .tagGreen, .tagBlue, .tagCustom,
    ] {
      #expect(roles.contains(role), "no cell drawn as \(role)")
    }
  }
}
