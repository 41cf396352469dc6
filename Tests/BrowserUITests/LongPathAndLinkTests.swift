import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// Long paths keep their end (the folder's own name), and symbolic links look like links.
@Suite struct LongPathAndLinkTests {
  /// Widths need the UTF-8 LC_CTYPE `folio` sets at launch: without it wcwidth answers -1 for
  /// every non-ASCII character, and the cut came out wrong whenever no other test of the process
  /// had set the locale first (seen once under load, when this suite ran first).
  init() { DisplayWidth.setUp() }

  static let deep = ItemPath("/home/ana/Work/clients/acme-corporation/2026/quarterly-review/Projects/alpha")

  @Test(arguments: [
    ("/home/ana/Projects/alpha", 40, "/home/ana/Projects/alpha"),
    ("/home/ana/Work/clients/acme/Projects/alpha", 20, "…/Projects/alpha"),
    ("/home/ana/Work/clients/acme/Projects/alpha", 16, "…/Projects/alpha"),
    ("/home/ana/Work/clients/acme/Projects/alpha", 15, "…/alpha"),
    ("/home/ana/a-folder-with-a-very-long-name", 20, "…/a-folder-with-a-v…"),
    ("/home/ana/写真/アルバム", 15, "…/写真/アルバム"),
    ("/home/ana/写真/アルバム", 14, "…/アルバム"),
    ("/home/ana/odd:/", 10, "…/ana/odd:"),
  ])
  func aPathIsCutFromItsStart(_ path: String, _ columns: Int, _ expected: String) {
    let cut = DisplayWidth.tail(ofPath: path, to: columns)
    #expect(cut == expected)
    #expect(DisplayWidth.width(of: cut) <= columns)
  }

  @Test(arguments: [80, 60, 40])
  func thePathBarShowsTheCurrentFolder(_ width: Int) {
    var s = Fixture.state(width: width)
    s.browse.location = .folder(FolderLocation(domain: .local, identifier: nil, path: Self.deep, name: "alpha"))
    let bar = AppView.render(s).textLines()[1]
    #expect(bar.contains("/alpha"), "the current folder's name is on the path bar: \(bar)")
    #expect(bar.contains("…"), "\(bar)")
  }

  @Test func recentsWhereShowsTheFolderOfTheFile() throws {
    var s = Fixture.state(width: 80)
    let file = Fixture.item("budget.csv", id: "deep", in: Self.deep) { $0.lastUsedDate = Fixture.date(2026, 11, 21) }
    _ = s.reduce(.recentsChanged([IndexedRow(item: file, domain: .local)]))
    s.press(.character("2"))
    let lines = AppView.render(s).textLines()
    let row = try #require(lines.first { $0.contains("budget.csv") })
    #expect(row.contains("/alpha"), "the file's folder is in Where: \(row)")
  }

  static let links: [Item] = [
    Fixture.item("docs-link", id: "l-folder") {
      $0.contentType = .symlink
      $0.symlinkTargetPath = ItemPath("/srv/docs")
    },
    Fixture.item("notes-link", id: "l-file") {
      $0.contentType = .symlink
      $0.symlinkTargetPath = ItemPath("notes.txt")
    },
    Fixture.item("plain.txt", id: "plain"),
  ]

  @Test func aLinkShowsWhereItPointsAndAFolderLinkItsSlash() throws {
    var s = Fixture.state(width: 100, items: Self.links)
    var lines = AppView.render(s).textLines()
    #expect(lines.contains { $0.contains("docs-link@ → /srv/docs") }, "\(lines)")
    #expect(lines.contains { $0.contains("notes-link@ → notes.txt") })
    #expect(lines.contains { $0.contains("plain.txt ") && !$0.contains("plain.txt@") })
    // Once the app found (off the loop) what the links point to.
    _ = s.reduce(.linkTargetsResolved([ItemIdentifier("l-folder"): .folder, ItemIdentifier("l-file"): .other]))
    lines = AppView.render(s).textLines()
    #expect(lines.contains { $0.contains("docs-link/ → /srv/docs") }, "\(lines)")
    #expect(lines.contains { $0.contains("notes-link@ → notes.txt") })
    // Off the cursor, it has a folder's color.
    s.press(.down, .down)
    let screen = AppView.render(s)
    let row = try #require(screen.textLines().firstIndex { $0.contains("docs-link/") })
    #expect(screen.styleLines()[row].contains("listFolder"), "a link to a folder is drawn as a folder: \(screen.styleLines()[row])")
  }

  @Test func infoSaysALinkIsBroken() throws {
    var s = Fixture.state(width: 100, items: Self.links)
    _ = s.reduce(.linkTargetsResolved([ItemIdentifier("l-file"): .broken, ItemIdentifier("l-folder"): .folder]))
    let row = try #require(s.browse.list.loadedItems.firstIndex { $0.identifier == ItemIdentifier("l-file") })
    s.browse.cursor = row
    s.press(.character("i"))
    let text = AppView.render(s).textLines().joined(separator: "\n")
    #expect(text.contains("broken: its target is missing"), "\(text)")
  }
}
