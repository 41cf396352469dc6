import Foundation
import ProviderAPI
import Testing

@testable import BrowserUI

/// The views of a remote location: badges from the live transfer map, the server's decorations,
/// the sidebar's states, the menu of remote items, Resolve Conflict…, Info and the sign-in prompt.
extension Scenario {
  static func remote(_ size: Size) -> AppState { RemoteFixture.state(width: size.width, height: size.height) }

  /// The cursor on the file being opened: `↓ 42%` on its row and on the status line.
  static let remoteBrowse = Scenario("remote-browse") { size in
    var s = remote(size)
    s.press(.down, .down)
    _ = s.reduce(.opening(Opening(key: RemoteFixture.key("i4"), name: "Big dataset.csv")))
    s.message = nil  // the quota message gives way to the download's progress
    return s
  }

  static let remoteASCII = Scenario("remote-ascii") { size in
    var s = remote(size)
    s.ascii = true
    s.press(.down, .down)
    return s
  }

  /// The menu of the upload stopped over quota: Retry, Keep Downloaded, the server's Lock.
  static let remoteMenu = Scenario("remote-menu") { size in
    var s = remote(size)
    for _ in 0..<6 { s.press(.down) }
    s.press(.character("m"))
    return s
  }

  /// The menu of a file in the cloud: Download.
  static let remoteMenuCloud = Scenario("remote-menu-cloud") { size in
    var s = remote(size)
    for _ in 0..<7 { s.press(.down) }
    s.press(.character("m"))
    return s
  }

  /// Resolve Conflict… on the original: its copy was found next to it.
  static let remoteResolve = Scenario("remote-resolve") { size in
    var s = remote(size)
    for _ in 0..<9 { s.press(.down) }
    s.press(.character("m"))
    if case .menu(let m) = s.overlay, let i = m.entries.firstIndex(where: { $0.title == "Resolve Conflict…" }) {
      for _ in 0..<i { s.press(.down) }
      s.press(.enter)
    }
    return s
  }

  /// Info of the locked, shared file: owner and the decorations' labels.
  static let remoteInfo = Scenario("remote-info") { size in
    var s = remote(size)
    for _ in 0..<7 { s.press(.down) }
    s.press(.character("i"))
    return s
  }

  /// Info of the upload stopped over quota: why, and what to do.
  static let remoteInfoError = Scenario("remote-info-error") { size in
    var s = remote(size)
    for _ in 0..<6 { s.press(.down) }
    s.press(.character("i"))
    return s
  }

  /// Info of a file on a server that ignores conditional writes: it cannot detect conflicting edits.
  static let remoteInfoUnguarded = Scenario("remote-info-unguarded") { size in
    var s = RemoteFixture.state(width: size.width, height: size.height, detectsConflictingEdits: false)
    for _ in 0..<4 { s.press(.down) }
    s.press(.character("i"))
    return s
  }

  /// The sign-in prompt a revoked session opens: the user is known, the hint of `folio demo`.
  static let remoteAuth = Scenario("remote-auth") { size in
    var s = remote(size)
    _ = s.reduce(.locationThrottled(RemoteFixture.demo, ProviderError(.notAuthenticated, "demo refused the password of ana")))
    s.type("hunter2")
    return s
  }

  static let remoteAll: [Scenario] = [
    remoteBrowse, remoteASCII, remoteMenu, remoteMenuCloud, remoteResolve, remoteInfo, remoteInfoError, remoteInfoUnguarded,
    remoteAuth,
  ]
}

@Suite struct RemoteViewSnapshotTests {
  @Test(arguments: Scenario.remoteAll, Size.standard)
  func snapshot(_ scenario: Scenario, _ size: Size) {
    assertSnapshot(of: scenario.make(size), named: "\(scenario.name)-\(size)")
  }

  @Test(arguments: Scenario.remoteAll)
  func everySizeIsWellFormed(_ scenario: Scenario) {
    _ = Snapshots.setUp
    var problems: [String] = []
    for w in [1, 5, 10, 20, 30, 40, 60, 79, 80, 100, 200] {
      for h in [1, 3, 4, 6, 10, 24, 50] {
        problems += screenProblems(AppView.render(scenario.make(Size(width: w, height: h)))).map { "\(w)x\(h): \($0)" }
      }
    }
    #expect(problems.isEmpty, "\(problems.count) problems, first: \(problems.prefix(5).joined(separator: "; "))")
  }

  /// At 80 columns the sidebar has 20: a state with transfers waiting is cut short as the list's
  /// queued mark and a count, not with an ellipsis in the middle of "waiting".
  @Test func aStateWithWaitingTransfersFitsANarrowSidebar() {
    _ = Snapshots.setUp
    var s = RemoteFixture.state(width: 80, height: 24)
    _ = s.reduce(.locationStatus(RemoteFixture.demo, .offline("cannot reach demo")))
    _ = s.reduce(.locationSyncing(RemoteFixture.demo, 1))
    let text = AppView.render(s).textLines().joined(separator: "\n")
    #expect(text.contains("Demo (offline ◷1)"), "\(text)")
    _ = s.reduce(.locationSyncing(RemoteFixture.demo, 0))
    #expect(AppView.render(s).textLines().joined(separator: "\n").contains("Demo (offline)"))
  }

  /// Every badge of the vocabulary is drawn in its role, and the server's hostile glyph is not.
  @Test func theBadgesAndDecorationsHaveTheirRoles() {
    _ = Snapshots.setUp
    let screen = AppView.render(Scenario.remoteBrowse.make(Size(width: 120, height: 30)))
    let text = screen.textLines().joined(separator: "\n")
    #expect(text.contains("Big dataset.csv 42%"))
    #expect(text.contains("Project plan.md 7%"))
    #expect(text.contains("Release checklist.md 🔒👥"))
    #expect(text.contains("Team handbook.md 👥"))
    #expect(text.contains("Downloading Big dataset.csv… 42%"))
    #expect(text.contains("Demo (syncing 3)"))
    #expect(!text.contains("\u{1B}"), "nothing the server declared reaches the terminal raw")
    let roles = Set((0..<screen.height).flatMap { y in (0..<screen.width).map { screen[$0, y].role } })
    for role: StyleRole in [
      .badgeCloud, .badgeDownloading, .badgeUploading, .badgeQueued, .badgeError, .badgeConflict, .badgePinned,
      .badgeShared, .badgeDecoration,
    ] {
      #expect(roles.contains(role), "no cell drawn as \(role)")
    }
  }
}
