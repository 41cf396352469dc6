import BrowserUI
import Foundation
import ProviderAPI
import Testing

/// The authentication prompt: opened by notAuthenticated, masked, and the failed work resumes.
@Suite struct AuthPromptTests {
  static let remote = DomainIdentifier(unchecked: "work")

  func state() -> AppState {
    DisplayWidth.setUp()
    let root = FolderLocation(domain: Self.remote, identifier: .root, path: .root, name: "Work")
    var s = AppState(
      width: 80, height: 24, start: root,
      locations: [LocationEntry(domain: Self.remote, name: "Work", root: root)])
    _ = s.start()
    return s
  }

  func type(_ text: String, into s: inout AppState) -> [Effect] {
    var effects: [Effect] = []
    for c in text { effects += s.reduce(.key(.character(c))) }
    return effects
  }

  @Test func notAuthenticatedOpensThePromptAndSignInResumesTheListing() throws {
    var s = state()
    let ticket = s.browse.ticket
    _ = s.reduce(.loadFailed(ticket: ticket, ProviderError(.notAuthenticated, "sign in to work to continue")))
    guard case .auth(let a) = s.overlay else {
      Issue.record("expected the authentication prompt, got \(String(describing: s.overlay))")
      return
    }
    #expect(a.domain == Self.remote)
    #expect(a.error == "sign in to work to continue")
    // Keys still answer while the prompt is open; Enter on the user field moves to the password.
    _ = type("ana", into: &s)
    _ = s.reduce(.key(.enter))
    _ = type("s3cret", into: &s)
    let screen = AppView.render(s).textLines().joined(separator: "\n")
    #expect(screen.contains("Sign in to Work"))
    #expect(screen.contains("ana"))
    #expect(!screen.contains("s3cret"), "the password must be masked")
    #expect(screen.contains("••••••"))
    let effects = s.reduce(.key(.enter))
    #expect(effects == [.authenticate(Self.remote, user: "ana", secret: "s3cret", remember: false)])

    // A wrong password keeps the prompt, says why, and clears the secret.
    _ = s.reduce(.authenticationFailed(Self.remote, ProviderError(.notAuthenticated, "wrong user name or password")))
    guard case .auth(let again) = s.overlay else {
      Issue.record("the prompt closed after a failed sign-in")
      return
    }
    #expect(again.error == "wrong user name or password")
    #expect(again.secret.string.isEmpty)
    #expect(again.user.string == "ana")

    // Success closes it and the listing starts again by itself, with a new ticket.
    let resumed = s.reduce(.authenticated(Self.remote))
    #expect(s.overlay == nil)
    #expect(resumed.contains { if case .enumerate(let t, _, _, _, _) = $0 { return t != ticket } else { return false } })
  }

  @Test func escapeCancelsAndSaysSo() {
    var s = state()
    _ = s.reduce(.authenticationRequired(Self.remote, retry: [.emptyTrash(Self.remote)], reason: "sign in"))
    _ = s.reduce(.key(.escape))
    #expect(s.overlay == nil)
    #expect(s.message?.isError == true)
  }

  @Test func aSecondFailureAddsItsWorkToTheSamePrompt() {
    var s = state()
    _ = s.reduce(.authenticationRequired(Self.remote, retry: [.emptyTrash(Self.remote)], reason: "sign in"))
    _ = s.reduce(.authenticationRequired(Self.remote, retry: [.refreshSidebar], reason: "sign in"))
    guard case .auth(let a) = s.overlay else {
      Issue.record("no prompt")
      return
    }
    #expect(a.retry == [.emptyTrash(Self.remote), .refreshSidebar])
    let effects = s.reduce(.authenticated(Self.remote))
    #expect(effects.contains(.emptyTrash(Self.remote)))
    #expect(effects.contains(.refreshSidebar))
  }
}
