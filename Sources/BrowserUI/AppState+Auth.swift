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
      let name = sidebar.locations.first { $0.domain == domain }?.name ?? domain.rawValue
      overlay = .auth(AuthPromptState(domain: domain, locationName: name, retry: retry, reason: TerminalText.escape(reason)))
      return []
    case .authenticated(let domain):
      guard case .auth(let a) = overlay, a.domain == domain else { return [] }
      overlay = nil
      message = StatusMessage("Signed in to \(a.locationName)")
      // The throttled work resumes by itself.
      var effects: [Effect] = []
      for e in a.retry {
        if case .enumerate = e { effects += reload(keeping: currentItem?.identifier) } else { effects.append(e) }
      }
      return effects + [.refreshSidebar]
    case .authenticationFailed(let domain, let error):
      guard case .auth(var a) = overlay, a.domain == domain else { return [] }
      a.isSigningIn = false
      a.error = TerminalText.escape(error.message)
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
    case .tab, .backTab, .down, .up:
      a.field = 1 - a.field
    case .enter:
      if a.field == 0 {
        a.field = 1
      } else if !a.user.string.isEmpty {
        a.isSigningIn = true
        a.error = nil
        overlay = .auth(a)
        return [.authenticate(a.domain, user: a.user.string, secret: a.secret.string)]
      }
    default:
      if a.field == 0 { _ = a.user.apply(key) } else { _ = a.secret.apply(key) }
    }
    overlay = .auth(a)
    return []
  }
}
