import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// Issue 13 part 4, moving around: Go to (`:`), home (`~`), history (`H` / `L`), the marks
/// (`A`, `*`, `C`, `M`), the cursor's place in the status line, and the view choices kept.
@Suite struct NavigationReduceTests {
  static let home = ItemPath("/home/ana")

  static func state() -> AppState {
    var s = Fixture.state()
    s.homeFolder = home
    return s
  }

  func status(_ s: AppState) -> String {
    _ = Snapshots.setUp
    return AppView.render(s).textLines().last ?? ""
  }

  static func folder(_ path: String, id: String) -> Item {
    let p = ItemPath(path)
    return Item(
      identifier: ItemIdentifier(id), parentIdentifier: ItemIdentifier("p-" + id), filename: p.lastComponent!, path: p,
      contentType: .folder)
  }

  static func file(_ path: String, id: String) -> Item {
    let p = ItemPath(path)
    return Item(
      identifier: ItemIdentifier(id), parentIdentifier: ItemIdentifier("p-" + id), filename: p.lastComponent!, path: p,
      contentType: ContentType.forExtension(p.lastComponent!.pathExtension), documentSize: 1)
  }

  // MARK: Go to

  @Test func colonOpensGoToAndEnterLooksTheAbsolutePathUpKeepingThePromptOpen() throws {
    var s = Self.state()
    #expect(s.press(.character(":")).isEmpty)
    #expect(s.prompt?.title == "Go to:")
    s.type("/etc/../usr//share")
    let effects = s.press(.enter)
    #expect(effects == [.resolveGoTo(GoToRequest(text: "/etc/../usr//share", domain: .local, path: ItemPath("/usr/share")))])
    #expect(s.prompt?.purpose == .goTo, "open until the lookup answers")
    #expect(s.browse.location == .folder(Fixture.start), "nothing moved yet")
  }

  @Test func aFolderFoundIsShownAndTheFolderLeftIsPushedOnTheHistory() throws {
    var s = Self.state()
    s.select("plain")
    s.press(.character(":"))
    s.type("/usr/share")
    let request = GoToRequest(text: "/usr/share", domain: .local, path: ItemPath("/usr/share"))
    #expect(s.press(.enter) == [.resolveGoTo(request)])
    let effects = s.reduce(.goToResolved(request, .success(Self.folder("/usr/share", id: "share"))))
    #expect(s.overlay == nil)
    guard case .folder(let f) = s.browse.location else { Issue.record("not a folder"); return }
    #expect(f.path == ItemPath("/usr/share") && f.identifier == ItemIdentifier("share") && f.domain == .local && f.name == "share")
    #expect(effects.contains { if case .enumerate = $0 { return true } else { return false } })
    #expect(s.history.back == [NavigationHistory.Entry(location: .folder(Fixture.start), item: ItemIdentifier("plain"))])
  }

  @Test func aFileFoundOpensItsFolderWithTheCursorOnTheFile() throws {
    var s = Self.state()
    s.press(.character(":"))
    s.type("/etc/hosts")
    let request = GoToRequest(text: "/etc/hosts", domain: .local, path: ItemPath("/etc/hosts"))
    s.press(.enter)
    let hosts = Self.file("/etc/hosts", id: "hosts")
    s.reduce(.goToResolved(request, .success(hosts)))
    guard case .folder(let f) = s.browse.location else { Issue.record("not a folder"); return }
    #expect(f.path == ItemPath("/etc"))
    let rows = [Self.file("/etc/fstab", id: "fstab"), Self.file("/etc/group", id: "group"), hosts]
    s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: rows, total: 3, isComplete: true))
    #expect(s.currentItem?.identifier == ItemIdentifier("hosts"))
  }

  @Test func aPathThatIsNotThereSaysSoSanitizedInThePromptAndLosesNothing() throws {
    var s = Self.state()
    s.select("plain")
    s.press(.character(":"))
    s.type("/nope")
    let request = GoToRequest(text: "/nope", domain: .local, path: ItemPath("/nope"))
    s.press(.enter)
    s.reduce(.goToResolved(request, .failure(ProviderError(.noSuchItem, "no such item \u{1B}[31m/nope\u{1B}]0;pwn\u{07}"))))
    let p = try #require(s.prompt)
    let error = try #require(p.error)
    #expect(error.hasPrefix("Cannot go to /nope: no such item"))
    #expect(!error.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(error)")
    #expect(p.editor.string == "/nope", "what was typed stays, to fix it")
    #expect(s.browse.location == .folder(Fixture.start))
    #expect(s.currentItem?.identifier == ItemIdentifier("plain"))
    #expect(s.history.back.isEmpty)
  }

  @Test func anAnswerAfterEscIsIgnored() {
    var s = Self.state()
    s.press(.character(":"))
    s.type("/usr")
    s.press(.enter, .escape)
    let request = GoToRequest(text: "/usr", domain: .local, path: ItemPath("/usr"))
    #expect(s.reduce(.goToResolved(request, .success(Self.folder("/usr", id: "usr")))).isEmpty)
    #expect(s.browse.location == .folder(Fixture.start))
  }

  @Test(arguments: [
    ("~", "/home/ana", DomainIdentifier.local),
    ("~/Documents/", "/home/ana/Documents", .local),
    ("Documents/../Projects", "/home/ana/Projects", .local),
    ("work-dav:/reports/2026", "/reports/2026", Fixture.work),
    ("work-dav:", "/", Fixture.work),
  ])
  func whatIsTypedIsReadAsFolioCommandsReadPaths(typed: String, path: String, domain: DomainIdentifier) {
    var s = Self.state()
    s.press(.character(":"))
    s.type(typed)
    #expect(s.press(.enter) == [.resolveGoTo(GoToRequest(text: typed, domain: domain, path: ItemPath(path)))])
  }

  @Test func anUnknownLocationIsRefusedInThePrompt() throws {
    var s = Self.state()
    s.press(.character(":"))
    s.type("nosuch:/x")
    #expect(s.press(.enter).isEmpty)
    let error = try #require(s.prompt?.error)
    #expect(error.contains("no location named 'nosuch'") && error.contains("work-dav"), "\(error)")
  }

  @Test func tildeKeyGoesHomeAndSaysSoWhenHomeIsUnknown() {
    var s = Self.state()
    #expect(s.press(.character("~")) == [.resolveGoTo(GoToRequest(text: "~", domain: .local, path: Self.home))])
    var t = Fixture.state()
    #expect(t.press(.character("~")).isEmpty)
    #expect(t.message?.isError == true)
  }

  @Test func aHomeThatIsNotThereSaysSoInTheStatusLine() {
    var s = Self.state()
    let request = GoToRequest(text: "~", domain: .local, path: Self.home)
    s.press(.character("~"))
    s.reduce(.goToResolved(request, .failure(ProviderError(.noSuchItem, "gone"))))
    #expect(s.message == StatusMessage("Cannot go to ~: gone", isError: true))
    #expect(s.browse.location == .folder(Fixture.start))
  }

  // MARK: Tab completion

  @Test func tabCompletesFromTheFolderOnScreenWithoutAskingAnything() throws {
    var s = Self.state()
    s.press(.character(":"))
    s.type("Pro")
    #expect(s.press(.tab).isEmpty)
    #expect(s.prompt?.editor.string == "Projects/")
  }

  @Test func aTabThatCannotExtendListsTheCandidates() throws {
    var s = Self.state()
    s.press(.character(":"))
    s.type("P")
    #expect(s.press(.tab).isEmpty)
    #expect(s.prompt?.editor.string == "P")
    #expect(s.prompt?.note == "Photos 写真 · Projects")
    s.type("r")
    #expect(s.prompt?.note == nil, "typing hides the list")
    s.press(.tab)
    #expect(s.prompt?.editor.string == "Projects/")
  }

  @Test func anotherFolderIsListedOffTheLoopAndTheTabCompletesWhenItComes() throws {
    var s = Self.state()
    s.press(.character(":"))
    s.type("/usr/l")
    let effects = s.press(.tab)
    guard case .listCompletions(let ticket, let domain, let folder) = effects.first, effects.count == 1 else {
      Issue.record("\(effects)")
      return
    }
    #expect(domain == .local && folder == ItemPath("/usr"))
    #expect(s.prompt?.editor.string == "/usr/l", "nothing waits: the prompt takes keys meanwhile")
    let names = ["bin", "lib", "libexec", "local", ".hidden"].map { ItemName($0) }
    s.reduce(.completionsListed(ticket: ticket, domain: .local, folder: folder, .success(names)))
    #expect(s.prompt?.note == "lib · libexec · local")
    s.type("o")
    #expect(s.press(.tab).isEmpty, "the listing is kept for the next Tab")
    #expect(s.prompt?.editor.string == "/usr/local/")
  }

  @Test func aLocationsFolderIsListedInThatLocation() throws {
    var s = Self.state()
    s.press(.character(":"))
    s.type("work-dav:/re")
    guard case .listCompletions(let ticket, let domain, let folder) = s.press(.tab).first else {
      Issue.record("no listing")
      return
    }
    #expect(domain == Fixture.work && folder == .root)
    s.reduce(.completionsListed(ticket: ticket, domain: domain, folder: folder, .success([ItemName("reports")])))
    #expect(s.prompt?.editor.string == "work-dav:/reports/")
  }

  @Test func aStaleListingIsDroppedAndAFailedOneIsSaid() throws {
    var s = Self.state()
    s.press(.character(":"))
    s.type("/root/")
    guard case .listCompletions(let ticket, _, let folder) = s.press(.tab).first else {
      Issue.record("no listing")
      return
    }
    #expect(s.reduce(.completionsListed(ticket: ticket + 99, domain: .local, folder: folder, .success([ItemName("x")]))).isEmpty)
    #expect(s.prompt?.editor.string == "/root/")
    s.reduce(.completionsListed(ticket: ticket, domain: .local, folder: folder, .failure(ProviderError(.noPermission, "permission denied"))))
    #expect(s.prompt?.error == "Cannot list /root: permission denied")
  }

  // MARK: History

  @Test func backAndForwardRestoreTheFolderAndTheCursorsItemAcrossLocations() throws {
    var s = Self.state()
    s.select("f-docs")
    s.press(.enter)
    guard case .folder(let docs) = s.browse.location else { Issue.record("not in Documents"); return }
    #expect(docs.identifier == ItemIdentifier("f-docs"))
    s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: [Self.file("/home/ana/Documents/a.txt", id: "a"), Self.file("/home/ana/Documents/b.txt", id: "b")], total: 2, isComplete: true))
    s.press(.down)
    // To another location from the sidebar.
    s.sidebar.focused = true
    s.sidebar.cursor = s.sidebar.entries.firstIndex(of: .location(Fixture.locations[1]))!
    s.press(.enter)
    #expect(s.browse.location.domain == Fixture.work)

    s.press(.character("H"))
    #expect(s.browse.location == .folder(docs))
    #expect(s.browse.pendingSelection == ItemIdentifier("b"), "the cursor goes back to b")
    s.press(.character("H"))
    #expect(s.browse.location == .folder(Fixture.start))
    #expect(s.browse.pendingSelection == ItemIdentifier("f-docs"))
    #expect(s.press(.character("H")).isEmpty)
    #expect(s.message?.text == "Nothing behind in the history")

    s.press(.character("L"))
    #expect(s.browse.location == .folder(docs))
    s.press(.character("L"))
    #expect(s.browse.location.domain == Fixture.work)
    #expect(s.press(.character("L")).isEmpty)
  }

  @Test func goingSomewhereNewForgetsWhatWasAhead() {
    var s = Self.state()
    s.select("f-docs")
    s.press(.enter)
    s.press(.character("H"))
    #expect(s.history.forward.count == 1)
    s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: Fixture.corpus, total: Fixture.corpus.count, isComplete: true))
    s.select("f-proj")
    s.press(.enter)
    #expect(s.history.forward.isEmpty)
    #expect(s.press(.character("L")).isEmpty)
  }

  @Test func backspaceToTheParentIsHistoryToo() {
    var s = Self.state()
    s.press(.backspace)
    guard case .folder(let parent) = s.browse.location else { Issue.record("no parent"); return }
    #expect(parent.path == ItemPath("/home"))
    s.press(.character("H"))
    #expect(s.browse.location == .folder(Fixture.start))
  }

  // MARK: Marks

  @Test func selectAllInvertClearOnAWholeFolder() {
    var s = Self.state()
    let n = Fixture.corpus.count
    s.press(.character("A"))
    #expect(s.browse.marked.count == n)
    #expect(s.message?.text == "\(n) marked")
    s.press(.character("C"))
    #expect(s.browse.marked.isEmpty)
    s.select("plain")
    s.press(.character(" "))
    s.press(.character("*"))
    #expect(s.browse.marked.count == n - 1 && !s.browse.marked.contains(ItemIdentifier("plain")))
    #expect(s.selection.count == n - 1, "what the operations act on")
    s.press(.character("*"))
    #expect(s.browse.marked == [ItemIdentifier("plain")])
  }

  @Test func selectAllReadsTheRestOfAPagedFolderAndMarksEachPageAsItComes() {
    var s = Fixture.emptyState()
    let items = Fixture.numbered(0..<1000)
    let t = s.browse.ticket
    s.reduce(.pageLoaded(ticket: t, offset: 0, items: Array(items[0..<200]), total: 1000, isComplete: false))
    let effects = s.press(.character("A"))
    #expect(effects == [.requestPages(ticket: t, pages: 1...4)])
    #expect(s.browse.marked.count == 200)
    #expect(s.message?.text.hasPrefix("Marking…") == true)
    for p in 1...4 {
      s.reduce(.pageLoaded(ticket: t, offset: p * 200, items: Array(items[(p * 200)..<((p + 1) * 200)]), total: 1000, isComplete: p == 4))
    }
    #expect(s.browse.marked.count == 1000)
    #expect(s.browse.bulkMarking == nil)
    #expect(s.message?.text == "1,000 marked")
    #expect(s.selection.count == 1000, "evicted pages' items are kept for the operation")
  }

  @Test func rangeMarksFromTheLastMarkedItemToTheCursor() {
    var s = Self.state()
    s.press(.down)
    s.press(.character(" "))  // marks row 1, the cursor goes to row 2
    s.press(.down, .down, .down)
    s.press(.character("M"))
    let expected = Set((1...5).compactMap { s.visibleBrowseItem(at: $0)?.identifier })
    #expect(s.browse.marked == expected)
    #expect(s.message?.text == "5 marked")
    // Upwards works the same.
    s.press(.character("C"))
    _ = s.moveCursor(to: 6)
    s.press(.character(" "))
    _ = s.moveCursor(to: 3)
    s.press(.character("M"))
    #expect(s.browse.marked == Set((3...6).compactMap { s.visibleBrowseItem(at: $0)?.identifier }))
  }

  @Test func rangeWithNothingMarkedSaysHow() {
    var s = Self.state()
    s.press(.character("M"))
    #expect(s.browse.marked.isEmpty)
    #expect(s.message?.isError == true && s.message?.text.contains("Mark an item first") == true)
  }

  // MARK: The cursor's place

  @Test func theStatusLineSaysWhereTheCursorIs() {
    var s = Self.state()
    let n = Fixture.corpus.count
    #expect(status(s).contains("1/\(n) items"), "\(status(s))")
    s.press(.down, .down)
    #expect(status(s).contains("3/\(n) items"))
  }

  @Test func onAPagedFolderTheTotalIsTheEnumerationsAndUnknownIsSaid() {
    var s = Fixture.emptyState()
    s.reduce(.pageLoaded(ticket: s.browse.ticket, offset: 0, items: Fixture.numbered(0..<200), total: 5000, isComplete: false))
    s.press(.pageDown)
    let row = s.browse.cursor + 1
    #expect(status(s).contains("\(row)/5,000 items"), "\(status(s))")
    var u = Fixture.emptyState()
    u.reduce(.pageLoaded(ticket: u.browse.ticket, offset: 0, items: Fixture.numbered(0..<200), total: nil, isComplete: false))
    u.press(.down)
    #expect(status(u).contains("2/… "), "\(status(u))")
  }

  @Test func withAFilterThePlaceIsAmongTheMatches() {
    var s = Self.state()
    s.press(.character("/"))
    s.type("txt")
    s.press(.down)
    #expect(status(s).contains("2/\(s.browseCount) matching"), "\(status(s))")
  }

  // MARK: View choices

  @Test func sortAndHiddenChoicesAreKeptWhenChanged() {
    var s = Self.state()
    let hidden = s.press(.character("."))
    #expect(hidden.contains(.saveViewChoices(ViewChoices(sort: .default, showHidden: true))))
    s.press(.character("s"), .down)
    let sorted = s.press(.enter)
    #expect(sorted.contains(.saveViewChoices(ViewChoices(sort: ItemSort(key: .date, ascending: false), showHidden: true))))
    // Moving around keeps nothing.
    #expect(!s.press(.down, .up, .character("A")).contains { if case .saveViewChoices = $0 { true } else { false } })
  }

  @Test func theChoicesFileRoundTripsAndIgnoresWhatItDoesNotKnow() {
    let c = ViewChoices(sort: ItemSort(key: .size, ascending: false, foldersFirst: false), showHidden: true)
    #expect(ViewChoices(text: c.text) == c)
    #expect(ViewChoices(text: "sort = bogus\nhidden=yes\nfuture = 1\n\u{0}garbage") == ViewChoices())
    #expect(ViewChoices(text: " sort =  date \r\nhidden = true") == ViewChoices(sort: ItemSort(key: .date), showHidden: true))
  }
}
