import ProviderAPI

/// The question box: what a location asks while it connects (ssh's password, key passphrase or
/// unknown host key), answered by the person while the connection waits.
///
/// Nothing here waits: a question arrives as an action, the answer leaves as an effect, and the
/// app hands it to the connection that asked.
extension AppState {
  mutating func reduceSignInQuestion(_ q: SignInQuestion) -> [Effect] {
    if q.kind == .notice {
      // ssh dismisses a notice itself ("touch your security key"): said, not asked.
      message = StatusMessage(locationName(q.domain) + ": " + q.lines.joined(separator: " "))
      return [.answerSignInQuestion(id: q.id, .accept)]
    }
    // The person said no to this location: its background work (the poller, a status check)
    // does not bring the box back; a key that opens or reloads it does (`allowQuestions`).
    if signInDeclined.contains(q.domain) { return [.answerSignInQuestion(id: q.id, .refuse)] }
    if let i = signInQuestions.firstIndex(where: { $0.question.id == q.id || $0.question.isSame(as: q) }) {
      if signInQuestions[i].question.id != q.id && !signInQuestions[i].alsoAsking.contains(q.id) {
        signInQuestions[i].alsoAsking.append(q.id)
      }
      return []
    }
    signInQuestions.append(SignInQuestionState(question: q, locationName: locationName(q.domain)))
    return []
  }

  /// Keys while the box is up: it takes them all (Ctrl-C still quits).
  mutating func handleSignInQuestionKey(_ key: KeyEvent) -> [Effect] {
    guard var box = signInQuestions.first else { return [] }
    switch key {
    case .escape:
      return refuseSignIn(box, because: "cancelled")
    case .enter:
      switch box.question.kind {
      case .secret:
        return answer(box, .secret(box.editor.string))
      case .hostKey, .confirmation, .notice:
        // Only the word: Enter alone or "y" is what a hurried person types to make a box go away.
        let typed = box.editor.string.lowercased()
        if typed == "yes" { return answer(box, .accept) }
        if typed == "no" { return refuseSignIn(box, because: "refused") }
        box.error =
          box.question.kind == .hostKey
          ? "Type yes to trust this key and connect, or no (Esc) to refuse" : "Type yes or no (Esc)"
        box.editor = LineEditor("")
      }
    default:
      _ = box.editor.apply(key)
    }
    signInQuestions[0] = box
    return []
  }

  /// The answer goes to every connection that asked it; the next question, if any, shows.
  private mutating func answer(_ box: SignInQuestionState, _ answer: SignInAnswer) -> [Effect] {
    signInQuestions.removeFirst()
    if box.question.kind == .hostKey { message = StatusMessage("Trusted the host key of \(box.locationName); connecting…") }
    // The status check joins the connection the answer lets in: the sidebar says online (or
    // why not) once it is, and work the engine held for a sign-in goes again.
    return ([box.question.id] + box.alsoAsking).map { .answerSignInQuestion(id: $0, answer) }
      + [.checkLocations([box.question.domain])]
  }

  /// No answer: the connection fails with ssh's own reason, and the location's other questions
  /// waiting here go with it.
  private mutating func refuseSignIn(_ box: SignInQuestionState, because how: String) -> [Effect] {
    let d = box.question.domain
    signInDeclined.insert(d)
    let refused = signInQuestions.filter { $0.question.domain == d }
    signInQuestions.removeAll { $0.question.domain == d }
    setStatus(.needsSignIn("sign-in \(how)"), of: d)
    let again = keyMap.keys(for: .refresh).first.map { "Enter on it or \($0) asks again" } ?? "Enter on it asks again"
    message = StatusMessage("Not signed in to \(box.locationName) (\(how)): \(again)", isError: true)
    return refused.flatMap { ([$0.question.id] + $0.alsoAsking).map { Effect.answerSignInQuestion(id: $0, .refuse) } }
  }

  /// A key of the person's that opens or reloads a location (Enter on it, Ctrl-R, opening a file)
  /// lets a location whose question was refused ask again.
  mutating func allowQuestions(after effects: [Effect]) -> [Effect] {
    guard !signInDeclined.isEmpty else { return effects }
    for e in effects {
      let d: DomainIdentifier?
      switch e {
      case .enumerate(_, let location, _, _, _): d = location.domain
      case .open(_, let domain), .openWith(_, _, let domain), .download(_, let domain): d = domain
      case .listFolderNow(let f): d = f.domain
      default: d = nil
      }
      if let d { signInDeclined.remove(d) }
    }
    return effects
  }
}
