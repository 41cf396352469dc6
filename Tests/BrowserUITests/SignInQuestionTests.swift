import BrowserUI
import Foundation
import ProviderAPI
import Testing

/// The question box: what an SSH host's ssh asks while it connects, answered in Folio's own box.
@Suite struct SignInQuestionTests {
  static let box = DomainIdentifier(unchecked: "box")
  static let root = FolderLocation(domain: box, identifier: .root, path: .root, name: "box")

  func state() -> AppState {
    DisplayWidth.setUp()
    var entry = LocationEntry(domain: Self.box, name: "box", root: Self.root, isRemote: true, hasTrash: false)
    entry.signsInByQuestions = true
    var s = AppState(width: 90, height: 24, start: Self.root, locations: [entry])
    _ = s.start()
    return s
  }

  static func passphrase(_ id: UInt64, again: Bool = false) -> SignInQuestion {
    SignInQuestion(
      id: id, domain: box, kind: .secret,
      lines: ["Enter passphrase for key '/keys/id_ed25519': "],
      askedAgain: again)
  }

  static let hostKey = SignInQuestion(
    id: 7, domain: box, kind: .hostKey,
    lines: [
      "The authenticity of host '[127.0.0.1]:2222 ([127.0.0.1]:2222)' can't be established.",
      "ED25519 key fingerprint is SHA256:abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG.",
      "Are you sure you want to continue connecting (yes/no/[fingerprint])? ",
    ],
    fingerprint: "SHA256:abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG")

  func type(_ text: String, into s: inout AppState) -> [Effect] {
    text.flatMap { s.reduce(.key(.character($0))) }
  }

  func screen(_ s: AppState) -> String { AppView.render(s).textLines().joined(separator: "\n") }

  @Test func aSecretIsAskedWithSshsWordsMaskedAndAnsweredOnEnter() {
    var s = state()
    #expect(s.reduce(.signInQuestion(Self.passphrase(1))).isEmpty, "the connection waits; the loop does not")
    _ = type("hunter2", into: &s)
    let shown = screen(s)
    #expect(shown.contains("Sign in to box") && shown.contains("Enter passphrase for key '/keys/id_ed25519'"), "\(shown)")
    #expect(!shown.contains("hunter2") && shown.contains("•••••••"), "masked:\n\(shown)")
    #expect(!shown.contains("refused the previous answer"))
    let effects = s.reduce(.key(.enter))
    #expect(effects.contains(.answerSignInQuestion(id: 1, .secret("hunter2"))))
    #expect(effects.contains(.checkLocations([Self.box])))
    #expect(s.signInQuestions.isEmpty)

    // ssh did not take it and asks again: the box says so.
    _ = s.reduce(.signInQuestion(Self.passphrase(2, again: true)))
    let again = screen(s)
    #expect(again.contains("Enter passphrase") && again.contains("ssh refused the previous answer"), "\(again)")
  }

  @Test func aHostKeyNeedsTheWordYesNotEnterNorY() {
    var s = state()
    _ = s.reduce(.signInQuestion(Self.hostKey))
    var shown = screen(s)
    #expect(shown.contains("Unknown host key: box"))
    #expect(shown.contains("Fingerprint: SHA256:abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"), "\(shown)")
    #expect(s.reduce(.key(.enter)).isEmpty, "Enter alone is no answer")
    _ = type("y", into: &s)
    #expect(s.reduce(.key(.enter)).isEmpty, "nor is y")
    shown = screen(s)
    #expect(shown.contains("Type yes to trust this key"), "\(shown)")
    _ = type("yes", into: &s)
    #expect(s.reduce(.key(.enter)).contains(.answerSignInQuestion(id: 7, .accept)))
    #expect(s.signInQuestions.isEmpty)
  }

  @Test func theSameQuestionOfTwoConnectionsIsOneBoxAndBothGetTheAnswer() {
    var s = state()
    _ = s.reduce(.signInQuestion(Self.passphrase(1)))
    _ = s.reduce(.signInQuestion(Self.passphrase(2)))
    #expect(!screen(s).contains("refused the previous"))
    _ = s.reduce(.signInQuestion(Self.passphrase(1)))
    #expect(s.signInQuestions.count == 1)
    _ = type("pw", into: &s)
    let effects = s.reduce(.key(.enter))
    #expect(effects.contains(.answerSignInQuestion(id: 1, .secret("pw"))))
    #expect(effects.contains(.answerSignInQuestion(id: 2, .secret("pw"))))
  }

  /// Two locations on one host connect at once: one host-key box, and its "yes" answers both. A
  /// passphrase is the location's own (another key, maybe): still asked per location.
  @Test func aHostKeyIsAskedOncePerHostNotPerLocation() {
    let lab = DomainIdentifier(unchecked: "lab")
    var entry = LocationEntry(domain: Self.box, name: "box", root: Self.root, isRemote: true, hasTrash: false)
    entry.signsInByQuestions = true
    var other = LocationEntry(
      domain: lab, name: "lab", root: FolderLocation(domain: lab, identifier: .root, path: .root, name: "lab"), isRemote: true,
      hasTrash: false)
    other.signsInByQuestions = true
    DisplayWidth.setUp()
    var s = AppState(width: 90, height: 24, start: Self.root, locations: [entry, other])
    _ = s.start()
    var second = Self.hostKey
    second.id = 8
    second.domain = lab
    _ = s.reduce(.signInQuestion(Self.hostKey))
    _ = s.reduce(.signInQuestion(second))
    #expect(s.signInQuestions.count == 1)
    _ = type("yes", into: &s)
    let effects = s.reduce(.key(.enter))
    #expect(effects.contains(.answerSignInQuestion(id: 7, .accept)) && effects.contains(.answerSignInQuestion(id: 8, .accept)))

    var labPassphrase = Self.passphrase(9)
    labPassphrase.domain = lab
    _ = s.reduce(.signInQuestion(Self.passphrase(10)))
    _ = s.reduce(.signInQuestion(labPassphrase))
    #expect(s.signInQuestions.count == 2, "a secret is asked for each location")
  }

  @Test func questionsOfDifferentKindsWaitTheirTurn() {
    var s = state()
    _ = s.reduce(.signInQuestion(Self.hostKey))
    _ = s.reduce(.signInQuestion(Self.passphrase(1)))
    #expect(s.signInQuestions.count == 2)
    #expect(screen(s).contains("Unknown host key") && !screen(s).contains("Enter passphrase"))
    _ = type("yes", into: &s)
    _ = s.reduce(.key(.enter))
    #expect(screen(s).contains("Enter passphrase"))
  }

  @Test func escRefusesAndBackgroundWorkDoesNotAskAgainUntilAKeyReloads() {
    var s = state()
    _ = s.reduce(.signInQuestion(Self.passphrase(1)))
    let effects = s.reduce(.key(.escape))
    #expect(effects == [.answerSignInQuestion(id: 1, .refuse)])
    #expect(s.sidebar.locations[0].state == "needs sign-in")
    #expect(s.message?.text.contains("Not signed in to box") == true)

    // The poller's connection asks: refused at once, no box.
    #expect(s.reduce(.signInQuestion(Self.passphrase(2))) == [.answerSignInQuestion(id: 2, .refuse)])
    #expect(s.signInQuestions.isEmpty)
    // Its failure opens no user-and-password form: ssh signs in, not Folio.
    _ = s.reduce(.loadFailed(ticket: s.browse.ticket, ProviderError(.notAuthenticated, "sftp-test: sign-in refused")))
    #expect(s.overlay == nil)
    #expect(s.message?.text.contains("Not signed in to box") == true, "the cancel is what the status line says")

    // Ctrl-R is the person's: the next question shows.
    let reload = s.reduce(.key(.control("r")))
    #expect(reload.contains { if case .enumerate = $0 { true } else { false } })
    #expect(s.reduce(.signInQuestion(Self.passphrase(3))).isEmpty)
    #expect(s.signInQuestions.first?.question.id == 3)
  }

  @Test func aRefusedSignInWithoutAQuestionSaysSshsReasonAndOpensNoForm() {
    var s = state()
    _ = s.reduce(
      .loadFailed(ticket: s.browse.ticket, ProviderError(.notAuthenticated, "sftp-test: the host key was not accepted (WARNING)")))
    #expect(s.overlay == nil)
    #expect(s.signInQuestions.isEmpty)
    #expect(s.message?.text == "box: sftp-test: the host key was not accepted (WARNING)")
    #expect(s.sidebar.locations[0].state == "needs sign-in")
  }

  /// A changed host key is not a sign-in: the sidebar says what it is, and no form or box opens.
  @Test func aChangedHostKeyIsItsOwnStateNotASignIn() {
    var s = state()
    _ = s.reduce(
      .loadFailed(
        ticket: s.browse.ticket,
        ProviderError(.serverNotTrusted, "sftp-test: the host key has changed, so this may not be the server you know")))
    #expect(s.overlay == nil)
    #expect(s.signInQuestions.isEmpty)
    #expect(s.message?.text.contains("host key has changed") == true, "\(String(describing: s.message))")
    #expect(s.sidebar.locations[0].state == "host key changed")
  }

  @Test func aNoticeIsSaidNotAsked() {
    var s = state()
    let q = SignInQuestion(id: 4, domain: Self.box, kind: .notice, lines: ["Confirm user presence for key ED25519-SK"])
    #expect(s.reduce(.signInQuestion(q)) == [.answerSignInQuestion(id: 4, .accept)])
    #expect(s.signInQuestions.isEmpty)
    #expect(s.message?.text == "box: Confirm user presence for key ED25519-SK")
  }
}
