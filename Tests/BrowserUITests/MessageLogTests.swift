import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// The message log (`W`): every status message of the session with its time, newest first,
/// each whole; and the status line saying a message was cut.
@Suite struct MessageLogTests {
  static let long =
    "Cannot upload Quarterly report final version.pdf: the server refused it because the folder is over its quota; free some space on the server or ask its owner, then Retry"

  func screen(_ s: AppState) -> String {
    _ = Snapshots.setUp  // wcwidth needs a UTF-8 locale before the first render
    return AppView.render(s).textLines().joined(separator: "\n")
  }

  @Test func everyMessageIsKeptWithItsTimeBoundedToTheLastFiveHundred() {
    var s = Fixture.state()
    s.messageLog.now = Fixture.date(2026, 11, 28, 9, 15)
    _ = s.reduce(.operationSucceeded(message: "Renamed to a.txt", reload: false, select: nil))
    s.messageLog.now = Fixture.date(2026, 11, 28, 9, 16)
    _ = s.reduce(.operationFailed(ProviderError(.noPermission, "no permission to write \u{1B}[31mhere")))
    #expect(s.messageLog.entries.map(\.text) == ["Renamed to a.txt", "no permission to write \\e[31mhere"])
    #expect(s.messageLog.entries.map(\.isError) == [false, true])
    #expect(s.messageLog.entries.map(\.date) == [Fixture.date(2026, 11, 28, 9, 15), Fixture.date(2026, 11, 28, 9, 16)])
    // A key clears the status line, not the log.
    s.press(.down)
    #expect(s.message == nil)
    #expect(s.messageLog.entries.count == 2)
    for i in 0..<600 { _ = s.reduce(.notice(StatusMessage("notice \(i)"))) }
    #expect(s.messageLog.entries.count == MessageLog.limit)
    #expect(s.messageLog.entries.last?.text == "notice 599")
    #expect(s.messageLog.entries.first?.text == "notice 100")
  }

  @Test func wListsThemNewestFirstWholeAndScrolls() {
    var s = Fixture.state(width: 80, height: 12)
    s.messageLog.now = Fixture.date(2026, 11, 28, 9, 15)
    _ = s.reduce(.operationFailed(ProviderError(.insufficientQuota, Self.long)))
    s.messageLog.now = Fixture.date(2026, 11, 28, 10, 2)
    _ = s.reduce(.notice(StatusMessage("Downloaded Notes.txt")))
    s.press(.character("W"))
    #expect(s.overlay == .messageLog(top: 0))
    let shown = screen(s)
    #expect(shown.contains("Messages"))
    let newest = shown.range(of: "10:02:00")
    let older = shown.range(of: "09:15:00")
    #expect(newest != nil && older != nil && newest!.lowerBound < older!.lowerBound, "newest first:\n\(shown)")
    // The long one is wrapped whole, its end included.
    #expect(shown.contains("then Retry"), "\(shown)")
    #expect(!shown.contains("\u{1B}"))
    // j scrolls by a line, never past the last; any other key closes.
    s.press(.character("j"))
    #expect(s.overlay == .messageLog(top: 1))
    for _ in 0..<50 { s.press(.character("j")) }
    guard case .messageLog(let top) = s.overlay else {
      Issue.record("closed")
      return
    }
    #expect(top == MessageLogView.lines(s, width: MessageLogView.textWidth(s)).count - 1)
    s.press(.character("x"))
    #expect(s.overlay == nil)
  }

  @Test func aMessageCutOnTheStatusLineSaysWhereToReadItWhole() {
    _ = Snapshots.setUp
    var s = Fixture.state(width: 80, height: 24)
    _ = s.reduce(.operationFailed(ProviderError(.insufficientQuota, Self.long)))
    let status = AppView.render(s).textLines().last ?? ""
    #expect(status.contains("… W: log"), "\(status)")
    // One that fits has no hint.
    _ = s.reduce(.notice(StatusMessage("Downloaded Notes.txt")))
    let short = AppView.render(s).textLines().last ?? ""
    #expect(short.contains("Downloaded Notes.txt") && !short.contains("W: log"), "\(short)")
    // The hint names the key the person bound.
    let (map, problems) = KeyMap.standard.overridden(by: ["message-log": ["f2"]])
    #expect(problems.isEmpty)
    s.keyMap = map
    _ = s.reduce(.operationFailed(ProviderError(.insufficientQuota, Self.long)))
    #expect((AppView.render(s).textLines().last ?? "").contains("f2: log"))
  }

  @Test func theHelpEndsWithTheLegendOfTheBadges() {
    var s = Fixture.state(width: 80, height: 24)
    s.press(.character("?"))
    for _ in 0..<200 { s.press(.character("j")) }
    let shown = screen(s)
    #expect(shown.contains("Badges (ASCII form)"), "\(shown)")
    #expect(shown.contains("☁ (c)") && shown.contains("In the cloud, not downloaded"), "\(shown)")
    #expect(shown.contains("⚠ (C)") && shown.contains("Conflict: both versions kept"), "\(shown)")
    // Every badge a row can show has its line, from the same glyphs.
    let legend = BadgeLegend.rows(Glyphs.unicode)
    for badge in [Badge.notDownloaded, .downloading, .uploading, .queued, .error, .conflict, .pinned, .excluded] {
      #expect(legend.contains { $0.glyph == badge.glyph(.unicode) && $0.asciiGlyph == badge.glyph(.ascii) && $0.role == badge.role })
    }
    // ASCII mode draws the ASCII forms only.
    s.ascii = true
    let ascii = screen(s)
    #expect(ascii.contains("c") && ascii.contains("In the cloud, not downloaded") && !ascii.contains("☁"), "\(ascii)")
  }
}
