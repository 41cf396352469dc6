import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// Bugs of the first cut, each pinned by the behaviour it should have had.
@Suite struct AppStateFixesTests {
  /// Backspace in Recently Deleted goes back to the folder it was opened from, with the cursor
  /// where it was, not to the first location's root.
  @Test(arguments: [KeyEvent.backspace, .left, .character("h")])
  func leavingRecentlyDeletedReturnsToThePreviousFolder(_ key: KeyEvent) {
    var s = Fixture.state()
    s.select("plain")
    let folder = s.browse.location
    s.press(.character("b"))
    s.sidebar.cursor = s.sidebar.entries.firstIndex(of: .trash(.local))!
    #expect(s.press(.enter).enumerations.first?.location == .trash(.local))
    let effects = s.press(key)
    #expect(effects.enumerations.first?.location == folder)
    #expect(s.browse.location == folder)
    #expect(s.browse.pendingSelection == ItemIdentifier("plain"), "the cursor goes back to where it was")
    // With nowhere to go back to, Recently Deleted falls back to the first location's root.
    var t = Fixture.state()
    _ = t.go(to: .trash(.local), pushBack: false)
    #expect(t.press(key).enumerations.first?.location == .folder(Fixture.locations[0].root))
  }

  /// A folder that can be read but not searched (mode 644) showed "(empty folder)": its entries
  /// are listed by name, with the error badge and `?` for what is unknown, and the status line
  /// says why.
  @Test func entriesListedByNameOnlyShowAndSayWhy() {
    let error = ProviderError(
      .noPermission, "cannot read the details of '/home/ana/notes.txt': Permission denied", underlying: 13)
    let unreadable = [
      Fixture.item("inner", id: "u1", folder: true) { $0.metadataError = error; $0.contentModificationDate = nil },
      Fixture.item("notes.txt", id: "u2", size: nil) { $0.metadataError = error; $0.contentModificationDate = nil },
    ]
    let s = Fixture.state(items: unreadable)
    #expect(s.message == StatusMessage("Listed by name only: " + error.message, isError: true))
    let lines = AppView.render(s).textLines()
    #expect(!lines.contains { $0.contains("(empty folder)") })
    let notes = lines.first { $0.contains("notes.txt") } ?? ""
    #expect(notes.contains("?") && notes.contains(Glyphs.unicode.error), "\(lines.joined(separator: "\n"))")
    #expect(Badge.of(unreadable[1]) == .error)
  }

  /// While the sidebar has the focus, keys act on the sidebar or do nothing: never on the list.
  @Test func listKeysDoNothingWhileTheSidebarIsFocused() {
    var s = Fixture.state()
    s.select("plain")
    let before = s
    s.press(.character("b"))
    let cursor = s.sidebar.cursor
    for key: KeyEvent in [
      .character("m"), .character("r"), .character("d"), .delete, .character("t"), .character("f"), .character("i"),
      .character("n"), .character(" "), .character("/"), .character("s"), .character("."), .menu,
      .mouseRightClick(x: 1, y: 1),
    ] {
      #expect(s.press(key).isEmpty, "\(key) did something")
      #expect(s.overlay == nil, "\(key) opened \(String(describing: s.overlay))")
    }
    #expect(s.sidebar.focused)
    #expect(s.browse == before.browse, "the list did not move nor change")
    #expect(s.showHidden == before.showHidden && s.sort == before.sort)
    #expect(s.sidebar.cursor == cursor)
    // G, End, gg, Home, PgDn move the sidebar's cursor, never the list's.
    s.press(.character("G"))
    #expect(s.sidebar.cursor == s.sidebar.entries.count - 1)
    s.press(.character("g"), .character("g"))
    #expect(s.sidebar.cursor == 1)
    s.press(.end)
    #expect(s.sidebar.cursor == s.sidebar.entries.count - 1)
    s.press(.home, .pageDown)
    #expect(s.sidebar.cursor == s.sidebar.entries.count - 1)
    s.press(.pageUp)
    #expect(s.sidebar.cursor == 1)
    #expect(s.browse.cursor == before.browse.cursor)
    // Help and quit still answer; a tab switch leaves the sidebar.
    s.press(.character("?"))
    #expect(s.overlay == .help(top: 0))
    s.press(.escape)
    s.press(.tab)
    #expect(s.tab == .recents && !s.sidebar.focused)
  }

  /// Recents has its own order: the Browse sort is not shown there.
  @Test func theSortIndicatorIsOnlyOnBrowse() {
    _ = Snapshots.setUp
    var s = Fixture.state()
    #expect(AppView.render(s).textLines()[0].contains("name ↑"))
    s.press(.tab)
    #expect(!AppView.render(s).textLines()[0].contains("name"))
  }

  /// ASCII mode writes every non-ASCII character of a name as `\u{…}`, nothing raw.
  @Test func asciiModeEscapesNonASCIINames() {
    _ = Snapshots.setUp
    var s = Fixture.state(width: 120, height: 30)
    s.ascii = true
    let lines = AppView.render(s).textLines()
    #expect(lines.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCII) }, "\(lines.joined(separator: "\n"))")
    #expect(lines.contains { $0.contains(#"Photos \u{5199}\u{771F}/"#) })
  }

  /// The help lists every command's keys in one order: named keys, Ctrl combinations, characters.
  @Test func helpListsKeysInOneOrder() {
    let map = KeyMap.standard
    #expect(map.keys(for: .up) == ["up", "k"])
    #expect(map.keys(for: .down) == ["down", "j"])
    #expect(map.keys(for: .pageUp) == ["pgup", "ctrl-b"])
    #expect(map.keys(for: .bottom) == ["end", "G"])
    #expect(map.keys(for: .open) == ["enter", "right", "l"])
    #expect(map.keys(for: .parent) == ["backspace", "left", "h"])
    #expect(map.keys(for: .delete) == ["delete", "d"])
  }

  /// A long error wraps inside the rename box instead of being cut at its edge.
  @Test func theRenameBoxWrapsItsError() {
    _ = Snapshots.setUp
    var s = Fixture.state()
    s.select("plain")
    s.press(.character("r"))
    let rename = s.press(.character("x"), .enter)
    let message = "“plain.txtx” cannot be used here: a file with that name already exists in this folder"
    _ = s.reduce(.operationFailed(ProviderError(.filenameCollision, message), from: rename.last))
    let text = AppView.render(s).textLines().joined(separator: " ")
    let words = text.split(separator: " ").map(String.init)
    for word in message.split(separator: " ") { #expect(words.contains(where: { $0.contains(word) }), "\(word) missing") }
  }

  @Test func wrapBreaksAtSpacesAndInsideLongWords() {
    _ = Snapshots.setUp  // the UTF-8 ctype wcwidth needs for 漢 (2 columns)
    #expect(DisplayWidth.wrap("one two three", to: 7) == ["one two", "three"])
    #expect(DisplayWidth.wrap("abcdefghij", to: 4) == ["abcd", "efgh", "ij"])
    #expect(DisplayWidth.wrap("漢字漢字", to: 5) == ["漢字", "漢字"])
    #expect(DisplayWidth.wrap("", to: 5) == [""])
    #expect(DisplayWidth.wrap("x", to: 0).isEmpty)
  }
}

@Suite struct DateTextTests {
  /// The arithmetic gives what a Gregorian calendar in the same zone gives, DST included.
  @Test(arguments: ["UTC", "Europe/Paris", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe"])
  func listedDatesMatchTheCalendar(_ zone: String) throws {
    let tz = try #require(TimeZone(identifier: zone))
    var cal = Calendar(identifier: .gregorian)
    cal.timeZone = tz
    var rng = SystemRandomNumberGenerator()
    var dates = [0, 951_782_400, 1_711_846_800, 1_730_595_600, -86_401].map { Date(timeIntervalSince1970: TimeInterval($0)) }
    for _ in 0..<300 { dates.append(Date(timeIntervalSince1970: TimeInterval(Int.random(in: 0..<4_102_444_800, using: &rng)))) }
    for d in dates {
      let c = cal.dateComponents([.year, .month, .day, .hour, .minute], from: d)
      let expected = String(
        format: "%04d-%02d-%02d %02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0)
      #expect(DateText.listed(d, tz) == expected, "\(d.timeIntervalSince1970) in \(zone)")
    }
    #expect(DateText.listed(nil, tz) == "-")
  }

  /// No zone fixed: the offset is the C library's local time, which agrees with Foundation's
  /// current zone (both read TZ or /etc/localtime) without asking ICU at launch.
  @Test func noZoneIsTheLocalTime() {
    var rng = SystemRandomNumberGenerator()
    let current = TimeZone.current
    for _ in 0..<300 {
      let d = Date(timeIntervalSince1970: TimeInterval(Int.random(in: 0..<2_000_000_000, using: &rng)))
      #expect(LocalTime.secondsFromGMT(for: d) == current.secondsFromGMT(for: d), "\(d) in \(current.identifier)")
      #expect(DateText.listed(d, nil) == DateText.listed(d, current))
    }
    #expect(DateText.listed(nil, nil) == "-")
  }
}
