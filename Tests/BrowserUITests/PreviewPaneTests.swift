import Foundation
import PreviewKit
import ProviderAPI
import Testing

@testable import BrowserUI

/// The preview pane in the reducer and the views: when it is shown, what it asks for, which
/// answers it keeps, its keys, and what it draws.
@Suite struct PreviewPaneTests {
  /// The fixture's state with the pane as it is by default (the fixture hides it for the list's
  /// snapshots).
  static func state(width: Int, height: Int) -> AppState {
    // wcwidth needs a UTF-8 LC_CTYPE before anything is drawn (▀ is one column only then).
    _ = Snapshots.setUp
    var s = Fixture.state(width: width, height: height)
    s.preview.visibility = .automatic
    _ = s.reduce(.tick)
    return s
  }

  /// The last preview asked for among `effects` (the one whose answer counts).
  static func asked(_ effects: [Effect]) -> (ticket: UInt64, subject: PreviewSubject)? {
    var last: (UInt64, PreviewSubject)?
    for case .preview(let t, let s) in effects { last = (t, s) }
    return last
  }

  @Test func theLayoutGivesEveryPartItsRectangle() {
    let narrow = Layout(width: 80, height: 24, sidebar: true, pane: false, paneFull: false)
    #expect(narrow.sidebar == Layout.Rect(x: 0, y: 1, width: 20, height: 22))
    #expect(narrow.list == Layout.Rect(x: 21, y: 1, width: 59, height: 22))
    #expect(narrow.listRows.height == 20 && narrow.pane.isEmpty)
    let wide = Layout(width: 160, height: 40, sidebar: true, pane: true, paneFull: false)
    #expect(wide.sidebar.width == 26)
    #expect(wide.list.x == 27 && wide.list.maxX == wide.pane.x && wide.pane.maxX == 160)
    #expect(wide.pane.width == (160 - 27) * 45 / 100)
    let full = Layout(width: 160, height: 40, sidebar: true, pane: true, paneFull: true)
    #expect(full.list.isEmpty && full.sidebar.isEmpty && full.pane == Layout.Rect(x: 0, y: 1, width: 160, height: 38))
    // Too narrow for a list and a pane: no pane.
    #expect(Layout(width: 30, height: 10, sidebar: false, pane: true, paneFull: false).pane.isEmpty)
  }

  @Test func at80ColumnsThePaneWaitsForV_from120ItIsThere() {
    var s = Self.state(width: 80, height: 24)
    #expect(!s.isPreviewShown)
    #expect(Self.asked(s.press(.down)) == nil)
    let effects = s.press(.character("v"))
    let asked = try? #require(Self.asked(effects))
    #expect(asked?.subject.item == s.visibleBrowseItem(at: s.browse.cursor))
    #expect(s.layout.pane.width > 0)
    // v again hides it and cancels the job.
    #expect(s.press(.character("v")).contains(.cancelPreview))
    #expect(!s.isPreviewShown)

    var wide = Self.state(width: 140, height: 30)
    #expect(wide.isPreviewShown)
    #expect(Self.asked(wide.press(.down)) != nil)
    // Hidden by the person, it stays hidden on a resize.
    _ = wide.press(.character("v"))
    _ = wide.reduce(.resized(width: 200, height: 50))
    #expect(!wide.isPreviewShown)
  }

  @Test func onlyTheLatestTicketsAnswerIsShown() throws {
    var s = Self.state(width: 140, height: 30)
    let first = try #require(Self.asked(s.press(.down)))
    let second = try #require(Self.asked(s.press(.down)))
    #expect(second.ticket > first.ticket)
    // The first answer comes late: dropped.
    _ = s.reduce(.previewed(ticket: first.ticket, Preview(body: .message("old"))))
    #expect(s.preview.shown == nil)
    _ = s.reduce(.previewLate(ticket: first.ticket))
    #expect(!s.preview.loadingVisible)
    // Late for the current one: "loading…"; then its answer replaces it.
    _ = s.reduce(.previewLate(ticket: second.ticket))
    #expect(s.preview.loadingVisible)
    _ = s.reduce(.previewed(ticket: second.ticket, Preview(body: .message("new"))))
    #expect(s.preview.shown == Preview(body: .message("new")) && !s.preview.loadingVisible)
    // A late notice after the answer changes nothing.
    _ = s.reduce(.previewLate(ticket: second.ticket))
    #expect(!s.preview.loadingVisible)
    // Nothing moved: no new job.
    #expect(Self.asked(s.reduce(.tick)) == nil)
  }

  @Test func theFullScreenPreviewScrollsAndItsKeysActOnNothingElse() throws {
    var s = Self.state(width: 80, height: 24)
    let asked = try #require(Self.asked(s.press(.character("V"))))
    #expect(s.preview.full && s.layout.paneIsFull)
    let lines = (1...100).map { StyledLine("line \($0)") }
    _ = s.reduce(.previewed(ticket: asked.ticket, Preview(body: .lines(lines))))
    let cursor = s.browse.cursor
    _ = s.press(.character("j"), .character("j"), .pageDown)
    #expect(s.preview.scroll == 2 + (s.layout.paneContent.height - 3))
    #expect(s.browse.cursor == cursor)
    _ = s.press(.character("G"))
    #expect(s.preview.scroll == 100 - (s.layout.paneContent.height - 2))
    // d deletes nothing nobody sees in a list.
    #expect(s.press(.character("d")).isEmpty && s.overlay == nil)
    let screen = AppView.render(s)
    #expect(screen.textLines().last!.contains("of 100"))
    _ = s.press(.escape)
    #expect(!s.preview.full && s.isPreviewShown)
    // The scroll position belongs to this item; another item starts at its top.
    _ = s.press(.down)
    #expect(s.preview.scroll == 0)
  }

  /// The pane beside the list, text with its tokens and a hostile line: snapshots a person reads.
  @Test(arguments: [Size(width: 120, height: 30), Size(width: 200, height: 50)])
  func thePaneShowsTextWithItsTokens(_ size: Size) throws {
    var s = Self.state(width: size.width, height: size.height)
    let asked = try #require(Self.asked(s.press(.down, .down, .down)))
    let code = [
      StyledLine([.init("import", .token(.keyword)), .init(" Foundation")]),
      StyledLine([.init("// a comment", .token(.comment))]),
      StyledLine([.init("let", .token(.keyword)), .init(" x = "), .init("\"\\e[31m\"", .token(.string))]),
      // A producer's escape for a control byte, and raw controls that Screen still neutralises.
      StyledLine([.init("^[", .escape), .init("]52;c;… \u{1B}[2J \u{202E}evil")]),
    ]
    _ = s.reduce(.previewed(ticket: asked.ticket, Preview(typeDescription: "Swift source, ASCII text", extent: "first 64 KiB of 2.1 GB", body: .lines(code))))
    assertSnapshot(of: s, named: "preview-text-\(size)")
  }

  @Test func thePaneShowsAPictureAFolderAndAMessage() throws {
    var s = Self.state(width: 120, height: 30)
    var asked = try #require(Self.asked(s.press(.down)))
    let red = InkColor.rgb(255, 0, 0)
    let blue = InkColor.palette(21)
    let picture = PictureCells(columns: 4, rows: 2, upper: Array(repeating: red, count: 8), lower: Array(repeating: blue, count: 8))
    _ = s.reduce(.previewed(ticket: asked.ticket, Preview(typeDescription: "PNG image data, 4 x 4", body: .picture(picture))))
    var screen = AppView.render(s)
    let row = screen.textLines()[3]
    #expect(row.contains("▀▀▀▀"), "\(row)")
    let x = try #require(Array(row).firstIndex(of: "▀"))
    #expect(screen[x, 3].ink == Ink(foreground: red, background: blue))

    asked = try #require(Self.asked(s.press(.down)))
    let entries = (0..<40).map { Fixture.item("entry \($0)", id: "e\($0)", folder: $0 < 2) }
    _ = s.reduce(.previewed(ticket: asked.ticket, Preview(body: .folder(entries: entries, total: 3000))))
    screen = AppView.render(s)
    let text = screen.textLines().joined(separator: "\n")
    #expect(text.contains("entry 0/") && text.contains("more"))

    asked = try #require(Self.asked(s.press(.down)))
    _ = s.reduce(.previewed(ticket: asked.ticket, Preview(body: .message("a FIFO (named pipe): reading it could wait forever, so it is never read"))))
    #expect(AppView.render(s).textLines().joined().contains("named pipe"))
  }

  @Test func theLoadingLineWaitsForItsDelayAndThePreviousPreviewStaysMeanwhile() throws {
    var s = Self.state(width: 120, height: 30)
    let first = try #require(Self.asked(s.press(.down)))
    _ = s.reduce(.previewed(ticket: first.ticket, Preview(body: .lines([StyledLine("first file's text")]))))
    let second = try #require(Self.asked(s.press(.down)))
    #expect(AppView.render(s).textLines().joined().contains("first file's text"))
    _ = s.reduce(.previewLate(ticket: second.ticket))
    let text = AppView.render(s).textLines().joined()
    #expect(text.contains("loading") && !text.contains("first file's text"))
  }

  @Test func resizingWithThePaneOpenAsksAgainForTheNewSize() throws {
    var s = Self.state(width: 120, height: 30)
    let before = try #require(Self.asked(s.press(.down)))
    let after = try #require(Self.asked(s.reduce(.resized(width: 200, height: 50))))
    #expect(after.subject.item == before.subject.item && after.subject.columns > before.subject.columns)
    #expect(Self.asked(s.reduce(.resized(width: 100, height: 30))) == nil)  // under 120: no pane
  }
}

/// Each kind of preview as a person reads it in the pane: real PreviewKit output (the highlighter,
/// the JSON printer, the hex dump) drawn by the view, snapshots at 120x30.
@Suite struct PreviewKindSnapshotTests {
  static let code = """
    import Foundation

    /// A \u{1B}]0;title\u{07} comment with an escape in it.
    struct Greeter {
      let name: String
      func greet() -> String { "Hello, \\(name)! \\u{1F600}" }  // 42 times
    }

    """

  static func shown(_ preview: Preview, full: Bool = false) throws -> AppState {
    var s = PreviewPaneTests.state(width: 120, height: 30)
    var effects = s.press(.down, .down, .down)
    if full { effects += s.press(.character("V")) }
    let asked = try #require(PreviewPaneTests.asked(effects))
    _ = s.reduce(.previewed(ticket: asked.ticket, preview))
    return s
  }

  @Test func swiftCode() throws {
    let p = TextPreview.make(name: "Greeter.swift", bytes: Array(Self.code.utf8), totalSize: Self.code.utf8.count)
    assertSnapshot(of: try Self.shown(p), named: "preview-swift-120x30")
  }

  @Test func minifiedJSONPrettyPrinted() throws {
    let json = #"{"name":"folio","tags":["red","blue"],"size":1234,"ok":true,"none":null}"#
    let p = TextPreview.make(name: "data.json", bytes: Array(json.utf8), totalSize: json.utf8.count)
    assertSnapshot(of: try Self.shown(p), named: "preview-json-120x30")
  }

  @Test func binaryAsHex() throws {
    let bytes: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 2, 1, 1, 0] + (0..<200).map { UInt8($0 &* 37 & 0xFF) }
    let p = TextPreview.make(name: "a.out", bytes: bytes, totalSize: 2 << 30)
    assertSnapshot(of: try Self.shown(p), named: "preview-hex-120x30")
  }

  @Test func aPictureCentredInThePane() throws {
    let columns = 16
    let rows = 6
    var upper: [InkColor] = []
    var lower: [InkColor] = []
    for r in 0..<rows {
      for c in 0..<columns {
        upper.append(.rgb(UInt8(c * 16), UInt8(r * 40), 200))
        lower.append(.rgb(UInt8(c * 16), UInt8(r * 40 + 20), 100))
      }
    }
    let p = Preview(typeDescription: "PNG image data, 16 x 12", body: .picture(PictureCells(columns: columns, rows: rows, upper: upper, lower: lower)))
    assertSnapshot(of: try Self.shown(p), named: "preview-picture-120x30")
  }

  @Test func fullScreenReading() throws {
    let text = (1...80).map { "line \($0) of the file" }.joined(separator: "\n")
    let p = TextPreview.make(name: "notes.txt", bytes: Array(text.utf8), totalSize: text.utf8.count)
    var s = try Self.shown(p, full: true)
    _ = s.press(.character("j"), .character("j"))
    assertSnapshot(of: s, named: "preview-full-120x30")
  }
}
