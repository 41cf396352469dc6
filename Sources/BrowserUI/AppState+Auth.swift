import ProviderAPI

extension AppState {
  mutating func reduceAuthentication(_ action: Action) -> [Effect] {
    switch action {
    case .authenticationRequired(let domain, let retry, let reason):
      if case .auth(var a) = overlay, a.domain == domain {
        // Already asking: keep the work to resume.
        a.retry += retry.filter { !a.retry.contains($0) }
        overlay = .auth(a)
        return []
      }
      let location = sidebar.locations.first { $0.domain == domain }
      let name = location?.name ?? domain.rawValue
      setStatus(.needsSignIn(reason), of: domain)
      if location?.signsInByQuestions == true {
        // ssh asked its questions in the question box while it connected (or was refused one):
        // no user-and-password form could add anything. Its reason (sign-in refused, a host key
        // changed) is said; Enter on the location or Ctrl-R connects, and asks, again.
        if signInQuestions.isEmpty && !signInDeclined.contains(domain) {
          message = StatusMessage(TerminalText.escape(name) + ": " + TerminalText.escape(reason), isError: true)
        }
        return []
      }
      var prompt = AuthPromptState(
        domain: domain, locationName: name, retry: retry, reason: TerminalText.escape(reason), user: location?.userName,
        hint: location?.signInHint.map(TerminalText.escape))
      prompt.canRemember = location?.isRemote ?? false
      prompt.labels = location?.credentialLabels ?? LocationEntry.defaultCredentialLabels
      prompt.remember = prompt.canRemember
      overlay = .auth(prompt)
      return []
    case .authenticated(let domain):
      guard case .auth(let a) = overlay, a.domain == domain else { return [] }
      overlay = nil
      message = StatusMessage("Signed in to \(a.locationName)" + (a.remember && a.canRemember ? " (password remembered)" : ""))
      setStatus(.online, of: domain)
      // The throttled work resumes by itself.
      var effects: [Effect] = []
      for e in a.retry {
        if case .enumerate = e { effects += reload(keeping: currentItem?.identifier) } else { effects.append(e) }
      }
      return effects + [.refreshSidebar] + (isRemote(domain) ? [.checkLocations([domain])] : [])
    case .authenticationFailed(let domain, let error):
      guard case .auth(var a) = overlay, a.domain == domain else { return [] }
      a.isSigningIn = false
      a.error = TerminalText.escapeMessage(error.message)
      a.secret = LineEditor("")
      a.field = 1
      overlay = .auth(a)
      return []
    default:
      return []
    }
  }

  mutating func handleAuthKey(_ key: KeyEvent, _ a: AuthPromptState) -> [Effect] {
    var a = a
    switch key {
    case .escape:
      overlay = nil
      message = StatusMessage("Not signed in to \(a.locationName)", isError: true)
      return []
    case .tab, .down:
      let fields = a.canRemember ? 3 : 2
      a.field = (a.field + 1) % fields
    case .backTab, .up:
      let fields = a.canRemember ? 3 : 2
      a.field = (a.field + fields - 1) % fields
    case .character(" ") where a.field == 2:
      a.remember.toggle()
    case .enter:
      if a.field == 0 {
        a.field = 1
      } else if !a.user.string.isEmpty {
        a.isSigningIn = true
        a.error = nil
        overlay = .auth(a)
        return [.authenticate(a.domain, user: a.user.string, secret: a.secret.string, remember: a.remember)]
      } else {
        a.field = 0
      }
    default:
      if a.field == 0 { _ = a.user.apply(key) } else if a.field == 1 { _ = a.secret.apply(key) }
    }
    overlay = .auth(a)
    return []
  }
}
